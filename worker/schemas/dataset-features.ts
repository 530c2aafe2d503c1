/**
 * The feature columns of each dataset's cases, in the order the models and case cards use, with
 * the meaning and units the export codebook gives for each (part 1 §3, part 2 §3), read from the
 * datasets' definitions: set-up reads the same definitions, so a case's stored features and the
 * exported columns cannot drift apart.
 */
import type { DatasetColumn } from './dataset-definition';
import { datasetDefinitions, type DatasetType } from './study';

type Feature = {
  name: string;
  meaning: string;
  type: 'integer' | 'number' | 'category';
  units?: string;
  /** A category stored as the dataset codebook's integer codes: every code the codebook defines. */
  codes?: { min: number; max: number };
};

/** The codebook's view of a definition's column: its type, meaning, units and (for coded categories) codes. */
function featureOf(column: DatasetColumn): Feature {
  if (column.kind === 'numeric') return { name: column.name, type: column.integer ? 'integer' : 'number', meaning: column.meaning, ...(column.unit ? { units: typeof column.unit === 'string' ? column.unit : column.unit.en } : {}) };
  if (column.kind === 'categorical' && column.codes) {
    const { min, max } = column.codes;
    return { name: column.name, type: 'category', meaning: `${column.meaning} (dataset coding ${min}–${max})`, codes: { min, max } };
  }
  return { name: column.name, type: 'category', meaning: column.meaning };
}

/** The codes an integer-coded category may take, as LightGBM's encoding writes them ("1", "2", …). */
export const codebookCategories = (feature: Feature) =>
  feature.codes ? Array.from({ length: feature.codes.max - feature.codes.min + 1 }, (_, i) => String(feature.codes!.min + i)) : [];

/** A dataset's features as the codebook describes them (read when asked: an added dataset may have joined since start-up). */
export const datasetFeatures = (dataset: DatasetType): Feature[] => datasetDefinitions[dataset]!.columns.map(featureOf);

/** A dataset's feature names, in the models' order. */
export const featureNames = (dataset: DatasetType): string[] => datasetDefinitions[dataset]!.columns.map((c) => c.name);
