import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { caseSetResponseSchema } from '../../worker/schemas/experiment';
import {
  aiExplanationResponseSchema,
  alignmentAlphaResponseSchema,
  integratedResponseResultSchema,
  mainStartResponseSchema,
  mainSummaryResponseSchema,
  understandingAttemptResultSchema,
} from '../../worker/schemas/main-experiment';
import { drawUnderstandingQuestions } from '../../worker/schemas/understanding-test';
import { studyConfig } from '../../worker/schemas/study';
import { alphaSchedule } from '../../worker/services/alignment';
import { adminCookie, api, callUntilLimited, postJson } from '../helpers/api';
import { storedServes } from '../helpers/served-bars';
import { servedClaims } from '../helpers/simulated-participant';
import { compileModel, encodeRow } from '../../worker/ml/model';
import { normaliseContributions } from '../../worker/ml/explanation';
import { treeShap } from '../../worker/ml/treeshap';
import { explanationResponseSchema } from '../../worker/schemas/main-experiment';
import { consentedParticipant, newParticipantId, seedCompasStudy } from '../helpers/study-factories';

beforeAll(async () => {
  await seedCompasStudy();
});

/**
 * A consented COMPAS participant with all 200 pre-experiment answers stored through the API; by
 * default they answer by a rule the user model can learn (many prior offences → reoffends).
 */
/** The initial judgement this file's cases are answered with; the request revealing the AI carries it. */
const INITIAL = { initial_prediction: 0, initial_confidence: 2, initial_response_time_ms: 4000, initial_reasoning: 'young, few priors' };

async function participantReadyForMain(predict: (features: Record<string, unknown>, i: number) => number = (f) => (Number(f.priors_count) > 4 ? 1 : 0)) {
  const p = await consentedParticipant();
  const set = caseSetResponseSchema.parse(
    await (await api(`/api/experiments/case-sets/fixed?participant_id=${p.id}&num_cases=200&experiment_type=pre_experiment`)).json(),
  );
  const res = await postJson('/api/experiments/pre-experiment/responses/batch', {
    session_id: p.id,
    responses: set.case_set.map((c, i) => ({ case_id: c.case_id, prediction: predict(c.features, i), confidence: 3, response_time_ms: 1000 })),
  });
  expect(res.status).toBe(200);
  return { ...p, preCaseIds: set.case_set.map((c) => c.case_id) };
}

const start = (query: string) => api(`/api/experiments/main/start?${query}`, { method: 'POST' });

async function storedMainRows(sessionId: string) {
  const { results } = await env.DB.prepare(
    "select i.case_id, i.alignment_alpha, c.ground_truth from case_set_items i join cases c on c.case_id = i.case_id where i.session_id = ? and i.phase = 'main' order by i.position",
  )
    .bind(sessionId)
    .all<{ case_id: string; alignment_alpha: number; ground_truth: number }>();
  return results;
}

