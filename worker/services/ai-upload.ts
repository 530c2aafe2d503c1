/**
 * A researcher's own AI model, trained elsewhere (LightGBM's `booster.dump_model()` JSON with its
 * `encoding.json`, or an `xdl-gbdt` file), brought into the study. The Worker checks it against the
 * dataset before anything is stored: the same features, a category vocabulary the dataset knows
 * and that covers every case, and a finite prediction for every experiment case. It is stored as
 * a candidate version with its metrics on the experiment cases beside the active model's (those
 * cases are held out from the set-up's model, but the uploaded one may have been trained on some
 * of them), and serves participants only after an administrator confirms it (`activateAiModel`).
 */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { activeAiModelRow, aiModelVersions, heldOutCases } from '../db/queries/model-verification';
import { aiModels } from '../db/schema';
import { AppError, notFound, type ValidationIssue } from '../errors';
import { importLightgbmDump, isLightgbmDump } from '../ml/lightgbm-import';
import { binaryMetrics } from '../ml/metrics';
import { compileModel, encodeRow, gbdtModelSchema, type CompiledModel, type GbdtModel, type ModelHeader } from '../ml/model';
import { predictProbability } from '../ml/predict';
import { trainingTableSchema } from '../ml/retrain';
import { codebookCategories, datasetFeatures, featureNames } from '../schemas/dataset-features';
import type { DatasetType } from '../schemas/study';
import { r2Keys } from '../storage/r2';
import { aiModelIdentifier, loadActiveAiModel, loadImmutableModel } from './model-store';

const invalid = (code: string, issues: ValidationIssue[]) => new AppError(400, code, issues);
const issuesOf = (error: z.ZodError, root: string): ValidationIssue[] =>
  error.issues.slice(0, 20).map((i) => ({ msg: i.message, loc: [root, ...i.path.map(String)] }));

/** Parses either format into an `xdl-gbdt` model; every failure is a 400 that says where. */
export function parseUploadedModel(model: unknown, encoding: unknown): { model: GbdtModel; sourceFormat: 'lightgbm' | 'xdl-gbdt' } {
  if (isLightgbmDump(model)) {
    try {
      return { model: importLightgbmDump(model, encoding ?? undefined), sourceFormat: 'lightgbm' };
    } catch (err) {
      if (err instanceof z.ZodError) throw invalid('invalid_model', issuesOf(err, 'model'));
      throw invalid('invalid_model', [{ msg: err instanceof Error ? err.message : String(err), loc: ['encoding'] }]);
    }
  }
  const parsed = gbdtModelSchema.safeParse(model);
  if (!parsed.success) {
    throw invalid('invalid_model', [{ msg: 'model is neither a LightGBM dump_model() JSON nor an xdl-gbdt model', loc: ['model'] }, ...issuesOf(parsed.error, 'model')]);
  }
  return { model: parsed.data, sourceFormat: 'xdl-gbdt' };
}

/**
 * The categories the dataset has: from the set-up's training table and the active model's codes,
 * and for a category the dataset records as integer codes (speed dating's race, field_cd,
 * career_c) every code its codebook defines, written as LightGBM's encoding writes it ("3"), seen
 * in the set-up's rows or not.
 */
async function datasetVocabulary(bucket: R2Bucket, active: ModelHeader | null, dataset: DatasetType) {
  const vocabulary = new Map<string, Set<string>>();
  const known = (feature: string) => vocabulary.get(feature) ?? vocabulary.set(feature, new Set()).get(feature)!;
  const add = (codes: Record<string, Record<string, number>>) => {
    for (const [feature, table] of Object.entries(codes)) for (const category of Object.keys(table)) known(feature).add(category);
  };
  if (active) add(active.category_codes);
  const object = await bucket.get(r2Keys.trainingTable(dataset));
  const table = object ? trainingTableSchema.safeParse(await object.json()) : null;
  if (table?.success) add(table.data.category_codes);
  for (const feature of datasetFeatures(dataset)) for (const code of codebookCategories(feature)) known(feature.name).add(code);
  return vocabulary;
}

type HeldOutCase = { features: Record<string, string | number | null>; groundTruth: number };

