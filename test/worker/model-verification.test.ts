import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerUserResponsesResultSchema } from '../../worker/schemas/admin';
import { errorBodySchema } from '../../worker/schemas/api';
import { aiModelStatusSchema, aiModelVersionsSchema, comparisonSchema, retrainResultSchema, userModelDebugSchema, userModelListSchema, userPerformanceSchema } from '../../worker/schemas/model-verification';
import { compileModel, encodeRow } from '../../worker/ml/model';
import { predictProbability } from '../../worker/ml/predict';
import { adminCookie, api, GIVEN_INITIAL, postJson } from '../helpers/api';
import { consentedParticipant, seedCompasAiModel, seedCompasCases, seedCompasMainCases, seedCompasTrainingTable } from '../helpers/study-factories';

let cookie: string;
beforeAll(async () => {
  await seedCompasCases();
  await seedCompasAiModel();
  cookie = await adminCookie();
});

const asAdmin = (path: string, init: RequestInit = {}) => api(path, { ...init, headers: { Cookie: cookie } });
const ok = async <T>(res: Response, schema: { parse: (v: unknown) => T }) => {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return schema.parse(JSON.parse(text));
};
const register = async (name: string, query: string) =>
  ok(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&${query}`, { method: 'POST' }), registerUserResponsesResultSchema);
const rows = async (sql: string, ...binds: unknown[]) => (await env.DB.prepare(sql).bind(...binds).all<Record<string, number>>()).results;

describe('GET /api/model-verification/ai-model/status', () => {
  it("reports the active model's file, recorded metrics and dataset info; 400 for an unknown dataset", async () => {
    const status = await ok(await asAdmin('/api/model-verification/ai-model/status?dataset_type=compas'), aiModelStatusSchema);
    const [row] = await rows("select json_extract(metrics, '$.test_accuracy') as acc from ai_models where dataset_type = 'compas' and status = 'active'");
    expect(status.model_file_exists).toBe(true);
    expect(status.database_info.model_exists).toBe(true);
    expect(status.current_performance.test_accuracy).toBe(row!.acc);
    expect(status.current_performance.error).toBeNull();
    const none = await ok(await asAdmin('/api/model-verification/ai-model/status?dataset_type=speed_dating'), aiModelStatusSchema);
    expect(none).toMatchObject({ model_file_exists: false, database_info: { model_exists: false } });
    expect(none.current_performance.error).toBeTruthy();
    const bad = await asAdmin('/api/model-verification/ai-model/status?dataset_type=iris');
    expect(bad.status).toBe(400);
    expect(errorBodySchema.parse(await bad.json()).detail).toBeTruthy();
  });
});

describe('user models', () => {
  it('lists trained, trainable and insufficient participants; debug info and per-user performance as computed from the answers', async () => {
    const trained = await register('test_mv_trained', 'num_responses=200&accuracy_rate=0.8&confidence_bias=1');
    const trainable = await register('test_mv_trainable', 'num_responses=200&accuracy_rate=0.6');
    const few = await register('test_mv_few', 'num_responses=2&accuracy_rate=0.5');
    const train = await asAdmin(`/api/user-models/train/${trained.user_id}`, { method: 'POST' });
    expect(train.status).toBe(200);

    const list = await ok(await asAdmin('/api/model-verification/user-models/list?dataset_type=compas&include_unlearned=true&limit=1000'), userModelListSchema);
    const status = (id: number) => list.user_models.find((u) => u.user_id === id);
    expect(status(trained.user_id)).toMatchObject({ training_status: 'trained', pre_experiment_responses: 200 });
    expect(status(trained.user_id)!.file_size).toBeGreaterThan(0);
    expect(status(trained.user_id)!.metadata.training_results?.num_trees).toBe(50);
    expect(status(trainable.user_id)).toMatchObject({ training_status: 'trainable', pre_experiment_responses: 200 });
    expect(status(few.user_id)).toMatchObject({ training_status: 'insufficient_data', pre_experiment_responses: 2 });
    const trainedOnly = await ok(await asAdmin('/api/model-verification/user-models/list?dataset_type=compas&include_unlearned=false&limit=1000'), userModelListSchema);
    expect(trainedOnly.user_models.every((u) => u.training_status === 'trained')).toBe(true);

    const perf = await ok(await asAdmin(`/api/model-verification/user-models/${trained.user_id}/performance?dataset_type=compas`), userPerformanceSchema);
    const answers = await rows('select prediction, ground_truth, confidence from pre_experiment_responses where participant_id = ?', trained.user_id);
    const acc = (list: Record<string, number>[]) => list.filter((a) => a.prediction === a.ground_truth).length / list.length;
    expect(perf.valid_cases).toBe(200);
    expect(perf.user_accuracy_vs_ground_truth).toBeCloseTo(acc(answers), 12);
    const high = answers.filter((a) => a.confidence! >= 4);
    expect(perf.high_confidence_accuracy).toBeCloseTo(acc(high), 12);
    expect(perf.confidence_distribution.high).toBe(high.length);
    expect(perf.confidence_distribution.high + perf.confidence_distribution.medium + perf.confidence_distribution.low).toBe(200);

    const debug = await ok(await asAdmin(`/api/user-models/debug/${few.user_id}`), userModelDebugSchema);
    expect(debug.availability).toMatchObject({ status: 'insufficient_data', data_count: 2, can_train: false });
    expect(debug.raw_user_data).toHaveLength(2);
    expect(debug.performance_info).toBeNull();
    expect(debug.recommendations.join(' ')).toMatch(/more pre-experiment answers/);
    const trainedDebug = await ok(await asAdmin(`/api/user-models/debug/${trained.user_id}`), userModelDebugSchema);
    expect(trainedDebug.performance_info?.num_trees).toBe(50);
    expect(trainedDebug.estimated_params.category).toBe('full');
    expect(trainedDebug.data_analysis.prediction_distribution.high_income).toBe(answers.filter((a) => a.prediction === 1).length);

    expect((await asAdmin('/api/user-models/debug/999999999')).status).toBe(404);
  });

  it('replaces a user model on a forced retrain and keeps it without force', async () => {
    const p = await register('test_mv_retrain', 'num_responses=200&accuracy_rate=0.7');
    const first = (await (await asAdmin(`/api/user-models/train/${p.user_id}`, { method: 'POST' })).json()) as { model_identifier: string };
    const kept = (await (await asAdmin(`/api/user-models/train/${p.user_id}?force_retrain=false`, { method: 'POST' })).json()) as { model_identifier: string };
    expect(kept.model_identifier).toBe(first.model_identifier);
    await new Promise((r) => setTimeout(r, 5));
    const forced = (await (await asAdmin(`/api/user-models/train/${p.user_id}?force_retrain=true`, { method: 'POST' })).json()) as { model_identifier: string };
    expect(forced.model_identifier).not.toBe(first.model_identifier);
    const stored = await env.DB.prepare('select model_identifier, r2_key from user_models where participant_id = ?').bind(p.user_id).all<{ model_identifier: string; r2_key: string }>();
    expect(stored.results).toEqual([expect.objectContaining({ model_identifier: forced.model_identifier })]);
    const file = (await (await env.MODELS.get(stored.results[0]!.r2_key))!.json()) as { metadata: { session_id: string } };
    expect(file.metadata.session_id).toBe('test_mv_retrain');
  });
});

describe('GET /api/model-verification/comparison/ai-vs-users', () => {
  it("compares the AI's held-out accuracy with each participant's accuracy, as computed by hand", async () => {
    await register('test_cmp_a', 'num_responses=200&accuracy_rate=0.9');
    await register('test_cmp_b', 'num_responses=100&accuracy_rate=0.5');
    const cmp = await ok(await asAdmin('/api/model-verification/comparison/ai-vs-users?dataset_type=compas'), comparisonSchema);
    const people = await rows(
      "select participant_id as id, avg(prediction = ground_truth) as acc, count(*) as n from pre_experiment_responses where dataset_type = 'compas' group by participant_id order by participant_id",
    );
    const accs = people.map((p) => p.acc!);
    const mean = accs.reduce((a, b) => a + b, 0) / accs.length;
    const std = Math.sqrt(accs.reduce((s, a) => s + (a - mean) ** 2, 0) / (accs.length - 1));
    const [ai] = await rows("select json_extract(metrics, '$.test_accuracy') as acc from ai_models where dataset_type = 'compas' and status = 'active'");
    expect(cmp.user_models.count).toBe(people.length);
    expect(cmp.user_models.average_accuracy).toBeCloseTo(mean, 12);
    expect(cmp.user_models.std_accuracy).toBeCloseTo(std, 12);
    expect(cmp.user_models.min_accuracy).toBeCloseTo(Math.min(...accs), 12);
    expect(cmp.user_models.max_accuracy).toBeCloseTo(Math.max(...accs), 12);
    expect(cmp.user_models.individual_performances.map((p) => p.valid_cases)).toEqual(people.map((p) => p.n));
    expect(cmp.ai_model.test_accuracy).toBe(ai!.acc);
    expect(cmp.comparison.ai_vs_avg_user).toBeCloseTo(ai!.acc! - mean, 12);
    expect(cmp.comparison.ai_better_than_users).toBe(ai!.acc! > mean);
    expect(cmp.comparison.users_outperforming_ai).toBe(accs.filter((a) => a > ai!.acc!).length);
  });
});

describe('POST /api/model-verification/ai-model/retrain', () => {
  const retrain = (body: unknown) => api('/api/model-verification/ai-model/retrain', { method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const explain = async (sessionId: string, caseId: string) => {
    const res = await postJson('/api/human-aligned-explanation', { session_id: sessionId, case_id: caseId, ...GIVEN_INITIAL });
    expect(res.status).toBe(200);
    return ((await res.json()) as { model_identifier: string }).model_identifier;
  };
  const startMain = async () => {
    const p = await consentedParticipant();
    const res = await api(`/api/experiments/main/start?session_id=${p.id}&num_cases=50&debug=true`, { method: 'POST' });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { case_set: { case_id: string }[] };
    return { id: p.id, caseId: body.case_set[0]!.case_id };
  };

  it('refuses bad settings with 400 and a dataset without a training table with 409, changing nothing', async () => {
    const before = await rows('select model_identifier, status from ai_models order by id');
    for (const body of [{ dataset_type: 'compas', num_cv_folds: 1 }, { dataset_type: 'compas', test_size: 0.9 }, { dataset_type: 'iris' }]) {
      const res = await retrain(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    }
    const missing = await retrain({ dataset_type: 'speed_dating' });
    expect(missing.status).toBe(409);
    expect(errorBodySchema.parse(await missing.json()).code).toBe('training_table_missing');
    expect(await rows('select model_identifier, status from ai_models order by id')).toEqual(before);
  });

  it('stores a retrain as a candidate scored beside the active model on the same cases; only activating it switches, a session in its main experiment keeps its version, and rollback returns', async () => {
    await seedCompasMainCases();
    await seedCompasTrainingTable();
    const old = (await ok(await asAdmin('/api/model-verification/ai-model/status?dataset_type=compas'), aiModelStatusSchema)).model_identifier!;
    const earlier = await startMain();
    expect(await explain(earlier.id, earlier.caseId)).toBe(old);

    const res = await retrain({ dataset_type: 'compas', num_cv_folds: 3, test_size: 0.25 });
    const result = await ok(res, retrainResultSchema);
    expect(result.model_identifier).not.toBe(old);
    expect(result.status).toBe('candidate');
    // Both models on the very same experiment cases: every stored COMPAS case.
    const cases = await rows("select features, ground_truth from cases where dataset_type = 'compas'");
    expect(result.cases_evaluated).toBe(cases.length);
    expect(result.candidate_metrics.test_samples).toBe(cases.length);
    expect(result.current_model).toMatchObject({ model_identifier: old, metrics: { test_samples: cases.length } });
    // Recomputed here from the stored file: the candidate's accuracy on those cases.
    const [row] = await rows('select r2_key, json_extract(metrics, \'$.training_samples\') as n from ai_models where model_identifier = ?', result.model_identifier);
    const candidate = compileModel((await (await env.MODELS.get(row!.r2_key as unknown as string))!.json()) as never);
    const correct = cases.filter((c) => (predictProbability(candidate, encodeRow(candidate.header, JSON.parse(c.features as unknown as string))) >= 0.5 ? 1 : 0) === c.ground_truth).length;
    expect(result.candidate_metrics.test_accuracy).toBeCloseTo(correct / cases.length, 12);
    // Fitted on every row of the training table, as the set-up's model is.
    expect(row!.n).toBe(600);

    // Nothing switched yet.
    expect((await ok(await asAdmin('/api/model-verification/ai-model/status?dataset_type=compas'), aiModelStatusSchema)).model_identifier).toBe(old);
    const beforeActivation = await startMain();
    expect(await explain(beforeActivation.id, beforeActivation.caseId)).toBe(old);

    // Every version is listed; activating the candidate switches new sessions only.
    const listed = await ok(await asAdmin('/api/model-verification/ai-model/versions?dataset_type=compas'), aiModelVersionsSchema);
    expect(listed.versions[0]).toMatchObject({ model_identifier: result.model_identifier, status: 'candidate', origin: 'admin_retrain', test_accuracy: result.candidate_metrics.test_accuracy });
    expect(listed.versions.find((v) => v.model_identifier === old)).toMatchObject({ status: 'active' });
    // Every version on the same experiment cases, whatever rows its recorded accuracy came from.
    expect(listed.versions[0]).toMatchObject({ experiment_cases: cases.length, experiment_case_accuracy: result.candidate_metrics.test_accuracy });
    expect(listed.versions.find((v) => v.model_identifier === old)).toMatchObject({ experiment_cases: cases.length, experiment_case_accuracy: result.current_model!.metrics.test_accuracy });
    const activate = (model_identifier: string) =>
      api('/api/model-verification/ai-model/activate', { method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json' }, body: JSON.stringify({ dataset_type: 'compas', model_identifier }) });
    expect((await activate(result.model_identifier)).status).toBe(200);
    expect(await explain(earlier.id, earlier.caseId)).toBe(old);
    const later = await startMain();
    expect(await explain(later.id, later.caseId)).toBe(result.model_identifier);
    // The previous version stays, file and row, and rolling back to it works.
    const [previous] = await rows('select r2_key, status from ai_models where model_identifier = ?', old);
    expect(previous!.status).toBe('retired');
    expect(await env.MODELS.head(previous!.r2_key as unknown as string)).not.toBeNull();
    expect((await activate(old)).status).toBe(200);
    expect((await ok(await asAdmin('/api/model-verification/ai-model/status?dataset_type=compas'), aiModelStatusSchema)).model_identifier).toBe(old);
  });
});

describe('GET /api/model-verification/ai-model/details', () => {
  it('gives the mean |SHAP| of every feature over the experiment cases and the shape of the trees', async () => {
    const details = (await (await asAdmin('/api/model-verification/ai-model/details?dataset_type=compas')).json()) as {
      cases_explained: number;
      feature_importance: { feature: string; mean_abs_shap: number }[];
      trees: { num_trees: number; max_depth: number; total_leaves: number; splits_per_feature: { splits: number }[] };
    };
    const [n] = await rows("select count(*) as n from cases where dataset_type = 'compas'");
    expect(details.cases_explained).toBe(n!.n);
    expect(details.feature_importance).toHaveLength(8);
    const values = details.feature_importance.map((f) => f.mean_abs_shap);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    expect(values[0]).toBeGreaterThan(0);
    expect(details.trees.num_trees).toBeGreaterThan(0);
    expect(details.trees.splits_per_feature.reduce((s, f) => s + f.splits, 0)).toBe(details.trees.total_leaves - details.trees.num_trees);
    expect((await asAdmin('/api/model-verification/ai-model/details?dataset_type=speed_dating')).status).toBe(404);
  });
});
