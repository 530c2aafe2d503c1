import { env } from 'cloudflare:workers';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { activateModelResultSchema, uploadModelResultSchema } from '../../worker/schemas/model-verification';
import { importLightgbmDump } from '../../worker/ml/lightgbm-import';
import { compileModel, encodeRow } from '../../worker/ml/model';
import { predictProbability } from '../../worker/ml/predict';
import { createDb } from '../../worker/db/client';
import { cases } from '../../worker/db/schema';
import { seededRandom } from '../../worker/ml/random';
import { featureNames } from '../../worker/schemas/dataset-features';
import { r2Keys } from '../../worker/storage/r2';
import { adminCookie, api, postJson } from '../helpers/api';
import { consentedParticipant, seedCompasAiModel, seedCompasCases, seedCompasMainCases, seedCompasTrainingTable } from '../helpers/study-factories';

let cookie: string;
let seeded: string;
beforeAll(async () => {
  await seedCompasCases();
  await seedCompasMainCases();
  seeded = await seedCompasAiModel();
  await seedCompasTrainingTable();
  cookie = await adminCookie();
});

const fixture = () => {
  if (!env.COMPAS_AI_FIXTURE) throw new Error('LightGBM fixtures not found: set XDL_FIXTURES_DIR or place shared/ beside the project');
  return structuredClone(env.COMPAS_AI_FIXTURE);
};
const upload = (body: unknown) => postJson('/api/model-verification/ai-model/upload', body, { Cookie: cookie });
const activate = (model_identifier: string) => postJson('/api/model-verification/ai-model/activate', { dataset_type: 'compas', model_identifier }, { Cookie: cookie });
const rows = async (sql: string, ...binds: unknown[]) => (await env.DB.prepare(sql).bind(...binds).all<Record<string, unknown>>()).results;
const modelsSnapshot = async () => JSON.stringify(await rows('select model_identifier, status from ai_models order by id'));
const expectRefusal = async (res: Response, status: number, code: string, before: string) => {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = errorBodySchema.parse(JSON.parse(text));
  expect(body.detail).toBeTruthy();
  expect(JSON.parse(text).code).toBe(code);
  expect(await modelsSnapshot()).toBe(before);
  return JSON.stringify(body.detail);
};

