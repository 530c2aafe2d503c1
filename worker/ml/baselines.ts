/**
 * What the AI model is measured against: always answering the training rows' majority outcome,
 * and an L2-regularised logistic regression (as scikit-learn's `LogisticRegression()` defaults:
 * C = 1, the intercept not penalised) on the same rows and features. Numbers are standardised with
 * the training rows' mean and deviation and a missing number takes the mean; a category is one
 * indicator per level holding at least 1 % of the training rows (rarer levels and a missing value
 * set none). Fitted by Newton's method to a fixed tolerance, so a build is deterministic. A set-up or
 * dashboard build reports both beside the AI model, so a researcher sees whether its accuracy is
 * worth studying: an AI no better than these gives participants little to rely on.
 */
import type { PreparedDataset } from './dataset-source';
import { stratifiedFolds } from './split';
import { encodeRows } from './training-data';
import { exp } from './exact-math';

/** Levels rarer than this share of the training rows get no indicator of their own. */
const RARE_LEVEL = 0.01;
/** The inverse of the regularisation strength (scikit-learn's C). */
const C = 1;
const MAX_NEWTON_STEPS = 50;
const TOLERANCE = 1e-10;

type Design = { width: number; row: (x: Float64Array) => Float64Array };

/** The logistic regression's inputs, learned from the training rows only. */
export function designOf(data: PreparedDataset, rows: Float64Array[]): Design {
  const parts: ((x: Float64Array, out: Float64Array) => void)[] = [];
  let width = 0;
  data.featureNames.forEach((name, f) => {
    const values = rows.map((x) => x[f]!).filter((v) => !Number.isNaN(v));
    if (data.categoricalFeatures.includes(name)) {
      const counts = new Map<number, number>();
      for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
      const levels = [...counts.entries()].filter(([, n]) => n >= RARE_LEVEL * rows.length).map(([v]) => v).sort((a, b) => a - b);
      const start = width;
      const index = new Map(levels.map((v, k) => [v, start + k]));
      width += levels.length;
      parts.push((x, out) => {
        const at = index.get(x[f]!);
        if (at !== undefined) out[at] = 1;
      });
      return;
    }
    if (values.length === 0) return;
    let mean = 0;
    for (const v of values) mean += v;
    mean /= values.length;
    let variance = 0;
    for (const v of values) variance += (v - mean) * (v - mean);
    const scale = Math.sqrt(variance / values.length);
    if (!(scale > 0)) return;
    const at = width++;
    parts.push((x, out) => {
      const v = x[f]!;
      out[at] = Number.isNaN(v) ? 0 : (v - mean) / scale;
    });
  });
  return {
    width,
    row: (x) => {
      const out = new Float64Array(width);
      for (const part of parts) part(x, out);
      return out;
    },
  };
}

const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + exp(-z)) : exp(z) / (1 + exp(z)));

/** Solves the symmetric positive-definite system `a·x = b` (Cholesky); `a` is n×n row-major. */
function solve(a: Float64Array, b: Float64Array, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i * n + j]!;
      for (let k = 0; k < j; k++) sum -= l[i * n + k]! * l[j * n + k]!;
      l[i * n + j] = i === j ? Math.sqrt(Math.max(sum, 1e-300)) : sum / l[j * n + j]!;
    }
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = b[i]!;
    for (let k = 0; k < i; k++) sum -= l[i * n + k]! * y[k]!;
    y[i] = sum / l[i * n + i]!;
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let sum = y[i]!;
    for (let k = i + 1; k < n; k++) sum -= l[k * n + i]! * x[k]!;
    x[i] = sum / l[i * n + i]!;
  }
  return x;
}

/**
 * Fits the regression on design rows `z` (labels `y`): minimises the summed log loss plus
 * ‖w‖² / (2C), the intercept (the last coefficient) unpenalised. Returns the coefficients.
 */
export function fitLogistic(z: Float64Array[], y: Uint8Array, width: number): Float64Array {
  const n = width + 1;
  const w = new Float64Array(n);
  const x = new Float64Array(n);
  x[width] = 1;
  for (let step = 0; step < MAX_NEWTON_STEPS; step++) {
    const gradient = new Float64Array(n);
    const hessian = new Float64Array(n * n);
    for (let r = 0; r < z.length; r++) {
      x.set(z[r]!);
      let s = 0;
      for (let i = 0; i < n; i++) s += w[i]! * x[i]!;
      const p = sigmoid(s);
      const residual = p - y[r]!;
      const weight = p * (1 - p);
      for (let i = 0; i < n; i++) {
        const xi = x[i]!;
        if (xi === 0) continue;
        gradient[i] += residual * xi;
        const wxi = weight * xi;
        for (let j = 0; j <= i; j++) hessian[i * n + j] += wxi * x[j]!;
      }
    }
    for (let i = 0; i < width; i++) {
      gradient[i] += w[i]! / C;
      hessian[i * n + i] += 1 / C;
    }
    hessian[width * n + width] += 1e-9;
    for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) hessian[j * n + i] = hessian[i * n + j]!;
    const delta = solve(hessian, gradient, n);
    let largest = 0;
    for (let i = 0; i < n; i++) {
      w[i] -= delta[i]!;
      largest = Math.max(largest, Math.abs(delta[i]!));
    }
    if (largest < TOLERANCE) break;
  }
  return w;
}

/** The share of `test` rows a logistic regression fitted on `train` gets right. */
function logisticAccuracy(data: PreparedDataset, train: readonly number[], test: readonly number[]): number {
  const trainRows = encodeRows(data, train);
  const design = designOf(data, trainRows);
  const w = fitLogistic(
    trainRows.map(design.row),
    Uint8Array.from(train, (i) => data.examples[i]!.label),
    design.width,
  );
  let correct = 0;
  encodeRows(data, test).forEach((x, k) => {
    const z = design.row(x);
    let s = w[design.width]!;
    for (let i = 0; i < design.width; i++) s += w[i]! * z[i]!;
    if ((s >= 0 ? 1 : 0) === data.examples[test[k]!]!.label) correct++;
  });
  return test.length === 0 ? 0 : correct / test.length;
}

/** The share of `test` rows that have the outcome most `train` rows have (ties: the positive one). */
function majorityAccuracy(data: PreparedDataset, train: readonly number[], test: readonly number[]): number {
  const positives = train.filter((i) => data.examples[i]!.label === 1).length;
  const majority = positives * 2 >= train.length ? 1 : 0;
  return test.length === 0 ? 0 : test.filter((i) => data.examples[i]!.label === majority).length / test.length;
}

export type BaselineAccuracy = { majority: number; logistic_regression: number };

/** Both baselines fitted on `train` and scored on `test` (the AI model's own split). */
export const baselineAccuracy = (data: PreparedDataset, train: readonly number[], test: readonly number[]): BaselineAccuracy => ({
  majority: majorityAccuracy(data, train, test),
  logistic_regression: logisticAccuracy(data, train, test),
});

/** Both baselines' mean accuracy over the folds the AI model's cross-validation uses (same seed, same rows). */
export function baselineCrossValidated(data: PreparedDataset, indices: readonly number[], folds: number, seed = 42): BaselineAccuracy {
  const each = stratifiedFolds(data, indices, folds, seed).map((validation, k, all) => baselineAccuracy(data, all.flatMap((fold, j) => (j === k ? [] : fold)), validation));
  const mean = (key: keyof BaselineAccuracy) => each.reduce((sum, b) => sum + b[key], 0) / folds;
  return { majority: mean('majority'), logistic_regression: mean('logistic_regression') };
}
