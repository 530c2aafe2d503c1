/** Binary classification metrics at a 0.5 threshold, as reported for every trained model. */
import { log } from './exact-math';

export type BinaryMetrics = {
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  logloss: number;
  samples: number;
};

export function binaryMetrics(labels: ArrayLike<number>, probabilities: ArrayLike<number>): BinaryMetrics {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let correct = 0;
  let logloss = 0;
  const n = labels.length;
  for (let i = 0; i < n; i++) {
    const y = labels[i]!;
    const p = Math.min(Math.max(probabilities[i]!, 1e-15), 1 - 1e-15);
    const predicted = probabilities[i]! > 0.5 ? 1 : 0;
    if (predicted === y) correct++;
    if (predicted === 1 && y === 1) tp++;
    else if (predicted === 1) fp++;
    else if (y === 1) fn++;
    logloss -= y * log(p) + (1 - y) * log(1 - p);
  }
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  return {
    accuracy: n > 0 ? correct / n : 0,
    precision,
    recall,
    f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0,
    logloss: n > 0 ? logloss / n : 0,
    samples: n,
  };
}
