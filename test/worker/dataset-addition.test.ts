/**
 * A researcher's own dataset added on the dashboard and built inside the Worker: its cases,
 * AI model and training table stored (never the CSV or its unread columns), served beside the
 * built-in datasets without a redeploy once enabled, to new sessions only; refusals store nothing.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { heldOutSplit } from '../../worker/ml/dataset-build';
import { datasetPreviewSchema, parseDatasetDefinition } from '../../worker/schemas/dataset-definition';
import { conditionSchema } from '../../worker/schemas/study';
import { shippedConditions, useConditions } from '../helpers/study-conditions';
import { BUILT_IN_DATASET_IDS } from '../../worker/schemas/datasets';
import { REFRESH_MS } from '../../worker/services/dataset-registry';
import { readParsedDataset, parseSource } from '../../worker/ml/dataset-source';
import { adminCookie, api, GIVEN_INITIAL, postJson } from '../helpers/api';
import { base64Of, sha256Of, studyRowCount } from '../helpers/dataset-upload';
import { consentedParticipant } from '../helpers/study-factories';
import { LOAN_ID, loanCsv, loanDefinition } from '../helpers/synthetic-dataset';

/** Where the AI built from the 4,000-row loan CSV is right and wrong among its 200 main-pool cases (the build is seeded). */
const SHORT = { right: 174, wrong: 26 };
let cookie: string;
let csv: string;
let definition: ReturnType<typeof loanDefinition>;
beforeAll(async () => {
  cookie = await adminCookie();
  csv = loanCsv(4000);
  definition = loanDefinition(await sha256Of(csv));
});

const add = (body: unknown, headers: Record<string, string> = { Cookie: cookie }) => postJson('/api/admin/datasets', body, headers);
const enable = (dataset: string, enabled: boolean) => postJson(`/api/admin/datasets/${dataset}/enabled`, { enabled }, { Cookie: cookie });
const publicDatasets = async () => (await (await api('/api/datasets')).json()) as { enabled: string[]; added: { id: string; columns: Record<string, unknown>[] }[] };
/** Values of the CSV's two unread columns (names and identifiers), which must be kept nowhere. */
const UNREAD = /Alex Example|Sam Sample|Kim Placeholder|A1000\d\d/;
const objectKeys = async () => (await env.MODELS.list()).objects.map((o) => o.key).sort();

async function refused(res: Response, status: number, code: string): Promise<string> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(JSON.parse(text).code).toBe(code);
  return text;
}

