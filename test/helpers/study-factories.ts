/**
 * Worker-side factories: synthetic COMPAS-like cases and an AI model trained on them, seeded into
 * the test's real D1 and R2, and participants driven through the real API.
 */
import { env } from 'cloudflare:workers';
import { createDb } from '../../worker/db/client';
import { aiModels, cases } from '../../worker/db/schema';
import { encodeRow } from '../../worker/ml/model';
import { trainGbdt } from '../../worker/ml/train';
import { CONSENT_ITEMS, type DatasetType } from '../../worker/schemas/study';
import { r2Keys } from '../../worker/storage/r2';
import { caseSetResponseSchema } from '../../worker/schemas/experiment';
import { explanationResponseSchema, mainStartResponseSchema } from '../../worker/schemas/main-experiment';
import { api, postJson } from './api';
import { seededRandom } from './factories';

export const COMPAS_FEATURES = ['sex', 'age', 'race', 'juv_fel_count', 'juv_misd_count', 'juv_other_count', 'priors_count', 'c_charge_degree'];
const CATEGORY_CODES = {
  sex: { Female: 0, Male: 1 },
  // The real dataset's race vocabulary (the synthetic cases draw four of them), so a model trained on
  // the real data, such as the LightGBM fixture, fits the test's dataset.
  race: { 'African-American': 0, Asian: 1, Caucasian: 2, Hispanic: 3, 'Native American': 4, Other: 5 },
  c_charge_degree: { F: 0, M: 1 },
};

export function syntheticCompasCase(random: () => number) {
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const features = {
    sex: pick(['Male', 'Female']),
    age: 18 + Math.floor(random() * 50),
    race: pick(['African-American', 'Caucasian', 'Hispanic', 'Other']),
    juv_fel_count: random() < 0.9 ? 0 : 1,
    juv_misd_count: random() < 0.9 ? 0 : 1,
    juv_other_count: random() < 0.9 ? 0 : 2,
    priors_count: Math.floor(random() * 10),
    c_charge_degree: pick(['F', 'M']),
  };
  const groundTruth = (features.priors_count > 3 || features.age < 25 ? 1 : 0) as 0 | 1;
  return { features, groundTruth };
}

/** Seeds 2 tutorial and `pre` pre-experiment COMPAS cases (IDs as the set-up names them). */
export async function seedCompasCases(options: { pre?: number; seed?: number } = {}) {
  const db = createDb(env.DB);
  const random = seededRandom(options.seed ?? 99);
  const now = new Date().toISOString();
  const rows = [
    ...['tutorial_compas', 'tutorial_compas_2'].map((caseId, i) => ({ caseId, pool: 'tutorial' as const, caseNumber: i + 1 })),
    ...Array.from({ length: options.pre ?? 200 }, (_, i) => ({
      caseId: `compas_pre_${String(i + 1).padStart(3, '0')}`,
      pool: 'pre_experiment' as const,
      caseNumber: i + 1,
    })),
  ].map((c, i) => {
    const { features, groundTruth } = syntheticCompasCase(random);
    return { ...c, datasetType: 'compas' as const, features, groundTruth, sourceRow: i, createdAt: now };
  });
  for (let i = 0; i < rows.length; i += 10) await db.insert(cases).values(rows.slice(i, i + 10)).onConflictDoNothing();
  return rows;
}

