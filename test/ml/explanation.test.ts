import { describe, expect, it } from 'vitest';
import { mixContributions, normaliseContributions, userExplanationCounts, userModelPredictionFromShares } from '../../worker/ml/explanation';

const features = ['age', 'priors_count', 'sex'];
const expectClose = (got: number[], want: number[]) => {
  expect(got).toHaveLength(want.length);
  got.forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 12));
};
const absSum = (cs: { importance: number }[]) => cs.reduce((s, c) => s + Math.abs(c.importance), 0);

describe('human-aligned explanation math', () => {
  const ai = normaliseContributions(features, [0.3, -0.6, 0.1]);
  const user = normaliseContributions(features, [-0.2, 0.2, 0.0]);

  it('normalises each model to signed shares whose absolute values sum to 1', () => {
    expectClose(ai.map((c) => c.importance), [0.3, -0.6, 0.1]);
    expect(absSum(user)).toBeCloseTo(1, 12);
    expect(user.map((c) => c.importance)).toEqual([-0.5, 0.5, 0]);
    expect(ai[1]).toMatchObject({ feature: 'priors_count', raw_shap: -0.6 });
    expect(ai[1]!.abs_importance).toBeCloseTo(0.6, 12);
    expect(normaliseContributions(features, [0, 0, 0]).map((c) => c.importance)).toEqual([0, 0, 0]);
  });

  it('gives the AI shares at alpha 1 and the user shares at alpha 0', () => {
    expectClose(mixContributions(ai, user, 1).map((c) => c.importance), ai.map((c) => c.importance));
    expectClose(mixContributions(ai, user, 0).map((c) => c.importance), user.map((c) => c.importance));
  });

  it('mixes in between and renormalises to an absolute sum of 1', () => {
    for (const alpha of [0.25, 0.5, 0.75]) {
      const mixed = mixContributions(ai, user, alpha);
      expect(absSum(mixed)).toBeCloseTo(1, 12);
      const raw = features.map((_, i) => alpha * ai[i]!.importance + (1 - alpha) * user[i]!.importance);
      const total = raw.reduce((s, v) => s + Math.abs(v), 0);
      mixed.forEach((c, i) => expect(c.importance).toBeCloseTo(raw[i]! / total, 12));
    }
    expect(() => mixContributions(ai, user, 1.5)).toThrow(RangeError);
  });

  it('counts a user explanation only above 0.0001 and predicts from the sign of its shares', () => {
    expect(userExplanationCounts(normaliseContributions(features, [0.00005, -0.0001, 0]))).toBe(false);
    expect(userExplanationCounts(normaliseContributions(features, [0.00011, 0, 0]))).toBe(true);
    expect(userModelPredictionFromShares(user)).toBe(0);
    expect(userModelPredictionFromShares(normaliseContributions(features, [0.3, -0.1, 0]))).toBe(1);
  });
});
