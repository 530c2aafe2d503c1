/** The LightGBM reference's splits, for comparing the ML core with it on identical rows. */
import type { DatasetType } from '../../worker/schemas/study';
import type { PreparedDataset } from '../../worker/ml/dataset-source';
import { stratifiedSplit } from '../../worker/ml/split';
import { loadDataset } from './datasets';

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