/** Trains a small COMPAS-like AI model, stores it in R2 and registers it as active (another seed, another model). */
export async function seedCompasAiModel(seed = 7) {
  const db = createDb(env.DB);
  const random = seededRandom(seed);
  const encoding = { feature_names: COMPAS_FEATURES, category_codes: CATEGORY_CODES };
  const examples = Array.from({ length: 400 }, () => syntheticCompasCase(random));
  const rows = examples.map((e) => encodeRow(encoding, e.features));
  const model = trainGbdt(
    {
      featureNames: COMPAS_FEATURES,
      categorical: COMPAS_FEATURES.map((f) => f in CATEGORY_CODES),
      columns: COMPAS_FEATURES.map((_, f) => Float64Array.from(rows, (x) => x[f]!)),
      labels: examples.map((e) => e.groundTruth),
    },
    { numTrees: 10, numLeaves: 8, minDataInLeaf: 10 },
    { categoryCodes: CATEGORY_CODES },
  );
  const identifier = `ai_compas_${crypto.randomUUID().slice(0, 8)}`;
  const key = r2Keys.aiModel('compas', identifier);
  await env.MODELS.put(key, JSON.stringify(model));
  await db.update(aiModels).set({ status: 'retired' });
  await db.insert(aiModels).values({
    datasetType: 'compas',
    modelIdentifier: identifier,
    status: 'active',
    r2Key: key,
    formatVersion: 1,
    fileSizeBytes: JSON.stringify(model).length,
    metrics: { test_accuracy: 0.7 },
    datasetInfo: {},
    params: {},
    trainingTimeSeconds: 0,
    trainedAt: new Date().toISOString(),
  });
  return identifier;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** A fresh 8-character participant ID, unique per call. */
export const newParticipantId = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => ALPHABET[b % 36]).join('');

export const allConsentItems = () => Object.fromEntries(CONSENT_ITEMS.map((k) => [k, true]));

/** What most Worker tests start from: COMPAS's pre-experiment cases, its main pools and an active AI model (returned as seeded). */
export async function seedCompasStudy() {
  await seedCompasCases();
  await seedCompasMainCases();
  return seedCompasAiModel();
}

/** A participant with an open, consented COMPAS session. */
export async function consentedParticipant(datasetType: DatasetType = 'compas') {
  const id = newParticipantId();
  const created = await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: datasetType, new_participant: true });
  if (created.status !== 201) throw new Error(`session not created: ${created.status} ${await created.text()}`);
  const { user_id: userId } = (await created.json()) as { user_id: number };
  const consent = await postJson('/api/consent/submit', { session_id: id, user_id: userId, consent_items: allConsentItems() });
  if (consent.status !== 201) throw new Error(`consent not recorded: ${consent.status}`);
  return { id, userId };
}

/**
 * A consented participant whose main experiment is recorded as complete (set directly: the
 * post-survey's tests are about the post-survey, and the main experiment's own tests reach
 * completion through the API).
 */
export async function participantDoneWithMain(datasetType: DatasetType = 'compas') {
  const p = await consentedParticipant(datasetType);
  const now = new Date().toISOString();
  await env.DB.prepare("update sessions set main_completed_at = ?, current_phase = 'post_survey' where session_id = ?").bind(now, p.id).run();
  return p;
}

/** Seeds `variants` main-experiment COMPAS pools of `perPool` cases each, half of each label, as the set-up does. */
export async function seedCompasMainCases(options: { variants?: readonly string[]; perPool?: number; seed?: number } = {}) {
  const db = createDb(env.DB);
  const random = seededRandom(options.seed ?? 123);
  const now = new Date().toISOString();
  const perPool = options.perPool ?? 50;
  const rows = [];
  for (const variant of options.variants ?? ['a', 'b', 'c', 'd']) {
    const wanted = { 0: perPool / 2, 1: perPool / 2 };
    let n = 0;
    while (wanted[0] + wanted[1] > 0) {
      const { features, groundTruth } = syntheticCompasCase(random);
      if (wanted[groundTruth] === 0) continue;
      wanted[groundTruth]--;
      n++;
      rows.push({
        caseId: `compas_main_${variant}_${String(n).padStart(3, '0')}`,
        datasetType: 'compas' as const,
        pool: 'main_experiment' as const,
        poolVariant: variant,
        caseNumber: n,
        features,
        groundTruth,
        sourceRow: 10_000 + rows.length,
        createdAt: now,
      });
    }
  }
  for (let i = 0; i < rows.length; i += 10) await db.insert(cases).values(rows.slice(i, i + 10)).onConflictDoNothing();
  return rows;
}