function checkFeatures(model: GbdtModel, dataset: DatasetType) {
  const expected = featureNames(dataset);
  const missing = expected.filter((f) => !model.feature_names.includes(f));
  const extra = model.feature_names.filter((f) => !expected.includes(f));
  if (missing.length || extra.length) {
    throw invalid('model_features_mismatch', [
      ...(missing.length ? [{ msg: `the model lacks the dataset's features: ${missing.join(', ')}`, loc: ['model', 'feature_names'] }] : []),
      ...(extra.length ? [{ msg: `the model uses features ${dataset} does not have: ${extra.join(', ')}`, loc: ['model', 'feature_names'] }] : []),
    ]);
  }
}

function checkCategories(model: GbdtModel, dataset: DatasetType, vocabulary: Map<string, Set<string>>, cases: HeldOutCase[]) {
  const issues: ValidationIssue[] = [];
  for (const [feature, codes] of Object.entries(model.category_codes)) {
    const known = vocabulary.get(feature);
    const unknown = Object.keys(codes).filter((c) => !known?.has(c));
    if (unknown.length) issues.push({ msg: `unknown categories for ${feature}: ${unknown.slice(0, 10).map((c) => JSON.stringify(c)).join(', ')}`, loc: ['model', 'category_codes', feature] });
  }
  // Every category a participant can be shown must have a code, or the model would see it as missing:
  // a text value always, an integer-coded one where the model gives the feature codes.
  for (const feature of featureNames(dataset)) {
    const codes = model.category_codes[feature];
    const values = cases.map((c) => c.features[feature]);
    const seen = new Set(
      values.flatMap((v) => (typeof v === 'string' && v.trim() !== '' ? [v.trim()] : typeof v === 'number' && codes ? [String(v)] : [])),
    );
    if (seen.size === 0) continue;
    const uncovered = [...seen].filter((v) => codes?.[v] === undefined);
    if (uncovered.length) issues.push({ msg: `no code for ${feature} values of the cases: ${uncovered.slice(0, 10).map((c) => JSON.stringify(c)).join(', ')}`, loc: ['model', 'category_codes', feature] });
  }
  if (issues.length) throw invalid('unknown_categories', issues);
}

function evaluate(model: CompiledModel, cases: HeldOutCase[]) {
  const probabilities = cases.map((c) => predictProbability(model, encodeRow(model.header, c.features)));
  return { probabilities, metrics: binaryMetrics(cases.map((c) => c.groundTruth), probabilities) };
}

const metricsRecord = (m: ReturnType<typeof binaryMetrics>) => ({
  test_accuracy: m.accuracy,
  test_precision: m.precision,
  test_recall: m.recall,
  test_f1_score: m.f1,
  test_logloss: m.logloss,
  test_samples: m.samples,
});

/**
 * A new version's scores on the dataset's experiment cases beside the active model's on the same
 * cases: the comparison an upload and a retrain both show before an administrator activates one.
 */
export async function scoreBesideActive(db: Db, bucket: R2Bucket, dataset: DatasetType, model: CompiledModel) {
  const cases = await heldOutCases(db, dataset);
  if (cases.length === 0) throw new AppError(409, 'no_held_out_cases', `No ${dataset} cases are set up to evaluate the model on; run the set-up (npm start) first`);
  const active = await loadActiveAiModel(db, bucket, dataset);
  const scored = evaluate(model, cases);
  const current = active ? { model_identifier: active.identifier, metrics: metricsRecord(evaluate(active.model, cases).metrics) } : null;
  return { cases, active, probabilities: scored.probabilities, metrics: metricsRecord(scored.metrics), current };
}

/**
 * Every stored version of a dataset's AI model, each scored on the same experiment cases, so
 * versions compare like for like (the accuracy recorded at training was measured on different
 * rows: the set-up's held-out split, or these cases). A version whose file is missing scores null.
 */
export async function versionsOnExperimentCases(db: Db, bucket: R2Bucket, dataset: DatasetType) {
  const [versions, cases] = await Promise.all([aiModelVersions(db, dataset), heldOutCases(db, dataset)]);
  return Promise.all(
    versions.map(async ({ r2Key, ...version }) => {
      const model = cases.length > 0 ? await loadImmutableModel(bucket, r2Key) : null;
      return { ...version, experiment_cases: cases.length, experiment_case_accuracy: model ? evaluate(model, cases).metrics.accuracy : null };
    }),
  );
}

