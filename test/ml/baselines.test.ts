/**
 * The baselines the AI model is measured against (worker/ml/baselines.ts): the majority outcome's
 * share, and a regularised logistic regression fitted to its optimum (the penalised log loss's
 * gradient vanishes there), deterministically, on the shipped datasets' own splits.
 */
import { describe, expect, it } from 'vitest';
import { loadDataset } from '../../ml-assets/lib/datasets';
import { baselineAccuracy, designOf, fitLogistic } from '../../worker/ml/baselines';
import { heldOutSplit } from '../../worker/ml/dataset-build';
import { encodeRows } from '../../worker/ml/training-data';

describe('baselines', () => {
  it.each(['compas', 'speed_dating'])('%s: the majority share of the test rows, and a logistic regression better than it, the same on every run', (id) => {
    const data = loadDataset(id);
    const { train, test } = heldOutSplit(data.definition, data.examples.map((e) => e.label));
    const b = baselineAccuracy(data, train, test);
    const trainPositive = train.filter((i) => data.examples[i]!.label === 1).length * 2 >= train.length;
    const testShare = test.filter((i) => data.examples[i]!.label === (trainPositive ? 1 : 0)).length / test.length;
    expect(b.majority).toBe(testShare);
    expect(b.logistic_regression).toBeGreaterThan(b.majority);
    expect(b.logistic_regression).toBeLessThan(1);
    expect(baselineAccuracy(data, train, test)).toEqual(b);
  });

  it('fits the logistic regression to its optimum: the gradient of the penalised log loss is zero there', () => {
    const data = loadDataset('compas');
    const { train } = heldOutSplit(data.definition, data.examples.map((e) => e.label));
    const rows = encodeRows(data, train);
    const design = designOf(data, rows);
    const z = rows.map(design.row);
    const y = Uint8Array.from(train, (i) => data.examples[i]!.label);
    const w = fitLogistic(z, y, design.width);
    // Categories become indicators, numbers one standardised column each.
    expect(design.width).toBeGreaterThan(data.featureNames.length);
    const gradient = new Float64Array(design.width + 1);
    z.forEach((x, r) => {
      let s = w[design.width]!;
      for (let i = 0; i < design.width; i++) s += w[i]! * x[i]!;
      const residual = 1 / (1 + Math.exp(-s)) - y[r]!;
      for (let i = 0; i < design.width; i++) gradient[i] += residual * x[i]!;
      gradient[design.width] += residual;
    });
    for (let i = 0; i < design.width; i++) gradient[i] += w[i]!;
    expect(Math.max(...Array.from(gradient, Math.abs))).toBeLessThan(1e-6);
  });
});