describe('POST /api/experiments/main/start', () => {
  it('draws 50 cases once, half of each label, none from the pre-experiment, each level of alpha 10 times, without ground truth', async () => {
    const p = await participantReadyForMain();
    const res = await start(`session_id=${p.id}&num_cases=50`);
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain('ground_truth');
    const body = mainStartResponseSchema.parse(JSON.parse(text));
    expect(body).toMatchObject({ success: true, session_id: p.id, is_resumed: false, completed_cases: 0, total_cases: 50 });
    expect(body.case_set).toHaveLength(50);
    expect(body.case_set.map((c) => c.case_number)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));

    const rows = await storedMainRows(p.id);
    expect(rows.map((r) => r.case_id)).toEqual(body.case_set.map((c) => c.case_id));
    expect(rows.filter((r) => r.ground_truth === 1)).toHaveLength(25);
    expect(rows.filter((r) => p.preCaseIds.includes(r.case_id))).toEqual([]);
    // All from one pool variant.
    expect(new Set(rows.map((r) => r.case_id.split('_')[2])).size).toBe(1);
    for (const level of studyConfig.mainExperiment.alphaLevels) {
      expect(body.case_set.filter((c) => c.alignment_alpha === level)).toHaveLength(10);
    }
    expect(rows.map((r) => r.alignment_alpha)).toEqual(body.case_set.map((c) => c.alignment_alpha));
  });

  it('answers a resume request for 100 cases (JSON body form) with the same stored set', async () => {
    const p = await participantReadyForMain();
    const first = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json());
    const again = await postJson('/api/experiments/main/start', { session_id: p.id, num_cases: 100, participant_id: p.id });
    expect(again.status).toBe(200);
    const second = mainStartResponseSchema.parse(await again.json());
    expect(second.is_resumed).toBe(true);
    expect(second.case_set).toEqual(first.case_set);
    expect(await storedMainRows(p.id)).toHaveLength(50);
  });

  it('accepts the query form with an empty body labelled JSON, as many HTTP clients send it', async () => {
    const p = await participantReadyForMain();
    const res = await api(`/api/experiments/main/start?session_id=${p.id}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(201);
    const broken = await api(`/api/experiments/main/start?session_id=${p.id}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"session_id":' });
    expect(broken.status).toBe(400);
  });

  it('draws one set when two starts race', async () => {
    const p = await participantReadyForMain();
    const [a, b] = await Promise.all([start(`session_id=${p.id}`), start(`session_id=${p.id}`)]);
    const sets = [mainStartResponseSchema.parse(await a.json()), mainStartResponseSchema.parse(await b.json())];
    expect(sets[0]!.case_set.map((c) => c.case_id)).toEqual(sets[1]!.case_set.map((c) => c.case_id));
    expect(await storedMainRows(p.id)).toHaveLength(50);
  });

  it('gives different participants different orders and alpha schedules', async () => {
    const [a, b] = [await participantReadyForMain(), await participantReadyForMain()];
    const setA = mainStartResponseSchema.parse(await (await start(`session_id=${a.id}`)).json()).case_set;
    const setB = mainStartResponseSchema.parse(await (await start(`session_id=${b.id}`)).json()).case_set;
    expect(setA.map((c) => c.alignment_alpha)).not.toEqual(setB.map((c) => c.alignment_alpha));
  });

  it('refuses with 409 before the pre-experiment is complete, unless debug or tutorial is set', async () => {
    const p = await consentedParticipant();
    const refused = await start(`session_id=${p.id}`);
    expect(refused.status).toBe(409);
    expect(errorBodySchema.parse(await refused.json()).code).toBe('pre_experiment_incomplete');
    expect(await storedMainRows(p.id)).toHaveLength(0);
    expect((await start(`session_id=${p.id}&debug=true`)).status).toBe(201);
    const other = await consentedParticipant();
    expect((await postJson('/api/experiments/main/start', { session_id: other.id, tutorial: true })).status).toBe(201);
  });

  it('refuses an unconsented participant with 409 and an unknown one with 404', async () => {
    const id = newParticipantId();
    await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true });
    const unconsented = await start(`session_id=${id}&debug=true`);
    expect(unconsented.status).toBe(409);
    expect(errorBodySchema.parse(await unconsented.json()).code).toBe('consent_required');
    expect((await start(`session_id=${newParticipantId()}&debug=true`)).status).toBe(404);
  });

  it.each([
    ['no session', '', {}],
    ['an invalid session ID', 'session_id=q', {}],
    ['zero cases', 'session_id=AB23CD45&num_cases=0', {}],
    ['more than 100 cases', 'session_id=AB23CD45&num_cases=101', {}],
    ['a flag that is not true or false', 'session_id=AB23CD45&debug=yes', {}],
    ['a body with a wrong type', '', { session_id: 'AB23CD45', num_cases: '50' }],
  ])('answers %s with 400 and detail, storing nothing', async (_name, query, body) => {
    const res = await postJson(`/api/experiments/main/start?${query}`, body);
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    expect(await storedMainRows('AB23CD45')).toHaveLength(0);
  });
});

describe('GET /api/experiments/alignment-alpha/{sessionId}/{caseIndex}/{total}', () => {
  const alpha = async (path: string) => {
    const res = await api(`/api/experiments/alignment-alpha/${path}`);
    expect(res.status).toBe(200);
    return alignmentAlphaResponseSchema.parse(await res.json());
  };

  it('gives the scheduled alpha before the set exists and the same stored alpha after', async () => {
    const p = await participantReadyForMain();
    const before = await Promise.all(Array.from({ length: 50 }, (_, i) => alpha(`${p.id}/${i}/50`)));
    expect(before.every((a) => a.source === 'schedule')).toBe(true);
    const set = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    const after = await Promise.all(Array.from({ length: 50 }, (_, i) => alpha(`${p.id}/${i}/50`)));
    expect(after.every((a) => a.source === 'stored')).toBe(true);
    expect(after.map((a) => a.alpha)).toEqual(set.map((c) => c.alignment_alpha));
    expect(before.map((a) => a.alpha)).toEqual(after.map((a) => a.alpha));
  });

  it('falls back to 0.5 when the total does not split over the levels', async () => {
    expect(await alpha('AB23CD45/3/7')).toMatchObject({ alpha: 0.5, source: 'fallback' });
  });

  it.each(['AB23CD45/50/50', 'AB23CD45/-1/50', 'AB23CD45/x/50', 'q/0/50', 'AB23CD45/0/0'])('answers %s with 400 and detail', async (path) => {
    const res = await api(`/api/experiments/alignment-alpha/${path}`);
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
  });
});

describe('alpha schedule', () => {
  it('is counterbalanced, deterministic per session and different between sessions', () => {
    const a = alphaSchedule('AB23CD45', 50)!;
    expect(alphaSchedule('AB23CD45', 50)).toEqual(a);
    for (const level of studyConfig.mainExperiment.alphaLevels) expect(a.filter((x) => x === level)).toHaveLength(10);
    expect(alphaSchedule('ZX98YW76', 50)).not.toEqual(a);
    expect(alphaSchedule('AB23CD45', 49)).toBeNull();
  });
});

