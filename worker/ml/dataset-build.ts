/**
 * Builds a dataset from its definition and its read source: the stratified split (80/20 with
 * seed 42 unless the definition says otherwise), the case pools drawn from the held-out part, the
 * AI model trained with cross-validation and its report, and the training split encoded for later
 * retraining. Pure: set-up (ml-assets/lib/prepare.ts) writes the result to files, the Worker
 * (an administrator's added dataset) to D1 and R2; both get the same assets from the same input.
 */
import type { DatasetDefinition } from '../schemas/dataset-definition';
import type { PreparedDataset } from './dataset-source';
import { fitAiModel, trainAiModel, type AiModelReport } from './ai-model';
import { buildCasePools, type GeneratedCase } from './case-pools';
import { compileModel, encodeRow, type GbdtModel } from './model';
import { predictedLabel, predictProbability } from './predict';
import type { TrainingTable } from './retrain';
import { stratifiedSplit } from './split';
import { baselineAccuracy, type BaselineAccuracy } from './baselines';
import { encodeRows } from './training-data';

export type BuiltDataset = { cases: GeneratedCase[]; model: GbdtModel; report: AiModelReport & { baselines: BaselineAccuracy }; trainingTable: TrainingTable };

/** The held-out split the case pools come from and the AI model is tested on. */
export const heldOutSplit = (definition: DatasetDefinition, labels: readonly number[]) =>
  stratifiedSplit(labels, definition.split.testSize, definition.split.seed);

/** The AI model's training split, encoded, for retraining inside the Worker. */
function trainingTableOf(data: PreparedDataset, indices: readonly number[]): TrainingTable {
  return {
    format: 'xdl-training-table',
    version: 1,
    dataset: data.dataset,
    feature_names: data.featureNames,
    categorical_features: data.categoricalFeatures,
    category_codes: data.categoryCodes,
    rows: encodeRows(data, indices).map((x) => Array.from(x, (v) => (Number.isNaN(v) ? null : v))),
    labels: indices.map((i) => data.examples[i]!.label as 0 | 1),
  };
}

/** The split and the case pools a dataset is built with. */
function splitAndPools(data: PreparedDataset) {
  const { definition } = data;
  const split = heldOutSplit(definition, data.examples.map((e) => e.label));
  const { pools } = definition;
  return { split, cases: buildCasePools(data, split.test, pools.seed, { tutorial: pools.tutorial, pre: pools.pre, main: pools.main, mainPools: pools.mainPools }) };
}

export function buildDataset(data: PreparedDataset): BuiltDataset {
  const { definition } = data;
  const { split, cases } = splitAndPools(data);
  const trained = trainAiModel(data, split, { folds: definition.model.cvFolds, ...(definition.model.params ? { params: definition.model.params } : {}) });
  // The baselines go in the report beside the model's test figures, not into the model file (its identifier stays the same).
  const report = { ...trained.report, baselines: baselineAccuracy(data, split.train, split.test) };
  return { cases, model: trained.model, report, trainingTable: trainingTableOf(data, split.train) };
}

/** The main pools' cases as the design's AI accuracy counts them: each one's truth and the AI's prediction for it. */
export function mainPoolCorrectness(cases: readonly Pick<GeneratedCase, 'pool' | 'features' | 'ground_truth'>[], model: GbdtModel | unknown): { truth: number; aiPrediction: number }[] {
  const compiled = compileModel(model);
  return cases
    .filter((c) => c.pool === 'main_experiment')
    .map((c) => ({ truth: c.ground_truth, aiPrediction: predictedLabel(predictProbability(compiled, encodeRow(compiled.header, c.features))) }));
}

/**
 * The main pools' correctness in a dataset as `buildDataset` would build it (the same pools, the
 * same model), without the cross-validation and baselines of its report: what a check needs.
 */
export function builtMainPoolCorrectness(data: PreparedDataset): { truth: number; aiPrediction: number }[] {
  const { split, cases } = splitAndPools(data);
  return mainPoolCorrectness(cases, fitAiModel(data, split.train, data.definition.model.params));
}