describe("a researcher's own model", () => {
  it('validates a real LightGBM dump, reports its held-out metrics beside the active model, and activates it only on confirmation', async () => {
    const f = fixture();
    const res = await upload({ dataset_type: 'compas', model: f.model, encoding: f.encoding });
    expect(res.status, await res.clone().text()).toBe(201);
    const result = uploadModelResultSchema.parse(await res.json());
    expect(result).toMatchObject({ status: 'candidate', source_format: 'lightgbm', num_trees: 100 });
    expect(result.current_model?.model_identifier).toBe(seeded);

    // The metrics are the model's own on every stored COMPAS case, recomputed here.
    const cases = await rows("select features, ground_truth from cases where dataset_type = 'compas' order by id");
    const model = compileModel(importLightgbmDump(f.model, f.encoding));
    const correct = cases.filter((c) => (predictProbability(model, encodeRow(model.header, JSON.parse(c.features as string))) > 0.5 ? 1 : 0) === c.ground_truth).length;
    expect(result.cases_evaluated).toBe(cases.length);
    expect(result.uploaded_metrics.test_accuracy).toBeCloseTo(correct / cases.length, 12);

    // Uploaded, not yet serving: the status page still reports the seeded model, and a new session pins it.
    expect(await rows("select model_identifier from ai_models where dataset_type = 'compas' and status = 'active'")).toEqual([{ model_identifier: seeded }]);
    const early = await consentedParticipant();
    expect((await api(`/api/experiments/main/start?session_id=${early.id}&debug=true`, { method: 'POST' })).status).toBe(201);

    const activated = activateModelResultSchema.parse(await (await activate(result.model_identifier)).json());
    expect(activated).toMatchObject({ model_identifier: result.model_identifier, previous_model_identifier: seeded, changed: true });
    expect(await rows("select model_identifier, status from ai_models where dataset_type = 'compas' and status = 'active'")).toEqual([
      { model_identifier: result.model_identifier, status: 'active' },
    ]);
    // The session that started before keeps its version; a new one gets the researcher's model.
    const [pinned] = await rows('select ai_model_identifier from sessions where session_id = ?', early.id);
    expect(pinned!.ai_model_identifier).toBe(seeded);
    const later = await consentedParticipant();
    expect((await api(`/api/experiments/main/start?session_id=${later.id}&debug=true`, { method: 'POST' })).status).toBe(201);
    const [fresh] = await rows('select ai_model_identifier from sessions where session_id = ?', later.id);
    expect(fresh!.ai_model_identifier).toBe(result.model_identifier);
    const [audit] = await rows("select action, target_id from audit_log where action = 'ai_model_activate' order by id desc limit 1");
    expect(audit).toEqual({ action: 'ai_model_activate', target_id: result.model_identifier });

    // The all-data zip lists every version with where it came from.
    const zip = await api('/api/enhanced-export/all-data?format=csv', { headers: { Cookie: cookie } });
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const versions = Papa.parse<Record<string, string>>(strFromU8(files['ai-models.csv']!), { header: true, skipEmptyLines: true }).data;
    expect(versions.find((v) => v.model_identifier === result.model_identifier)).toMatchObject({ status: 'active', origin: 'admin_upload', source_format: 'lightgbm' });
    expect(versions.find((v) => v.model_identifier === seeded)).toMatchObject({ status: 'retired' });

    // Rolling back to the seeded version works the same way.
    expect(activateModelResultSchema.parse(await (await activate(seeded)).json()).changed).toBe(true);
  });

  it('accepts an xdl-gbdt file as is', async () => {
    const f = fixture();
    const xdl = importLightgbmDump(f.model, f.encoding);
    xdl.trees = xdl.trees.slice(0, 20);
    const res = await upload({ dataset_type: 'compas', model: xdl });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(uploadModelResultSchema.parse(await res.json())).toMatchObject({ source_format: 'xdl-gbdt', num_trees: 20, status: 'candidate' });
  });

  it('refuses wrong features, unknown categories, categories the cases need but the model lacks, and a corrupt file with a 400 that says why, storing nothing', async () => {
    const before = await modelsSnapshot();
    const objectsBefore = (await env.MODELS.list({ prefix: 'ai-models/' })).objects.length;

    const renamed = fixture();
    (renamed.model.feature_names as string[])[1] = 'age_at_arrest';
    (renamed.encoding.feature_names as string[])[1] = 'age_at_arrest';
    expect(await expectRefusal(await upload({ dataset_type: 'compas', ...renamed }), 400, 'model_features_mismatch', before)).toContain('age_at_arrest');

    const wrongDataset = fixture();
    expect(await expectRefusal(await upload({ dataset_type: 'adult_income', ...wrongDataset }), 400, 'model_features_mismatch', before)).toContain('workclass');

    const unknown = fixture();
    (unknown.encoding.category_codes as Record<string, Record<string, number>>).race!['Martian'] = 6;
    expect(await expectRefusal(await upload({ dataset_type: 'compas', ...unknown }), 400, 'unknown_categories', before)).toContain('Martian');

    const uncovered = fixture();
    delete (uncovered.encoding.category_codes as Record<string, Record<string, number>>).race!['Caucasian'];
    expect(await expectRefusal(await upload({ dataset_type: 'compas', ...uncovered }), 400, 'unknown_categories', before)).toContain('Caucasian');

    const corrupt = fixture();
    (corrupt.model.tree_info as { tree_structure: unknown }[])[3]!.tree_structure = { split_feature: 2, threshold: 'x' };
    await expectRefusal(await upload({ dataset_type: 'compas', ...corrupt }), 400, 'invalid_model', before);
    await expectRefusal(await upload({ dataset_type: 'compas', model: { hello: 'world' } }), 400, 'invalid_model', before);

    // An xdl-gbdt file whose node is its own child: refused instead of looping the Worker.
    const looping = importLightgbmDump(fixture().model, fixture().encoding);
    const tree = looping.trees.find((t) => t.num_leaves >= 3)!;
    tree.left_child[1] = 1;
    expect(await expectRefusal(await upload({ dataset_type: 'compas', model: looping }), 400, 'invalid_model', before)).toContain('one binary tree');

    const raw = await api('/api/model-verification/ai-model/upload', { method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json' }, body: '{"dataset_type":"compas","model":{"tree_info":[' });
    expect(raw.status).toBe(400);
    expect((await env.MODELS.list({ prefix: 'ai-models/' })).objects.length).toBe(objectsBefore);
  });

  it('is for administrators only, and refuses an unknown version on activation', async () => {
    const f = fixture();
    const anonymous = await postJson('/api/model-verification/ai-model/upload', { dataset_type: 'compas', model: f.model, encoding: f.encoding });
    expect(anonymous.status).toBe(401);
    const before = await modelsSnapshot();
    await expectRefusal(await activate('ai_compas_000000000000'), 404, 'not_found', before);
  });
});

describe('a LightGBM model whose categories are integer codes', () => {
  it("accepts the shipped speed-dating fixture with its own encoding.json (race '1' → 1 …) and scores it on the cases", async () => {
    if (!env.SPEED_DATING_AI_FIXTURE) throw new Error('LightGBM fixtures not found: set XDL_FIXTURES_DIR or place shared/ beside the project');
    const f = structuredClone(env.SPEED_DATING_AI_FIXTURE);
    // Speed dating as the set-up stores it: race, field_cd and career_c are the dataset's own code numbers.
    const random = seededRandom(5);
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
    const features = () => ({
      gender: pick([0, 1]),
      age: 20 + Math.floor(random() * 15),
      race: pick([1, 2, 3, 4, 6]),
      field_cd: 1 + Math.floor(random() * 18),
      income: 20000 + Math.floor(random() * 60000),
      career_c: 1 + Math.floor(random() * 17),
      ...Object.fromEntries(['pf_o_att', 'pf_o_sin', 'pf_o_int', 'pf_o_fun', 'pf_o_amb', 'pf_o_sha'].map((k) => [k, Math.floor(random() * 30)])),
      ...Object.fromEntries(['attr_o', 'sinc_o', 'intel_o', 'fun_o', 'amb_o', 'shar_o'].map((k) => [k, 1 + Math.floor(random() * 10)])),
    });
    const db = createDb(env.DB);
    const now = new Date().toISOString();
    const rowsToSeed = Array.from({ length: 40 }, (_, i) => ({
      caseId: `speed_dating_main_a_${String(i + 1).padStart(3, '0')}`,
      datasetType: 'speed_dating' as const,
      pool: 'main_experiment' as const,
      poolVariant: 'a',
      caseNumber: i + 1,
      features: features(),
      groundTruth: (i % 2) as 0 | 1,
      sourceRow: i,
      createdAt: now,
    }));
    for (let i = 0; i < rowsToSeed.length; i += 10) await db.insert(cases).values(rowsToSeed.slice(i, i + 10)).onConflictDoNothing();
    const names = featureNames('speed_dating');
    await env.MODELS.put(
      r2Keys.trainingTable('speed_dating'),
      JSON.stringify({
        format: 'xdl-training-table',
        version: 1,
        dataset: 'speed_dating',
        feature_names: names,
        categorical_features: ['race', 'field_cd', 'career_c'],
        category_codes: {},
        rows: Array.from({ length: 60 }, () => {
          const x = features() as Record<string, number>;
          return names.map((n) => x[n]!);
        }),
        labels: Array.from({ length: 60 }, (_, i) => (i % 2) as 0 | 1),
      }),
    );
    const before = await modelsSnapshot();
    const res = await postJson('/api/model-verification/ai-model/upload', { dataset_type: 'speed_dating', model: f.model, encoding: f.encoding }, { Cookie: cookie });
    expect(res.status, await res.clone().text()).toBe(201);
    const result = uploadModelResultSchema.parse(await res.json());
    expect(result).toMatchObject({ status: 'candidate', source_format: 'lightgbm', cases_evaluated: 40 });
    expect(await modelsSnapshot()).not.toBe(before);

    // A code outside the dataset's codebook (race 1–6) is still refused, naming the feature.
    const odd = structuredClone(env.SPEED_DATING_AI_FIXTURE);
    (odd.encoding as { category_codes: Record<string, Record<string, number>> }).category_codes.race!['99'] = 99;
    const refused = await postJson('/api/model-verification/ai-model/upload', { dataset_type: 'speed_dating', model: odd.model, encoding: odd.encoding }, { Cookie: cookie });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('unknown categories for race: \\"99\\"');
  });
});
