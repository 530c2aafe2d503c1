/** Turns prepared examples into the trainer's column-major input, and the reference splits. */
import { encodeRow } from '../../worker/ml/model';
import type { TrainingData } from '../../worker/ml/train';
import type { DatasetType } from '../../worker/schemas/study';
import { loadDataset, type PreparedDataset } from './datasets';
import { stratifiedSplit } from './split';

export const encodingOf = (d: PreparedDataset) => ({ feature_names: d.featureNames, category_codes: d.categoryCodes });

export function toTrainingData(d: PreparedDataset, indices: readonly number[]): TrainingData {
  const encoding = encodingOf(d);
  const rows = indices.map((i) => encodeRow(encoding, d.examples[i]!.features));
  return {
    featureNames: d.featureNames,
    categorical: d.featureNames.map((f) => d.categoricalFeatures.includes(f)),
    columns: d.featureNames.map((_, f) => Float64Array.from(rows, (x) => x[f]!)),
    labels: Uint8Array.from(indices, (i) => d.examples[i]!.label),
  };
}

/** Encoded rows for prediction, in the order of `indices`. */
export const encodeRows = (d: PreparedDataset, indices: readonly number[]) =>
  indices.map((i) => encodeRow(encodingOf(d), d.examples[i]!.features));

/**
 * The LightGBM reference's own data and split: adult.data / adult.test for adult income; for
 * speed dating (all 8,378 rows, missing values kept) and COMPAS, scikit-learn's stratified
 * 80/20 split with random_state 42, which `stratifiedSplit` reproduces row for row.
 */
export function referenceSplit(dataset: DatasetType): { data: PreparedDataset; train: number[]; test: number[] } {
  const data = loadDataset(dataset, { allRows: true });
  if (dataset === 'adult_income') {
    const train: number[] = [];
    const test: number[] = [];
    data.examples.forEach((e, i) => (e.source.startsWith('adult.data#') ? train : test).push(i));
    return { data, train, test };
  }
  return { data, ...stratifiedSplit(data.examples.map((e) => e.label), 0.2, 42) };
}