/** Stores a new version's row as a candidate; an identical file stored before keeps its row and status. */
export function insertCandidate(
  db: Db,
  row: {
    dataset: DatasetType;
    identifier: string;
    key: string;
    formatVersion: number;
    fileSizeBytes: number;
    metrics: Record<string, unknown>;
    datasetInfo: Record<string, unknown>;
    params: Record<string, unknown>;
    trainingTimeSeconds: number;
    now: Date;
  },
) {
  return db
    .insert(aiModels)
    .values({
      datasetType: row.dataset,
      modelIdentifier: row.identifier,
      status: 'candidate',
      r2Key: row.key,
      formatVersion: row.formatVersion,
      fileSizeBytes: row.fileSizeBytes,
      metrics: row.metrics,
      datasetInfo: row.datasetInfo,
      params: row.params,
      trainingTimeSeconds: row.trainingTimeSeconds,
      trainedAt: row.now.toISOString(),
    })
    .onConflictDoNothing();
}

export async function uploadAiModel(db: Db, bucket: R2Bucket, input: { dataset: DatasetType; model: unknown; encoding?: unknown; now: Date }) {
  const { model, sourceFormat } = parseUploadedModel(input.model, input.encoding);
  let compiled: CompiledModel;
  try {
    compiled = compileModel(model);
  } catch (err) {
    throw invalid('invalid_model', [{ msg: err instanceof Error ? err.message.slice(0, 300) : String(err), loc: ['model'] }]);
  }
  checkFeatures(model, input.dataset);
  const { cases, active, probabilities, metrics, current } = await scoreBesideActive(db, bucket, input.dataset, compiled);
  checkCategories(model, input.dataset, await datasetVocabulary(bucket, active?.model.header ?? null, input.dataset), cases);
  const bad = probabilities.findIndex((p) => !Number.isFinite(p) || p < 0 || p > 1);
  if (bad >= 0) throw invalid('invalid_predictions', [{ msg: `the model's prediction for experiment case ${bad + 1} is not a probability`, loc: ['model'] }]);

  const json = JSON.stringify(model);
  const identifier = await aiModelIdentifier(input.dataset, json);
  const key = r2Keys.aiModel(input.dataset, identifier);
  await bucket.put(key, json, { httpMetadata: { contentType: 'application/json' } });
  const positives = cases.filter((c) => c.groundTruth === 1).length;
  await insertCandidate(db, {
    dataset: input.dataset,
    identifier,
    key,
    formatVersion: model.version,
    fileSizeBytes: json.length,
    metrics,
    datasetInfo: { total_samples: cases.length, positive_samples: positives, negative_samples: cases.length - positives, feature_count: model.feature_names.length, evaluated_on: "experiment cases (held out from the set-up's model; an uploaded model may have trained on some)" },
    params: { trained_by: 'admin_upload', source_format: sourceFormat, source: model.metadata.source ?? null, num_trees: model.trees.length },
    trainingTimeSeconds: 0,
    now: input.now,
  });
  const row = (await db.select({ status: aiModels.status, datasetType: aiModels.datasetType }).from(aiModels).where(eq(aiModels.modelIdentifier, identifier)).get())!;
  if (row.datasetType !== input.dataset) throw new AppError(409, 'model_exists', `This model is already stored for ${row.datasetType}`);
  return { identifier, status: row.status, sourceFormat, metrics, current, casesEvaluated: cases.length, trees: model.trees.length };
}

/**
 * Makes a stored version (an uploaded candidate, or a retired version to roll back to) the
 * dataset's active model, after its file loads back. Sessions already in their main experiment
 * keep the version they started with.
 */
export async function activateAiModel(db: Db, bucket: R2Bucket, input: { dataset: DatasetType; identifier: string }) {
  const row = await db
    .select()
    .from(aiModels)
    .where(and(eq(aiModels.modelIdentifier, input.identifier), eq(aiModels.datasetType, input.dataset)))
    .get();
  if (!row) throw notFound(`No ${input.dataset} model ${input.identifier} is stored`);
  const previous = await activeAiModelRow(db, input.dataset);
  if (row.status === 'active') return { identifier: row.modelIdentifier, previous: row.modelIdentifier, changed: false };
  const loaded = await loadImmutableModel(bucket, row.r2Key).catch(() => null);
  if (!loaded) throw new AppError(409, 'model_file_missing', `The file of ${input.identifier} is missing or unreadable; the current model stays active`);
  await db
    .update(aiModels)
    .set({
      status: sql`case when ${aiModels.modelIdentifier} = ${row.modelIdentifier} then 'active' when ${aiModels.status} = 'active' then 'retired' else ${aiModels.status} end`,
    })
    .where(eq(aiModels.datasetType, input.dataset));
  return { identifier: row.modelIdentifier, previous: previous?.modelIdentifier ?? null, changed: true };
}