/** Writes a synthetic COMPAS training table to R2, as the set-up's seed step writes the real one. */
export async function seedCompasTrainingTable(rows = 600, seed = 11) {
  const random = seededRandom(seed);
  const encoding = { feature_names: COMPAS_FEATURES, category_codes: CATEGORY_CODES };
  const examples = Array.from({ length: rows }, () => syntheticCompasCase(random));
  const table = {
    format: 'xdl-training-table',
    version: 1,
    dataset: 'compas',
    feature_names: COMPAS_FEATURES,
    categorical_features: COMPAS_FEATURES.filter((f) => f in CATEGORY_CODES),
    category_codes: CATEGORY_CODES,
    rows: examples.map((e) => Array.from(encodeRow(encoding, e.features), (v) => (Number.isNaN(v) ? null : v))),
    labels: examples.map((e) => e.groundTruth),
  };
  await env.MODELS.put(r2Keys.trainingTable('compas'), JSON.stringify(table));
  return table;
}

/** A rule for the pre-experiment the participant's own model can learn: many prior offences → reoffends. */
export const priorsRule = (f: Record<string, unknown>) => (Number(f.priors_count) > 4 ? 1 : 0);

/** All 200 pre-experiment answers of a participant through the API, each by `rule`. */
export async function answerWholePre(id: string, rule: (features: Record<string, unknown>) => number = priorsRule) {
  const set = caseSetResponseSchema.parse(await (await api(`/api/experiments/case-sets/fixed?participant_id=${id}&num_cases=200&experiment_type=pre_experiment`)).json());
  const res = await postJson('/api/experiments/pre-experiment/responses/batch', {
    session_id: id,
    responses: set.case_set.map((c) => ({ case_id: c.case_id, prediction: rule(c.features), confidence: 3, response_time_ms: 1000 })),
  });
  if (res.status !== 200) throw new Error(`pre-experiment not stored: ${res.status} ${await res.text()}`);
}

/**
 * A consented COMPAS participant in `condition` (set before the start) whose main experiment has
 * started: through the debug bypass (no pre-experiment, no participant model), or, given
 * `preRule`, after the whole pre-experiment answered by it (their own model fitted at the start).
 */
export async function startedIn(condition: string, options: { preRule?: (features: Record<string, unknown>) => number } = {}) {
  const p = await consentedParticipant('compas');
  await env.DB.prepare('update sessions set condition = ? where session_id = ?').bind(condition, p.id).run();
  if (options.preRule) await answerWholePre(p.id, options.preRule);
  const res = await postJson('/api/experiments/main/start', { session_id: p.id, ...(options.preRule ? {} : { debug: true }) });
  if (res.status !== 201) throw new Error(`main experiment not started: ${res.status} ${await res.text()}`);
  return { ...p, set: mainStartResponseSchema.parse(await res.json()).case_set };
}

/** The initial judgement a revealing request carries in the condition-key tests. */
export const REVEAL_INITIAL = { initial_prediction: 1, initial_confidence: 3, initial_response_time_ms: 4000 } as const;

/** A participant started in `condition` (debug start), their first main case's AI revealed after the initial judgement: what the page was served. */
export async function revealedIn(condition: string) {
  const p = await startedIn(condition);
  const caseId = p.set[0]!.case_id;
  const res = await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: caseId, ...REVEAL_INITIAL });
  if (res.status !== 200) throw new Error(`not revealed: ${res.status} ${await res.text()}`);
  return { p, caseId, shown: explanationResponseSchema.parse(await res.json()) };
}

/** Stores that case as a page would, with `fields` beside the judgements (ratings, claims about the serve). */
export const storeRevealed = (r: { p: { id: string }; caseId: string; shown: { served_explanation_id: number | null } }, fields: object) =>
  postJson('/api/experiments/main/integrated-response', {
    session_id: r.p.id,
    case_id: r.caseId,
    ...REVEAL_INITIAL,
    final_prediction: 0,
    final_confidence: 4,
    final_response_time_ms: 2300,
    ...(r.shown.served_explanation_id === null ? {} : { served_explanation_id: r.shown.served_explanation_id }),
    total_task_time_ms: 20000,
    ...fields,
  });