describe("a researcher's own dataset, added on the dashboard", () => {
  it('refuses what cannot be built, storing nothing', async () => {
    const rows = await studyRowCount();
    const keys = await objectKeys();
    expect(await refused(await add({ definition: loanDefinition('0'.repeat(64)), csv_base64: base64Of(csv) }), 400, 'sha256_mismatch')).toContain(await sha256Of(csv));
    const small = loanCsv(1500);
    expect(await refused(await add({ definition: loanDefinition(await sha256Of(small)), csv_base64: base64Of(small) }), 400, 'pools_cannot_be_built')).toContain('held-out');
    expect(await refused(await add({ definition: { ...definition, id: 'compas' }, csv_base64: base64Of(csv) }), 409, 'dataset_exists')).toContain('built with set-up from ml-assets/datasets/compas.json');
    expect(await refused(await add({ definition: { ...definition, colours: { positive: 'green' } }, csv_base64: base64Of(csv) }), 400, 'invalid_definition')).toContain('colours');
    expect((await add({ definition, csv_base64: base64Of(csv) }, {})).status).toBe(401);
    expect(await studyRowCount()).toBe(rows);
    expect(await objectKeys()).toEqual(keys);
    expect((await publicDatasets()).added).toEqual([]);
  });

  it("checks the design's AI accuracy against the main pools it would build: the check names each condition short with its numbers, and adding is refused, storing nothing", async () => {
    const rows = await studyRowCount();
    const keys = await objectKeys();
    const body = { definition, csv_base64: base64Of(csv) };
    const design = (aiAccuracy: number) => conditionSchema.parse({ name: 'set_accuracy', shows: 'ai_prediction', aiTiming: 'after_initial', aiAccuracy, share: 1 });
    try {
      useConditions([design(0.02)]);
      const checked = datasetPreviewSchema.parse(await (await postJson('/api/admin/datasets/preview', body, { Cookie: cookie })).json());
      expect(checked.accuracy_shortfalls).toEqual([{ condition: 'set_accuracy', ai_accuracy: 0.02, needed_right: 1, needed_wrong: 49, right: SHORT.right, wrong: SHORT.wrong }]);
      const text = await refused(await add(body), 400, 'design_unfillable');
      expect(text).toContain(`${LOAN_ID}: condition set_accuracy (aiAccuracy 0.02): the AI is right on ${SHORT.right} and wrong on ${SHORT.wrong} of the 200 main-pool cases a participant can get, but 1 right and 49 wrong are needed`);
      expect(await studyRowCount()).toBe(rows);
      expect(await objectKeys()).toEqual(keys);
      // A share the pools can give: nothing is short.
      useConditions([design(0.7)]);
      expect(datasetPreviewSchema.parse(await (await postJson('/api/admin/datasets/preview', body, { Cookie: cookie })).json()).accuracy_shortfalls).toEqual([]);
    } finally {
      useConditions(shippedConditions);
    }
    // Without such a condition nothing is built for the check.
    expect(datasetPreviewSchema.parse(await (await postJson('/api/admin/datasets/preview', body, { Cookie: cookie })).json()).accuracy_shortfalls).toEqual([]);
  });

  it('builds it inside the Worker by set-up\'s rules: the held-out cases, the AI model with CV, the training table; never the CSV', async () => {
    const res = await add({ definition, csv_base64: base64Of(csv) });
    expect(res.status, await res.clone().text()).toBe(201);
    const added = (await res.json()) as { dataset: string; cases: number; rows: number; model_identifier: string; test_accuracy: number; cross_validation_score: number };
    expect(added).toMatchObject({ dataset: LOAN_ID, cases: 2 + 200 + 4 * 50, rows: 4000 });
    // The task is learnable (about 30% approved): the model beats always saying "declined".
    expect(added.test_accuracy).toBeGreaterThan(0.75);
    expect(added.cross_validation_score).toBeGreaterThan(0.75);

    // Cases: exactly the held-out rows set-up would draw, the pools 50:50 and disjoint.
    const stored = (await env.DB.prepare('select case_id, pool, pool_variant, ground_truth, source_row, features from cases where dataset_type = ? order by id').bind(LOAN_ID).all<{ case_id: string; pool: string; pool_variant: string | null; ground_truth: number; source_row: number; features: string }>()).results;
    expect(stored).toHaveLength(402);
    const parsed = parseDatasetDefinition(definition, 'test');
    const data = readParsedDataset(parsed, [parseSource(parsed, parsed.source.files[0]!, csv)]);
    const heldOut = new Set(heldOutSplit(parsed, data.examples.map((e) => e.label)).test);
    expect(stored.every((c) => heldOut.has(c.source_row))).toBe(true);
    expect(new Set(stored.map((c) => c.source_row)).size).toBe(402);
    for (const pool of ['pre_experiment', 'main_experiment']) {
      const inPool = stored.filter((c) => c.pool === pool);
      expect(inPool.filter((c) => c.ground_truth === 1).length * 2).toBe(inPool.length);
    }
    expect(stored.filter((c) => c.pool === 'main_experiment').map((c) => c.pool_variant)).toEqual(expect.arrayContaining(['a', 'b', 'c', 'd']));
    expect(Object.keys(JSON.parse(stored[0]!.features)).sort()).toEqual(parsed.columns.map((c) => c.name).sort());

    // The model serves participants; the CSV and its unread columns are kept nowhere.
    const model = await env.DB.prepare("select model_identifier, status, r2_key, params from ai_models where dataset_type = ?").bind(LOAN_ID).first<{ model_identifier: string; status: string; r2_key: string; params: string }>();
    expect(model).toMatchObject({ model_identifier: added.model_identifier, status: 'active' });
    expect(JSON.parse(model!.params).trained_by).toBe('admin_dataset');
    const keys = (await objectKeys()).filter((k) => k.includes(LOAN_ID));
    expect(keys).toEqual([model!.r2_key, `training-tables/${LOAN_ID}.json`].sort());
    for (const key of keys) expect(await (await env.MODELS.get(key))!.text()).not.toMatch(UNREAD);
    const everything = JSON.stringify((await env.DB.prepare('select * from cases where dataset_type = ?').bind(LOAN_ID).all()).results) + JSON.stringify(await env.DB.prepare('select * from added_datasets').all());
    expect(everything).not.toMatch(UNREAD);

    // Listed for administrators, not yet offered to participants.
    const list = (await (await api('/api/admin/datasets', { headers: { Cookie: cookie } })).json()) as { datasets: { id: string; enabled: boolean; added: { cases: number } | null }[] };
    expect(list.datasets.map((d) => d.id)).toEqual([...BUILT_IN_DATASET_IDS, LOAN_ID]);
    expect(list.datasets.find((d) => d.id === LOAN_ID)).toMatchObject({ enabled: false, added: { cases: 402 } });
    expect(list.datasets.find((d) => d.id === 'compas')!.added).toBeNull();
    const shown = await publicDatasets();
    expect(shown.enabled).toEqual([...BUILT_IN_DATASET_IDS]);
    expect(shown.added.map((d) => d.id)).toEqual([LOAN_ID]);
    // Only what a participant's screen shows: no codebook meanings or sources.
    expect(JSON.stringify(shown)).not.toMatch(/"meaning"|"source"|sha256/);

    // The same id again is refused; nothing new is stored.
    const rows = await studyRowCount();
    await refused(await add({ definition, csv_base64: base64Of(csv) }), 409, 'dataset_exists');
    expect(await studyRowCount()).toBe(rows);
  });

  it('is offered to new sessions once enabled, starting a new configuration version, and a participant does the study with it', async () => {
    const statistics = async () => ((await (await api('/api/experiments/dataset-assignment/statistics')).json()) as { statistics: { datasets: Record<string, unknown> } }).statistics.datasets;
    expect(Object.keys(await statistics())).not.toContain(LOAN_ID);
    await refused(await enable('compas', false), 409, 'built_in_dataset');
    await refused(await enable('no_such_dataset', true), 404, 'not_found');

    // Offered only once every copy of the Worker has read its definition.
    const { created_at: addedAt } = (await env.DB.prepare('select created_at from added_datasets where dataset_type = ?').bind(LOAN_ID).first<{ created_at: string }>())!;
    if (Date.now() < Date.parse(addedAt) + REFRESH_MS - 1000) expect(await refused(await enable(LOAN_ID, true), 409, 'dataset_settling')).toContain('Offer it again in');
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(addedAt) + REFRESH_MS - Date.now() + 50)));
    expect((await enable(LOAN_ID, true)).status).toBe(200);
    expect((await publicDatasets()).enabled).toEqual([...BUILT_IN_DATASET_IDS, LOAN_ID]);
    expect(Object.keys(await statistics())).toContain(LOAN_ID);
    // Balanced assignment: four newcomers get the four datasets.
    const assigned: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await postJson('/api/experiments/dataset-assignment/balanced', { session_id: `BAL${i}AAAA`.slice(0, 8) });
      assigned.push(((await res.json()) as { dataset_type: string }).dataset_type);
    }
    expect(assigned.sort()).toEqual([...BUILT_IN_DATASET_IDS, LOAN_ID].sort());

    // A participant on the new task: its cases, the user model, the AI's explanation on its features.
    const p = await consentedParticipant(LOAN_ID);
    const session = await env.DB.prepare('select study_config_version from sessions where session_id = ?').bind(p.id).first<{ study_config_version: string }>();
    const config = await env.DB.prepare('select config from study_configurations where version = ?').bind(session!.study_config_version).first<{ config: string }>();
    expect(JSON.parse(config!.config).enabledDatasets).toContain(LOAN_ID);

    const set = (await (await api(`/api/experiments/case-sets/fixed?participant_id=${p.id}&num_cases=200&experiment_type=pre_experiment`)).json()) as { case_set: { case_id: string; dataset_type: string; features: Record<string, unknown> }[] };
    expect(set.case_set).toHaveLength(200);
    expect(set.case_set.every((c) => c.dataset_type === LOAN_ID && c.case_id.startsWith(`${LOAN_ID}_pre_`))).toBe(true);
    expect(Object.keys(set.case_set[0]!.features)).toContain('credit_score');
    const answers = set.case_set.map((c, i) => ({ case_id: c.case_id, prediction: (Number(c.features.credit_score ?? 600) > 620 ? 1 : 0) ^ (i % 7 === 0 ? 1 : 0), confidence: 3, response_time_ms: 2000 }));
    const batch = await postJson('/api/experiments/pre-experiment/responses/batch', { session_id: p.id, responses: answers });
    expect(batch.status, await batch.clone().text()).toBeLessThan(300);
    const trained = await postJson('/api/user-model/train', { session_id: p.id, dataset_type: LOAN_ID });
    expect(((await trained.json()) as { status: string }).status).toBe('trained');
    const started = await postJson('/api/experiments/main/start', { session_id: p.id });
    const main = (await started.json()) as { case_set: { case_id: string }[] };
    expect(main.case_set).toHaveLength(50);
    const explanation = await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: main.case_set[0]!.case_id, ...GIVEN_INITIAL });
    expect(explanation.status, await explanation.clone().text()).toBe(200);
    const e = (await explanation.json()) as { ai_feature_importance: { feature: string }[]; model_identifier: string };
    expect(e.ai_feature_importance.map((f) => f.feature).sort()).toEqual(parseDatasetDefinition(definition, 'test').columns.map((c) => c.name).sort());
    expect(e.model_identifier).toMatch(new RegExp(`^ai_${LOAN_ID}_`));
    // The model-verification page names the model as built: on the dashboard, not by set-up.
    const versions = (await (await api(`/api/model-verification/ai-model/versions?dataset_type=${LOAN_ID}`, { headers: { Cookie: cookie } })).json()) as { versions: { model_identifier: string; origin: string }[] };
    expect(versions.versions.find((v) => v.model_identifier === e.model_identifier)).toMatchObject({ origin: 'admin_dataset' });
    // Beside its test accuracy, the two baselines fitted in the same build on the same rows.
    const status = (await (await api(`/api/model-verification/ai-model/status?dataset_type=${LOAN_ID}`, { headers: { Cookie: cookie } })).json()) as {
      current_performance: { test_accuracy: number; baseline_majority_accuracy: number; baseline_logistic_accuracy: number };
    };
    const { test_accuracy: accuracy, baseline_majority_accuracy: majority, baseline_logistic_accuracy: logistic } = status.current_performance;
    expect(majority).toBeGreaterThan(0.6);
    expect(majority).toBeLessThan(0.8);
    expect(logistic).toBeGreaterThan(majority);
    expect(accuracy).toBeGreaterThan(majority);

    // The export carries its cases with its feature columns and codes; its codebook names it.
    const exported = await (await api(`/api/enhanced-export/case-data?user_name=${p.id}`, { headers: { Cookie: cookie } })).text();
    const [header, ...lines] = exported.trim().split(/\r?\n/);
    for (const name of ['income', 'credit_score', 'housing', 'region', 'education']) expect(header!.split(',')).toContain(name);
    expect(lines.filter((l) => l.includes(`${LOAN_ID}_pre_`))).toHaveLength(200);
    expect(exported).not.toMatch(UNREAD);

    // Disabled again: no new session gets it; the participant who has it keeps it.
    expect((await enable(LOAN_ID, false)).status).toBe(200);
    expect((await publicDatasets()).enabled).toEqual([...BUILT_IN_DATASET_IDS]);
    for (let i = 0; i < 6; i++) {
      const res = await postJson('/api/experiments/dataset-assignment/balanced', { session_id: `OFF${i}AAAA`.slice(0, 8) });
      expect(((await res.json()) as { dataset_type: string }).dataset_type).not.toBe(LOAN_ID);
    }
    const next = await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: main.case_set[1]!.case_id, ...GIVEN_INITIAL });
    expect(next.status).toBe(200);
  });

  it('derives the understanding sample from the data when the definition gives none, and serves the participant pages with it', async () => {
    const own = structuredClone({ ...definition, id: 'loan_derived' }) as Record<string, unknown>;
    delete own.understandingSample;
    const res = await add({ definition: own, csv_base64: base64Of(csv) });
    expect(res.status, await res.clone().text()).toBe(201);
    const stored = await env.DB.prepare('select definition from added_datasets where dataset_type = ?').bind('loan_derived').first<{ definition: string }>();
    const sample = parseDatasetDefinition(JSON.parse(stored!.definition), 'stored').understandingSample!;
    // The columns that go most with approval, the strongest first; d goes least with it.
    expect(sample.features.a.feature).toBe('credit_score');
    expect(Object.values(sample.features).map((f) => f.feature)).not.toContain(undefined);
    const served = (await publicDatasets()).added.find((d) => d.id === 'loan_derived') as unknown as { understandingSample: typeof sample };
    expect(served.understandingSample).toEqual(sample);
  });

  it('keeps a set-up dataset built in even where D1 also holds a dashboard row of its id: listed as built in, and offering it is the study configuration\'s', async () => {
    const at = new Date(Date.now() - 60_000).toISOString();
    await env.DB.prepare(
      "insert into added_datasets (dataset_type, definition, source_sha256, source_rows, case_count, model_identifier, enabled, updated_at, created_at) values ('compas', '{}', 'x', 1, 1, 'ai_compas_x', 1, ?, ?)",
    )
      .bind(at, at)
      .run();
    const listed = (await (await api('/api/admin/datasets', { headers: { Cookie: cookie } })).json()) as { datasets: { id: string; added: unknown }[] };
    expect(listed.datasets.find((d) => d.id === 'compas')!.added).toBeNull();
    expect(await refused(await enable('compas', false), 409, 'built_in_dataset')).toContain('enabledDatasets');
  });
});
