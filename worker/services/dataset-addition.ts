/**
 * An administrator's own dataset, added on the dashboard and built inside the Worker by set-up's
 * rules (worker/ml/dataset-build.ts): the definition and CSV are read as the preview reads them,
 * the split, case pools and AI model (with cross-validation) are built, the model and the encoded
 * training split go to R2, and the cases, the model's row and the dataset's own row go to D1 in
 * one batch, so a failure leaves no half-added dataset. The CSV itself is not kept (only its
 * SHA-256): columns the definition does not read never leave the parser. The dataset then serves
 * participants like a built-in one once an administrator enables it for new sessions.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { addedDatasets, aiModels, cases } from '../db/schema';
import { badRequest, conflict, notFound } from '../errors';
import { setUpMetrics } from '../ml/ai-model';
import { buildDataset, mainPoolCorrectness } from '../ml/dataset-build';
import { compileModel, encodeRow } from '../ml/model';
import { predictProbability } from '../ml/predict';
import { datasetDefinitions } from '../schemas/study';
import { BUILT_IN_DATASET_IDS } from '../schemas/datasets';
import { r2Keys } from '../storage/r2';
import { DataSourceError } from '../ml/dataset-source';
import { designShortfallsOf, readUpload } from './dataset-preview';
import { describeShortfall } from '../ml/correctness';
import { REFRESH_MS, syncAddedDatasets } from './dataset-registry';
import { aiModelIdentifier, loadImmutableModel } from './model-store';

/** D1 binds at most 100 parameters per statement; a case row binds 9. */
const CASES_PER_INSERT = 11;

/** The id is another dataset's: named with where that one comes from (one id, one owner). */
const inUse = (id: string) =>
  conflict(
    'dataset_exists',
    BUILT_IN_DATASET_IDS.includes(id)
      ? `There is already a dataset "${id}", built with set-up from ml-assets/datasets/${id}.json; give the new definition another id`
      : `There is already a dataset "${id}", added on this dashboard; give the new definition another id`,
  );

