/**
 * Trains a dataset's AI model on the training split, with stratified k-fold cross-validation on
 * that split and metrics on the held-out split, and records everything the model-verification
 * screen shows (part 2 §3 "AI model status").
 */
import type { PreparedDataset } from './dataset-source';
import type { BaselineAccuracy } from './baselines';
import { binaryMetrics, type BinaryMetrics } from './metrics';
import { compileModel, type GbdtModel } from './model';
import { predictProbability } from './predict';
import { AI_MODEL_PARAMS, type RetrainReport } from './retrain';
import { stratifiedFolds } from './split';
import { trainGbdt } from './train';
import type { TrainParamsInput } from '../schemas/train-params';
import { encodeRows, toTrainingData } from './training-data';

export { AI_MODEL_PARAMS };

/** The set-up's report: the Worker's retrain report without a hold-out share (the set-up's split is fixed), with the dataset. */
export type AiModelReport = Omit<RetrainReport, 'test_size'> & {
  dataset: string;
  /** The baselines' accuracy on the same test rows, fitted on the same training rows (a build's report; absent from older ones). */
  baselines?: BaselineAccuracy;
};

/** The figures the model-verification screen shows of a set-up model (its `ai_models.metrics`). */
export const setUpMetrics = (r: AiModelReport) => ({
  test_accuracy: r.test.accuracy,
  test_precision: r.test.precision,
  test_recall: r.test.recall,
  test_f1_score: r.test.f1,
  test_logloss: r.test.logloss,
  train_accuracy: r.train.accuracy,
  cross_validation_score: r.cross_validation_score,
  cv_accuracy: r.cv_accuracy,
  cv_folds: r.cv_folds,
  training_samples: r.training_samples,
  validation_samples: r.validation_samples,
  test_samples: r.test_samples,
  ...(r.baselines ? { baseline_majority_accuracy: r.baselines.majority, baseline_logistic_accuracy: r.baselines.logistic_regression } : {}),
});

export function evaluateModel(model: GbdtModel, data: PreparedDataset, indices: readonly number[]): BinaryMetrics {
  const compiled = compileModel(model);
  return binaryMetrics(
    indices.map((i) => data.examples[i]!.label),
    encodeRows(data, indices).map((x) => predictProbability(compiled, x)),
  );
}

/** The AI model of `indices` with `params`: the one fit every AI model of a dataset is (cross-validation's folds, the built model). */
export const fitAiModel = (data: PreparedDataset, indices: readonly number[], params: TrainParamsInput = AI_MODEL_PARAMS) =>
  trainGbdt(toTrainingData(data, indices), params, { categoryCodes: data.categoryCodes });

/** Each fold's accuracy of a model trained on the other folds of `indices` (stratified, seeded). */
export function crossValidate(data: PreparedDataset, indices: readonly number[], options: { folds?: number; seed?: number; params?: TrainParamsInput } = {}): number[] {
  const params = options.params ?? AI_MODEL_PARAMS;
  return stratifiedFolds(data, indices, options.folds ?? 5, options.seed ?? 42).map((validation, k, all) => {
    const fit = all.flatMap((fold, j) => (j === k ? [] : fold));
    return evaluateModel(fitAiModel(data, fit, params), data, validation).accuracy;
  });
}

export function trainAiModel(
  data: PreparedDataset,
  split: { train: number[]; test: number[] },
  options: { folds?: number; seed?: number; params?: TrainParamsInput } = {},
): { model: GbdtModel; report: AiModelReport } {
  const folds = options.folds ?? 5;
  const params = options.params ?? AI_MODEL_PARAMS;
  const cvAccuracy = crossValidate(data, split.train, { folds, params, ...(options.seed === undefined ? {} : { seed: options.seed }) });

  const started = performance.now();
  const model = fitAiModel(data, split.train, params);
  const trainingTimeSeconds = (performance.now() - started) / 1000;

  const positives = data.examples.filter((e) => e.label === 1).length;
  const report: AiModelReport = {
    dataset: data.dataset,
    params,
    training_samples: split.train.length,
    validation_samples: Math.round(split.train.length / folds),
    test_samples: split.test.length,
    cv_folds: folds,
    cv_accuracy: cvAccuracy,
    cross_validation_score: cvAccuracy.reduce((a, b) => a + b, 0) / folds,
    test: evaluateModel(model, data, split.test),
    train: evaluateModel(model, data, split.train),
    training_time_seconds: trainingTimeSeconds,
    dataset_info: {
      total_samples: data.examples.length,
      positive_samples: positives,
      negative_samples: data.examples.length - positives,
      balance_ratio: positives / (data.examples.length - positives),
      feature_count: data.featureNames.length,
    },
  };
  model.metadata = { ...model.metadata, dataset: data.dataset, report };
  return { model, report };
}