describe('POST /api/human-aligned-explanation', () => {
  /** The active AI model straight from R2, and what the ML core makes of a case's stored features. */
  async function expectedAiShares(caseId: string) {
    const { r2_key } = (await env.DB.prepare("select r2_key from ai_models where dataset_type = 'compas' and status = 'active'").first<{ r2_key: string }>())!;
    const model = compileModel(await (await env.MODELS.get(r2_key))!.json());
    const { features } = (await env.DB.prepare('select features from cases where case_id = ?').bind(caseId).first<{ features: string }>())!;
    const phi = treeShap(model, encodeRow(model.header, JSON.parse(features)));
    return normaliseContributions(model.featureNames, phi.subarray(0, model.numFeatures));
  }

  // The request that reveals the AI carries the initial judgement, as the page sends it.
  const explain = (body: Record<string, unknown>) => postJson('/api/human-aligned-explanation', { ...INITIAL, ...body });

  it("mixes the AI's and the participant's shares by the case's stored alpha, from the server's own features", async () => {
    const p = await participantReadyForMain();
    expect((await postJson('/api/user-model/train', { session_id: p.id, dataset_type: 'compas' })).status).toBe(200);
    const set = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    for (const alpha of [1, 0, 0.5]) {
      const item = set.find((c) => c.alignment_alpha === alpha)!;
      // A client's features and alpha are ignored: the server's case table and stored alpha count.
      const res = await explain({ session_id: p.id, case_data: { case_id: item.case_id, priors_count: 99, age: 18 }, alignment_alpha: 0.25, dataset_type: 'compas' });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain('ground_truth');
      const body = explanationResponseSchema.parse(JSON.parse(text));
      expect(body).toMatchObject({ case_id: item.case_id, alignment_alpha: alpha, explanation_kind: 'human_aligned', human_aligned_used: true, user_model_available: true });
      expect(body.prediction).toBe(body.ai_probability! >= 0.5 ? 1 : 0);
      const want = await expectedAiShares(item.case_id);
      body.ai_feature_importance.forEach((c, i) => {
        expect(c.feature).toBe(want[i]!.feature);
        expect(Math.abs(c.importance - want[i]!.importance)).toBeLessThan(1e-12);
      });
      for (const shares of [body.ai_feature_importance, body.user_feature_importance, body.shown_feature_importance]) {
        expect(shares.reduce((s, c) => s + c.abs_importance, 0)).toBeCloseTo(1, 9);
      }
      const shown = body.shown_feature_importance.map((c) => c.importance);
      if (alpha === 1) shown.forEach((v, i) => expect(v).toBeCloseTo(body.ai_feature_importance[i]!.importance, 12));
      if (alpha === 0) shown.forEach((v, i) => expect(v).toBeCloseTo(body.user_feature_importance[i]!.importance, 12));
      // The AI's starting point: its base log-odds plus every feature's raw contribution is its score.
      const logit = (p: number) => Math.log(p / (1 - p));
      const rawSum = body.ai_feature_importance.reduce((s, c) => s + c.raw_shap, 0);
      expect(logit(body.ai_base_probability!) + rawSum).toBeCloseTo(logit(body.ai_probability!), 9);
      const userSum = body.user_feature_importance.reduce((s, c) => s + c.importance, 0);
      expect(body.user_model_prediction).toBe(userSum > 0 ? 1 : 0);
      expect(body.user_model_probability).toBeGreaterThan(0);
    }
  });

  it("shows the AI's own explanation when the participant's model could not be fitted (one answer to every case)", async () => {
    const p = await participantReadyForMain(() => 0);
    const [item] = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    const body = explanationResponseSchema.parse(await (await explain({ session_id: p.id, case_id: item!.case_id })).json());
    expect(body).toMatchObject({ explanation_kind: 'ai_only', user_model_available: false, human_aligned_used: false, user_feature_importance: [], user_model_prediction: null });
    expect(body.shown_feature_importance).toEqual(body.ai_feature_importance);
  });

  it("serves the practice case at the condition's alpha nearest 0.5, whatever the request says, and records the serve", async () => {
    const p = await participantReadyForMain();
    expect((await postJson('/api/user-model/train', { session_id: p.id, dataset_type: 'compas' })).status).toBe(200);
    expect((await start(`session_id=${p.id}`)).status).toBe(201);
    const body = explanationResponseSchema.parse(await (await explain({ session_id: p.id, case_id: 'tutorial_compas', alignment_alpha: 0.9 })).json());
    expect(body).toMatchObject({ case_id: 'tutorial_compas', alignment_alpha: 0.5, explanation_kind: 'human_aligned' });
    const serves = await env.DB.prepare('select id, case_id, alignment_alpha from served_explanations where session_id = ?').bind(p.id).all<{ id: number; case_id: string; alignment_alpha: number }>();
    expect(serves.results).toEqual([{ id: body.served_explanation_id, case_id: 'tutorial_compas', alignment_alpha: 0.5 }]);
  });

  it('answers bad input with 4xx and detail, and serves nothing before the main experiment starts', async () => {
    const p = await consentedParticipant();
    await env.DB.prepare(
      "insert or ignore into cases (case_id, dataset_type, pool, case_number, features, ground_truth, created_at) values ('adult_income_main_a_001', 'adult_income', 'main_experiment', 1, '{}', 0, '2026-01-01T00:00:00Z')",
    ).run();
    const pinned = () => env.DB.prepare('select ai_model_identifier as id from sessions where session_id = ?').bind(p.id).first<{ id: string | null }>();
    // Before the main experiment: nothing of the AI, not even the practice case; the refusal pins no model.
    const early = await explain({ session_id: p.id, case_id: 'tutorial_compas' });
    expect(early.status).toBe(409);
    expect(errorBodySchema.parse(await early.json()).code).toBe('main_experiment_not_started');
    expect((await pinned())!.id).toBeNull();
    expect((await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).status).toBe(201);
    for (const [body, status] of [
      [{ session_id: p.id }, 400],
      [{ session_id: p.id, case_id: 'no_such_case' }, 404],
      [{ session_id: p.id, case_id: 'adult_income_main_a_001' }, 400],
      [{ session_id: p.id, case_id: 'compas_pre_001' }, 400],
      [{ session_id: p.id, case_id: 'tutorial_compas', alignment_alpha: 2 }, 400],
      [{ session_id: 'q', case_id: 'tutorial_compas' }, 400],
      [{ session_id: newParticipantId(), case_id: 'tutorial_compas' }, 404],
    ] as const) {
      const res = await explain(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    }
    const serves = await env.DB.prepare('select count(*) as n from served_explanations where session_id = ?').bind(p.id).first<{ n: number }>();
    expect(serves!.n).toBe(0);
    const active = await env.DB.prepare("select model_identifier as id from ai_models where dataset_type = 'compas' and status = 'active'").first<{ id: string }>();
    expect((await pinned())!.id).toBe(active!.id);
  });
});

describe('POST /api/experiments/main/integrated-response', () => {
  /** The participant's own part of a case: judgements, ratings and times, nothing about the AI. */
  const answer = (sessionId: string, caseId: string, overrides: Record<string, unknown> = {}) => ({
    session_id: sessionId,
    case_id: caseId,
    case_number: 999,
    ground_truth: 1,
    case_data: { priors_count: 99 },
    initial_prediction: 0,
    initial_confidence: 2,
    initial_response_time_ms: 4000,
    initial_reasoning: 'young, few priors',
    final_prediction: 1,
    final_confidence: 4,
    final_response_time_ms: 3000,
    comprehensibility: 4,
    transparency: 3,
    satisfaction: 5,
    trust: 2,
    alignment: 1,
    explanation_viewing_time_ms: 5000,
    total_task_time_ms: 20000,
    ...overrides,
  });
  /** Asks for the case's explanation as the page does; returns it and what the page sends of it with the case. */
  async function serve(sessionId: string, caseId: string) {
    const res = await postJson('/api/human-aligned-explanation', { session_id: sessionId, case_id: caseId, ...INITIAL });
    expect(res.status).toBe(200);
    const e = explanationResponseSchema.parse(await res.json());
    const claims = servedClaims(e);
    return { e, claims };
  }
  /** A case as the page sends it after showing the case's explanation. */
  const servedAnswer = async (sessionId: string, caseId: string, overrides: Record<string, unknown> = {}) =>
    answer(sessionId, caseId, { ...(await serve(sessionId, caseId)).claims, ...overrides });
  const save = (body: unknown) => postJson('/api/experiments/main/integrated-response', body);
  /** A serve's bars as stored (packed in `bars`), unpacked. */
  const servedRow = async (id: number) => (await storedServes({ id }))[0]!.bars!;
  const row = (sessionId: string, caseId: string) =>
    env.DB.prepare('select * from main_experiment_responses where session_id = ? and case_id = ?').bind(sessionId, caseId).first<Record<string, unknown>>();
  const stored = async (sessionId: string) =>
    (await env.DB.prepare('select count(*) as n from main_experiment_responses where session_id = ?').bind(sessionId).first<{ n: number }>())!.n;

  it("records whether the bars served, summed with their signs, lean toward the AI's label", async () => {
    const p = await participantReadyForMain();
    const set = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    for (const item of set.slice(0, 6)) {
      const { e, claims } = await serve(p.id, item.case_id);
      // A client's own claim about the lean is not read: the field is the server's.
      expect((await save(answer(p.id, item.case_id, { ...claims, shown_leans_with_ai: true }))).status).toBe(201);
      const sum = e.shown_feature_importance.reduce((s, c) => s + c.importance, 0);
      expect((await row(p.id, item.case_id))!.shown_leans_with_ai).toBe((e.prediction === 1 ? sum > 0 : sum < 0) ? 1 : 0);
    }
    // Whether the AI's baseline was shown is the server's too, by the page's own rule, from the serve
    // and the study configuration (shipped without it); a page claiming otherwise is refused.
    expect(studyConfig.mainExperiment.showAiBaseline).toBe(false);
    const claimed = await save(await servedAnswer(p.id, set[7]!.case_id, { ai_baseline_shown: true }));
    expect(claimed.status).toBe(400);
    expect(JSON.stringify(errorBodySchema.parse(await claimed.json()).detail)).toContain('ai_baseline_shown');
    expect((await save(await servedAnswer(p.id, set[7]!.case_id, { ai_baseline_shown: false }))).status).toBe(201);
    for (const item of [set[0]!, set[7]!]) expect((await row(p.id, item.case_id))!.ai_baseline_shown).toBe(0);
  });

  it("stores a case with the server's case number, ground truth, features and alpha, and the AI side as the Worker served it", async () => {
    const p = await participantReadyForMain();
    const set = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    const item = set[6]!;
    const { e, claims } = await serve(p.id, item.case_id);
    const res = await save(answer(p.id, item.case_id, claims));
    expect(res.status).toBe(201);
    expect(integratedResponseResultSchema.parse(await res.json())).toMatchObject({ duplicate: false, completed_cases: 1, complete: false });
    // A resumed start names the cases already stored, so the browser skips exactly those.
    const resumed = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}&num_cases=100`)).json());
    expect(resumed).toMatchObject({ is_resumed: true, completed_cases: 1, answered_case_ids: [item.case_id], dataset_type: 'compas' });
    const stored = (await row(p.id, item.case_id))!;
    const truth = await env.DB.prepare('select ground_truth, features from cases where case_id = ?').bind(item.case_id).first<{ ground_truth: number; features: string }>();
    expect(stored).toMatchObject({
      case_number: 7,
      ground_truth: truth!.ground_truth,
      // The case shown is the set's case in `cases`, and the bars are the serve's: no copies (issue #45).
      case_data: null,
      shown_feature_importance: null,
      alignment_alpha: item.alignment_alpha,
      initial_prediction: 0,
      final_confidence: 4,
      initial_reasoning: 'young, few priors',
      explanation_kind: 'human_aligned',
      ai_prediction: e.prediction,
      ai_probability: e.ai_probability,
      ai_model_identifier: e.model_identifier,
      user_model_identifier: e.user_model_identifier,
      served_explanation_id: e.served_explanation_id,
      trust: 2,
    });
    expect((await servedRow(e.served_explanation_id!)).shown).toEqual(e.shown_feature_importance);
    expect(stored.completed_at).toBeTruthy();
  });

  it("takes what the body leaves out of the AI side from the serve, and stores what it leaves out of its own as null", async () => {
    const p = await participantReadyForMain();
    const [item] = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    // The initial judgement revealing the AI came without a reason; the stored case has none either.
    const res = await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: item!.case_id, ...INITIAL, initial_reasoning: undefined });
    const e = explanationResponseSchema.parse(await res.json());
    // Nothing of the AI at all: the case's last serve is the record.
    expect((await save(answer(p.id, item!.case_id, { initial_reasoning: undefined }))).status).toBe(201);
    const stored = (await row(p.id, item!.case_id))!;
    expect(stored.initial_reasoning).toBeNull();
    expect(stored).toMatchObject({ ai_prediction: e.prediction, explanation_kind: e.explanation_kind, user_model_probability: e.user_model_probability, served_explanation_id: e.served_explanation_id });
    expect(stored.ai_feature_importance).toBeNull();
    expect((await servedRow(e.served_explanation_id!)).ai).toEqual(e.ai_feature_importance);
  });

  it('refuses a forged prediction, model, kind, alpha or bars with a 400 naming each field, storing nothing', async () => {
    const p = await participantReadyForMain();
    const [item] = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    const { e, claims } = await serve(p.id, item!.case_id);
    const reversed = e.shown_feature_importance.map((c) => ({ ...c, importance: -c.importance, raw_shap: -c.raw_shap }));
    const forgeries: [string, Record<string, unknown>, string[]][] = [
      ['the prediction', { ai_prediction: 1 - e.prediction, final_prediction: 1 - e.prediction }, ['ai_prediction']],
      ['the model', { ai_model_identifier: 'made_up_model' }, ['ai_model_identifier']],
      ['the kind', { explanation_kind: 'ai_only' }, ['explanation_kind']],
      ['the alpha', { alignment_alpha: item!.alignment_alpha === 1 ? 0 : 1 }, ['alignment_alpha']],
      ['the bars', { shown_feature_importance: reversed }, ['shown_feature_importance']],
      ['everything at once', { ai_prediction: 1 - e.prediction, ai_model_prediction: 1 - e.prediction, ai_model_identifier: 'x', explanation_kind: 'prediction_only', ai_feature_importance: [] }, ['ai_prediction', 'ai_model_prediction', 'ai_model_identifier', 'explanation_kind', 'ai_feature_importance']],
    ];
    for (const [name, forged, fields] of forgeries) {
      const res = await save(answer(p.id, item!.case_id, { ...claims, ...forged }));
      expect(res.status, name).toBe(400);
      const body = errorBodySchema.parse(await res.json());
      expect(body.code, name).toBe('ai_record_mismatch');
      expect((body.detail as { loc: string[] }[]).map((d) => d.loc[1]).sort(), name).toEqual([...fields].sort());
    }
    expect(await stored(p.id)).toBe(0);
    // A serve of another case, or of another session, is not this case's record.
    const other = await serve(p.id, (mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set)[1]!.case_id);
    const wrongServe = await save(answer(p.id, item!.case_id, { served_explanation_id: other.e.served_explanation_id }));
    expect(wrongServe.status).toBe(400);
    expect(errorBodySchema.parse(await wrongServe.json()).code).toBe('served_explanation_unknown');
    expect(await stored(p.id)).toBe(0);
    // What was served is stored.
    expect((await save(answer(p.id, item!.case_id, claims))).status).toBe(201);
  });

  it('refuses a case whose explanation was never served with 409, storing nothing', async () => {
    const p = await participantReadyForMain();
    const [item] = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    const res = await save(answer(p.id, item!.case_id, { ai_prediction: 1, ai_feature_importance: [{ feature: 'age', importance: 1, abs_importance: 1, raw_shap: 1 }] }));
    expect(res.status).toBe(409);
    expect(errorBodySchema.parse(await res.json()).code).toBe('ai_not_served');
    expect(await stored(p.id)).toBe(0);
  });

  it('answers a retry as a duplicate that counts as success and never overwrites the stored row', async () => {
    const p = await participantReadyForMain();
    const [item] = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    const body = await servedAnswer(p.id, item!.case_id);
    expect((await save(body)).status).toBe(201);
    const retry = await save({ ...body, final_prediction: 0, trust: 5 });
    expect(retry.status).toBe(200);
    expect(integratedResponseResultSchema.parse(await retry.json())).toMatchObject({ success: true, duplicate: true, completed_cases: 1 });
    expect(await row(p.id, item!.case_id)).toMatchObject({ final_prediction: 1, trust: 2 });
  });

  it('completes the main experiment at 50 cases, and resume then leads to the post-survey', async () => {
    const p = await participantReadyForMain();
    const set = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    let last;
    let aiSaidOne = 0;
    for (const item of set) {
      const { claims } = await serve(p.id, item.case_id);
      if (claims.ai_prediction === 1) aiSaidOne++;
      last = integratedResponseResultSchema.parse(await (await save(answer(p.id, item.case_id, claims))).json());
    }
    expect(last).toMatchObject({ completed_cases: 50, complete: true });
    const summary = mainSummaryResponseSchema.parse(await (await api(`/api/experiments/main/summary/${p.id}`)).json());
    // Every stored answer changed 0 → 1, and agreed with the AI where the AI said 1.
    expect(summary).toMatchObject({ completed_cases: 50, complete: true, judgement_changes: 50, final_agrees_with_ai: aiSaidOne });
    expect(summary.mean_ratings).toEqual({ comprehensibility: 4, transparency: 3, satisfaction: 5, trust: 2, alignment: 1 });
    const resume = (await (await postJson('/api/experiments/resume', { participant_name: p.id })).json()) as { action: string; isMainExperimentCompleted: boolean };
    expect(resume).toMatchObject({ action: 'start_post_survey', isMainExperimentCompleted: true });
  });

  it.each([
    ['a case outside the set', { case_id: 'compas_pre_001' }, 400],
    ['a confidence of 6', { final_confidence: 6 }, 400],
    ['a rating of 0', { alignment: 0 }, 400],
    ['a missing survey item', { trust: undefined }, 400],
    ['a prediction of 2', { initial_prediction: 2 }, 400],
    ['a negative time', { total_task_time_ms: -1 }, 400],
  ])('refuses %s with 400 and detail, storing nothing', async (_name, overrides, status) => {
    const p = await participantReadyForMain();
    const [item] = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    const res = await save(await servedAnswer(p.id, item!.case_id, overrides));
    expect(res.status).toBe(status);
    expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    expect(await stored(p.id)).toBe(0);
  });

  it('refuses an unconsented participant with 409', async () => {
    const id = newParticipantId();
    await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true });
    expect((await save(answer(id, 'compas_main_a_001'))).status).toBe(409);
  });
});

describe('AI-only explanations', () => {
  it("GET /api/experiments/explanations/{caseId} without a session explains a practice case, a judged case only to an administrator, never with its ground truth", async () => {
    const res = await api('/api/experiments/explanations/tutorial_compas');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('ground_truth');
    const body = aiExplanationResponseSchema.parse(JSON.parse(text));
    expect(body.prediction).toBe(body.probability! >= 0.5 ? 1 : 0);
    expect(body).toMatchObject({ served_explanation_id: null, explanation: null });
    // The model's recorded test accuracy travels with it, for the panel's note.
    expect(body.model_test_accuracy).toBe(0.7);
    expect(body.feature_importance.reduce((s, c) => s + c.abs_importance, 0)).toBeCloseTo(1, 9);
    const judged = await api('/api/experiments/explanations/compas_main_a_003');
    expect(judged.status).toBe(403);
    expect(errorBodySchema.parse(await judged.json()).code).toBe('explanation_needs_session');
    expect((await api('/api/experiments/explanations/compas_pre_041')).status).toBe(403);
    const cookie = await adminCookie();
    const asAdmin = await api('/api/experiments/explanations/compas_main_a_003', { headers: { cookie } });
    expect(asAdmin.status).toBe(200);
    expect(aiExplanationResponseSchema.parse(await asAdmin.json()).feature_importance.length).toBeGreaterThan(0);
    expect((await api('/api/experiments/explanations/no_such_case')).status).toBe(404);
    expect((await api('/api/experiments/explanations/bad%20id')).status).toBe(400);
  });

  it('POST /api/experiments/main/predict gives the session\'s serve of the case at case_index, the same one the AI-only route gives, and ignores client features', async () => {
    const p = await participantReadyForMain();
    const set = mainStartResponseSchema.parse(await (await start(`session_id=${p.id}`)).json()).case_set;
    const res = await postJson(`/api/experiments/main/predict?session_id=${p.id}&case_index=4`, { case_data: { priors_count: 99 }, ...INITIAL });
    expect(res.status).toBe(200);
    const body = aiExplanationResponseSchema.parse(await res.json());
    expect(body.case_id).toBe(set[4]!.case_id);
    const fallback = aiExplanationResponseSchema.parse(await (await api(`/api/experiments/explanations/${set[4]!.case_id}?session_id=${p.id}`)).json());
    expect(fallback.served_explanation_id).toBe(body.served_explanation_id);
    expect(body.feature_importance).toEqual(fallback.feature_importance);
    expect(body.explanation).toEqual(fallback.explanation);
    expect((await postJson(`/api/experiments/main/predict?session_id=${p.id}&case_index=100`, {})).status).toBe(400);
    const other = await consentedParticipant();
    expect((await postJson(`/api/experiments/main/predict?session_id=${other.id}&case_index=0`, {})).status).toBe(404);
  });
});

describe('POST /api/experiments/main/understanding-test', () => {
  const take = (sessionId: string, attemptId: string, right: number) => {
    const drawn = drawUnderstandingQuestions();
    return {
      session_id: sessionId,
      attempt_id: attemptId,
      answers: drawn.map((q, i) => ({ question_id: q.id, answer: i < right ? q.correct : q.options.find((o) => o !== q.correct)! })),
    };
  };
  const attempt = (body: unknown) => postJson('/api/experiments/main/understanding-test', body);
  const rows = (sessionId: string) =>
    env.DB.prepare('select attempt_number, correct_count, total_questions, passed, answers from understanding_test_attempts where session_id = ? order by attempt_number')
      .bind(sessionId)
      .all<{ attempt_number: number; correct_count: number; total_questions: number; passed: number; answers: string }>();

  it('scores each attempt from the pool itself and stores questions, answers and score; only 5 of 5 passes', async () => {
    const p = await consentedParticipant();
    const failed = await attempt(take(p.id, 'attempt-one-1', 4));
    expect(failed.status).toBe(201);
    expect(understandingAttemptResultSchema.parse(await failed.json())).toMatchObject({ attempt_number: 1, correct: 4, total: 5, score_percent: 80, passed: false });
    const passed = understandingAttemptResultSchema.parse(await (await attempt(take(p.id, 'attempt-two-2', 5))).json());
    expect(passed).toMatchObject({ attempt_number: 2, correct: 5, passed: true });
    const { results } = await rows(p.id);
    expect(results.map((r) => [r.attempt_number, r.correct_count, r.total_questions, r.passed])).toEqual([
      [1, 4, 5, 0],
      [2, 5, 5, 1],
    ]);
    const answers = JSON.parse(results[0]!.answers) as { question_id: string; correct: boolean }[];
    expect(answers.map((a) => a.correct)).toEqual([true, true, true, true, false]);
  });

  it('stores a re-sent attempt once', async () => {
    const p = await consentedParticipant();
    const body = take(p.id, 'attempt-same-1', 5);
    expect((await attempt(body)).status).toBe(201);
    const again = await attempt(body);
    expect(again.status).toBe(200);
    expect(understandingAttemptResultSchema.parse(await again.json())).toMatchObject({ duplicate: true, attempt_number: 1, passed: true });
    expect((await rows(p.id)).results).toHaveLength(1);
  });

  it.each([
    ['four answers', (b: ReturnType<typeof take>) => ({ ...b, answers: b.answers.slice(0, 4) })],
    ['an unknown question', (b: ReturnType<typeof take>) => ({ ...b, answers: [{ question_id: 'nope', answer: 'x' }, ...b.answers.slice(1)] })],
    ['an option the question does not have', (b: ReturnType<typeof take>) => ({ ...b, answers: [{ ...b.answers[0]!, answer: 'banana' }, ...b.answers.slice(1)] })],
    ['a question twice', (b: ReturnType<typeof take>) => ({ ...b, answers: [b.answers[0]!, b.answers[0]!, ...b.answers.slice(2)] })],
    ['a malformed attempt ID', (b: ReturnType<typeof take>) => ({ ...b, attempt_id: 'x' })],
  ])('refuses %s with 400 and detail, storing nothing', async (_name, spoil) => {
    const p = await consentedParticipant();
    const res = await attempt(spoil(take(p.id, 'attempt-bad-01', 5)));
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    expect((await rows(p.id)).results).toHaveLength(0);
  });

  it('answers an unknown participant with 404', async () => {
    expect((await attempt(take(newParticipantId(), 'attempt-none-1', 5))).status).toBe(404);
  });
});

describe('a lab behind one address', () => {
  it('takes 60 participants sharing one address through the main experiment with no 429 and no AI-only fallback; a guesser there is still throttled', async () => {
    const lab = `203.0.113.7-${crypto.randomUUID()}`;
    const fromLab = (path: string, body: unknown) => postJson(path, body, { 'CF-Connecting-IP': lab });
    // Set-up (entry, pre-experiment, model) happens before; what is measured is the main experiment.
    const people = [];
    for (let i = 0; i < 60; i++) {
      const p = await participantReadyForMain((f, k) => (Number(f.priors_count) > 3 || k % 7 === 0 ? 1 : 0));
      expect((await postJson('/api/user-model/train', { session_id: p.id, dataset_type: 'compas' })).status).toBe(200);
      people.push(p);
    }
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const sets = await Promise.all(
      people.map(async (p) => {
        const res = await api(`/api/experiments/main/start?session_id=${p.id}`, { method: 'POST', headers: { 'CF-Connecting-IP': lab } });
        count(res.status);
        return mainStartResponseSchema.parse(await res.json()).case_set;
      }),
    );
    for (let k = 0; k < 50; k++) {
      await Promise.all(
        people.map(async (p, i) => {
          const item = sets[i]![k]!;
          const res = await fromLab('/api/human-aligned-explanation', {
            session_id: p.id,
            case_id: item.case_id,
            alignment_alpha: item.alignment_alpha,
            initial_prediction: 0,
            initial_confidence: 3,
            initial_response_time_ms: 4000,
          });
          count(res.status);
          if (res.status !== 200) return;
          const e = explanationResponseSchema.parse(await res.json());
          const saved = await fromLab('/api/experiments/main/integrated-response', {
            session_id: p.id,
            case_id: item.case_id,
            initial_prediction: 0,
            initial_confidence: 3,
            initial_response_time_ms: 4000,
            final_prediction: e.prediction,
            final_confidence: 4,
            final_response_time_ms: 3000,
            ai_prediction: e.prediction,
            ai_feature_importance: e.ai_feature_importance,
            user_feature_importance: e.user_feature_importance,
            shown_feature_importance: e.shown_feature_importance,
            explanation_kind: e.explanation_kind,
            comprehensibility: 3,
            transparency: 3,
            satisfaction: 3,
            trust: 3,
            alignment: 3,
            explanation_viewing_time_ms: 5000,
            total_task_time_ms: 20000,
          });
          count(saved.status);
        }),
      );
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 3000, 201: 3060 });
    const ids = people.map((p) => p.id);
    const [kinds] = (
      await env.DB.prepare(
        `select count(*) as n, sum(explanation_kind = 'ai_only') as ai_only from main_experiment_responses where session_id in (${ids.map(() => '?').join(',')})`,
      )
        .bind(...ids)
        .all<{ n: number; ai_only: number }>()
    ).results;
    expect(kinds).toEqual({ n: 3000, ai_only: 0 });

    // Guessing IDs from the same address still meets the lookup limit (120 a minute).
    const guesses = await callUntilLimited(120, () => fromLab('/api/human-aligned-explanation', { session_id: newParticipantId(), case_id: sets[0]![0]!.case_id }));
    expect(guesses.at(-1)).toBe(429);
    expect(guesses.slice(0, -1).every((s) => s === 404)).toBe(true);
    // And the lab's participants are still answered about their own cases, not throttled (a stored
    // case is not shown again: the answer is that the study moved on).
    const again = await fromLab('/api/human-aligned-explanation', { session_id: people[1]!.id, case_id: sets[1]![0]!.case_id });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe('case_already_stored');
  }, 240_000);
});