export async function addDataset(db: Db, bucket: R2Bucket, input: { definition: unknown; csvBase64: string; now: () => Date }) {
  const { definition, file, sha256, shaGiven, dataset } = await readUpload(input);
  const id = definition.id;
  if (datasetDefinitions[id]) throw inUse(id);
  // The check runs without one; what is added names the file it was built from.
  if (!shaGiven) {
    throw badRequest('sha256_missing', `The definition names no SHA-256 for its file. If this is the file you mean, write ${sha256} into source.files[0].sha256.`);
  }
  if (sha256 !== file.sha256) {
    throw badRequest('sha256_mismatch', `The CSV's SHA-256 is ${sha256}, but the definition names ${file.sha256}. If this is the file you mean, write its SHA-256 into source.files[0].sha256.`);
  }

  let built;
  try {
    built = buildDataset(dataset);
  } catch (err) {
    if (err instanceof DataSourceError) throw badRequest('pools_cannot_be_built', err.message);
    throw err;
  }
  const { cases: generated, model, report, trainingTable } = built;
  // A design whose AI accuracy its main pools cannot give would refuse every participant's start.
  const short = designShortfallsOf(() => mainPoolCorrectness(generated, model));
  if (short.length > 0) throw badRequest('design_unfillable', short.map((x) => describeShortfall(id, x)).join('\n'));

  const modelJson = JSON.stringify(model);
  const identifier = await aiModelIdentifier(id, modelJson);
  const modelKey = r2Keys.aiModel(id, identifier);
  const tableKey = r2Keys.trainingTable(id);
  await Promise.all([
    bucket.put(modelKey, modelJson, { httpMetadata: { contentType: 'application/json' } }),
    bucket.put(tableKey, JSON.stringify(trainingTable), { httpMetadata: { contentType: 'application/json' } }),
  ]);
  const removeFiles = () => bucket.delete([modelKey, tableKey]);

  // Kept only when the stored file is the model: loaded back, it predicts the pre-experiment cases exactly.
  const stored = await loadImmutableModel(bucket, modelKey).catch(() => null);
  const trained = compileModel(model);
  const encoding = { feature_names: model.feature_names, category_codes: model.category_codes };
  const agrees =
    stored !== null &&
    generated.every((c) => {
      const x = encodeRow(encoding, c.features);
      return predictProbability(stored, x) === predictProbability(trained, x);
    });
  if (!agrees) {
    await removeFiles();
    throw new Error(`the AI model of ${id} did not load back from R2 as trained`);
  }

  // Read as the rows are written, after the build: the seconds before every isolate knows the
  // dataset (REFRESH_MS) count from when D1 holds it, not from when the request began.
  const now = input.now().toISOString();
  const caseRows = generated.map((c) => ({
    caseId: c.case_id,
    datasetType: id,
    pool: c.pool,
    poolVariant: c.pool_variant,
    caseNumber: c.case_number,
    features: c.features,
    groundTruth: c.ground_truth,
    sourceRow: c.source_row,
    createdAt: now,
  }));
  const inserts = [];
  for (let i = 0; i < caseRows.length; i += CASES_PER_INSERT) inserts.push(db.insert(cases).values(caseRows.slice(i, i + CASES_PER_INSERT)));
  try {
    await db.batch([
      // First, so a dataset added at the same moment by another administrator stops this batch before its cases.
      db.insert(addedDatasets).values({
        datasetType: id,
        definition: definition as unknown as Record<string, unknown>,
        sourceSha256: sha256,
        sourceRows: dataset.examples.length,
        caseCount: generated.length,
        modelIdentifier: identifier,
        enabled: false,
        updatedAt: now,
        createdAt: now,
      }),
      ...inserts,
      db.insert(aiModels).values({
        datasetType: id,
        modelIdentifier: identifier,
        status: 'active',
        r2Key: modelKey,
        formatVersion: model.version,
        fileSizeBytes: modelJson.length,
        metrics: setUpMetrics(report),
        datasetInfo: report.dataset_info,
        params: { ...report.params, trained_by: 'admin_dataset' },
        trainingTimeSeconds: report.training_time_seconds,
        trainedAt: now,
      }),
    ]);
  } catch (err) {
    const taken = await db.select({ id: addedDatasets.datasetType }).from(addedDatasets).where(eq(addedDatasets.datasetType, id)).get();
    // Another administrator's dataset of this id owns these keys now; otherwise nothing refers to the files.
    if (taken) throw inUse(id);
    await removeFiles();
    throw err;
  }
  await syncAddedDatasets(db, { force: true });
  return {
    dataset: id,
    cases: generated.length,
    rows: dataset.examples.length,
    model_identifier: identifier,
    test_accuracy: report.test.accuracy,
    cross_validation_score: report.cross_validation_score,
    /** On the same test rows: the two baselines the AI is measured against. */
    baselines: report.baselines,
  };
}

/**
 * Offers an added dataset to new sessions, or stops offering it; sessions that have it keep it.
 * Offered only once every isolate knows it (REFRESH_MS after it was added), so no participant's
 * request can reach a copy of the Worker that has not read its definition yet.
 */
export async function setDatasetEnabled(db: Db, input: { dataset: string; enabled: boolean; now: Date }) {
  // A set-up file's dataset is the study configuration's to offer, even where D1 holds a dashboard
  // row of the same id: switching that row would answer 200 and change nothing participants get.
  if (BUILT_IN_DATASET_IDS.includes(input.dataset)) {
    throw conflict('built_in_dataset', `${input.dataset} is one of the datasets the platform was built with; enable or disable it in the study configuration (enabledDatasets)`);
  }
  const row = await db.select({ createdAt: addedDatasets.createdAt }).from(addedDatasets).where(eq(addedDatasets.datasetType, input.dataset)).get();
  if (!row) throw notFound(`No added dataset ${input.dataset}`);
  const settled = Date.parse(row.createdAt) + REFRESH_MS;
  if (input.enabled && input.now.getTime() < settled) {
    const seconds = Math.ceil((settled - input.now.getTime()) / 1000);
    throw conflict('dataset_settling', `${input.dataset} was added moments ago; every copy of the Worker knows it ${REFRESH_MS / 1000} s after it was added. Offer it again in ${seconds} s.`);
  }
  await db.update(addedDatasets).set({ enabled: input.enabled, updatedAt: input.now.toISOString() }).where(eq(addedDatasets.datasetType, input.dataset));
  await syncAddedDatasets(db, { force: true });
  return { dataset: input.dataset, enabled: input.enabled };
}
