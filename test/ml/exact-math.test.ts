/**
 * The engine-independent exp and log the ML core computes with (worker/ml/exact-math.ts): within
 * one unit in the last place of the engine's own on a wide sweep, exact where the answer is, and
 * right at the edges (overflow, underflow, subnormals, zero, negatives, NaN). That they are the same
 * in workerd as in Node is what test/worker/build-reproducible.test.ts shows with a whole model.
 */
import { describe, expect, it } from 'vitest';
import { exp, log } from '../../worker/ml/exact-math';
import { seededRandom } from '../../worker/ml/random';

const ulp = (x: number) => {
  const a = Math.abs(x);
  return a === 0 ? Number.MIN_VALUE : 2 ** (Math.floor(Math.log2(a)) - 52);
};

describe('exact-math', () => {
  it('agrees with the engine to within one ulp over a wide sweep', () => {
    const random = seededRandom(3);
    for (let i = 0; i < 200_000; i++) {
      const x = (random() - 0.5) * 1400;
      const e = Math.exp(x);
      expect(Math.abs(exp(x) - e)).toBeLessThanOrEqual(Number.isFinite(e) && e > 0 ? ulp(e) : 0);
      const y = 10 ** ((random() - 0.5) * 600);
      expect(Math.abs(log(y) - Math.log(y))).toBeLessThanOrEqual(ulp(Math.log(y)));
    }
  });

  it('is exact where the answer is, and right at the edges', () => {
    expect(exp(0)).toBe(1);
    expect(exp(-0)).toBe(1);
    expect(log(1)).toBe(0);
    expect(log(2)).toBe(Math.LN2);
    expect(log(0.5)).toBe(-Math.LN2);
    expect(exp(710)).toBe(Infinity);
    expect(exp(-746)).toBe(0);
    expect(exp(-745)).toBe(Number.MIN_VALUE);
    expect(exp(Infinity)).toBe(Infinity);
    expect(exp(-Infinity)).toBe(0);
    expect(exp(NaN)).toBeNaN();
    expect(log(0)).toBe(-Infinity);
    expect(log(-1)).toBeNaN();
    expect(log(Infinity)).toBe(Infinity);
    expect(log(NaN)).toBeNaN();
    expect(log(Number.MIN_VALUE)).toBeCloseTo(-744.4400719213812, 12);
    // The sigmoid the trainer and the predictor use, at the log-odds of a few probabilities.
    for (const p of [0.01, 0.25, 0.5, 0.75, 0.99]) expect(1 / (1 + exp(-log(p / (1 - p))))).toBeCloseTo(p, 15);
  });
});
