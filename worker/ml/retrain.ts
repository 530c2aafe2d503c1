/**
 * Retraining an AI model from a prepared training table: a stratified hold-out split
 * (`testSize`), stratified k-fold cross-validation on the rest, the final model fitted on the rest,
 * and its metrics on the hold-out. Pure: the table comes in, the model and its report go out.
 *
 * The table is the set-up's training split only, so no case a participant judges (they come from
 * the held-out split) is ever trained on.
 */
import { z } from 'zod';
import { binaryMetrics, type BinaryMetrics } from './metrics';
import { compileModel, type GbdtModel } from './model';
import { predictProbability } from './predict';
import { seededRandom } from './random';
import { trainGbdt, type TrainingData } from './train';
import type { TrainParamsInput } from '../schemas/train-params';

/** LightGBM's defaults, as the set-up's and the reference models were trained. */
export const AI_MODEL_PARAMS = {
  numTrees: 100,
  numLeaves: 31,
  learningRate: 0.1,
  minDataInLeaf: 20,
  maxDepth: -1,
} as const satisfies TrainParamsInput;

/** The prepared training split of a dataset, encoded as the AI model encodes rows (NaN as null). */
export const trainingTableSchema = z
  .object({
    format: z.literal('xdl-training-table'),
    version: z.literal(1),
    dataset: z.string(),
    feature_names: z.array(z.string()).min(1),
    categorical_features: z.array(z.string()),
    category_codes: z.record(z.string(), z.record(z.string(), z.number().int())),
    rows: z.array(z.array(z.number().nullable())),
    labels: z.array(z.union([z.literal(0), z.literal(1)])),
  })
  .refine((t) => t.rows.length === t.labels.length, 'rows and labels differ in length')
  .refine((t) => t.rows.every((r) => r.length === t.feature_names.length), 'a row has the wrong number of features');
export type TrainingTable = z.infer<typeof trainingTableSchema>;

const shuffled = (items: readonly number[], random: () => number) => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

/** Indices of each label, shuffled by the seed: the base of both stratified splits. */
function byLabel(labels: readonly number[], seed: number): number[][] {
  const random = seededRandom(seed);
  return [0, 1].map((label) => shuffled(labels.flatMap((y, i) => (y === label ? [i] : [])), random));
}

/** A stratified hold-out: `testSize` of each label to the test side. */
export function stratifiedHoldout(labels: readonly number[], testSize: number, seed: number) {
  const train: number[] = [];
  const test: number[] = [];
  for (const indices of byLabel(labels, seed)) {
    const nTest = Math.round(indices.length * testSize);
    test.push(...indices.slice(0, nTest));
    train.push(...indices.slice(nTest));
  }
  return { train: train.sort((a, b) => a - b), test: test.sort((a, b) => a - b) };
}

/** Stratified folds over `indices`: each label dealt round-robin after a seeded shuffle. */
export function stratifiedFoldsOf(labels: readonly number[], indices: readonly number[], folds: number, seed: number): number[][] {
  const random = seededRandom(seed);
  const out: number[][] = Array.from({ length: folds }, () => []);
  for (const label of [0, 1]) {
    shuffled(indices.filter((i) => labels[i] === label), random).forEach((i, k) => out[k % folds]!.push(i));
  }
  return out;
}

function dataOf(table: TrainingTable, indices: readonly number[]): TrainingData {
  return {
    featureNames: table.feature_names,
    categorical: table.feature_names.map((f) => table.categorical_features.includes(f)),
    columns: table.feature_names.map((_, f) => Float64Array.from(indices, (i) => table.rows[i]![f] ?? Number.NaN)),
    labels: Uint8Array.from(indices, (i) => table.labels[i]!),
  };
}

function evaluate(model: GbdtModel, table: TrainingTable, indices: readonly number[]): BinaryMetrics {
  const compiled = compileModel(model);
  return binaryMetrics(
    indices.map((i) => table.labels[i]!),
    indices.map((i) => predictProbability(compiled, Float64Array.from(table.rows[i]!, (v) => v ?? Number.NaN))),
  );
}

export type RetrainReport = {
  params: TrainParamsInput;
  /** Rows the returned model was fitted on: the whole training table, as the set-up fits its model. */
  training_samples: number;
  validation_samples: number;
  /** Rows held out (test_size of the table) to check a fit on the rest before the final fit. */
  test_samples: number;
  test_size: number;
  cv_folds: number;
  cv_accuracy: number[];
  cross_validation_score: number;
  /** The check: a model fitted on the other rows, scored on the held-out test_size. */
  test: BinaryMetrics;
  /** The returned model on the rows it was fitted on. */
  train: BinaryMetrics;
  training_time_seconds: number;
  dataset_info: { total_samples: number; positive_samples: number; negative_samples: number; balance_ratio: number; feature_count: number };
};

/**
 * Retrains a dataset's AI model from its training table: k-fold cross-validation and a check fit
 * scored on a stratified `testSize` of the rows, then the model itself fitted on every row, as
 * the set-up fits it, so a retrain is comparable with the model it may replace (the caller scores
 * both on the experiment cases, which the table does not hold). `holdout`: the check's rows.
 */
export function retrainAiModel(
  table: TrainingTable,
  options: { folds: number; testSize: number; seed?: number; params?: TrainParamsInput },
): { model: GbdtModel; report: RetrainReport; holdout: number[] } {
  const seed = options.seed ?? 42;
  const params = options.params ?? AI_MODEL_PARAMS;
  const encoding = { categoryCodes: table.category_codes };
  const { train, test } = stratifiedHoldout(table.labels, options.testSize, seed);
  const cvAccuracy = stratifiedFoldsOf(table.labels, train, options.folds, seed + 1).map((validation, k, all) => {
    const fit = all.flatMap((fold, j) => (j === k ? [] : fold));
    return evaluate(trainGbdt(dataOf(table, fit), params, encoding), table, validation).accuracy;
  });
  const check = evaluate(trainGbdt(dataOf(table, train), params, encoding), table, test);
  const everyRow = table.labels.map((_, i) => i);
  const started = performance.now();
  const model = trainGbdt(dataOf(table, everyRow), params, encoding);
  const trainingTimeSeconds = (performance.now() - started) / 1000;
  const positives = table.labels.filter((y) => y === 1).length;
  const report: RetrainReport = {
    params,
    training_samples: everyRow.length,
    validation_samples: Math.round(train.length / options.folds),
    test_samples: test.length,
    test_size: options.testSize,
    cv_folds: options.folds,
    cv_accuracy: cvAccuracy,
    cross_validation_score: cvAccuracy.reduce((a, b) => a + b, 0) / options.folds,
    test: check,
    train: evaluate(model, table, everyRow),
    training_time_seconds: trainingTimeSeconds,
    dataset_info: {
      total_samples: table.labels.length,
      positive_samples: positives,
      negative_samples: table.labels.length - positives,
      balance_ratio: positives / Math.max(1, table.labels.length - positives),
      feature_count: table.feature_names.length,
    },
  };
  model.metadata = { ...model.metadata, dataset: table.dataset, report };
  return { model, report, holdout: test };
}
