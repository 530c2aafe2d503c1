/** Turns a prepared dataset's examples into the trainer's column-major input and into encoded rows for prediction. */
import type { PreparedDataset } from './dataset-source';
import { encodeRow } from './model';
import type { TrainingData } from './train';

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
