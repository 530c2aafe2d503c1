/**
 * A serve's bars in one text (worker/db/feature-bars.ts): every serve comes back as it was served,
 * packed when its lists are the Worker's own and listed otherwise.
 */
import { describe, expect, it } from 'vitest';
import { packDoubles, serveBarsFromText, serveBarsToText, unpackDoubles, type ServeBarsValue } from '../../worker/db/feature-bars';
import { mixContributions, normaliseContributions } from '../../worker/ml/explanation';

const features = ['age', 'education', 'hours_per_week', 'occupation'];
const ai = normaliseContributions(features, [0.31, -1.2, 1e-17, 0.1 + 0.2]);
const user = normaliseContributions(features, [-0.4, 0.25, 0.9, -1 / 3]);

const stored = (value: ServeBarsValue) => {
  const text = serveBarsToText(value);
  return { text, form: JSON.parse(text) as Record<string, unknown>, back: serveBarsFromText(text) };
};

describe('a serve’s stored bars', () => {
  it('packs the Worker’s own bars, the mix by its alpha and the AI’s own by name, and gives back every number', () => {
    const mixed = stored({ ai, user, shown: mixContributions(ai, user, 0.7), alpha: 0.7 });
    expect(mixed.form).toMatchObject({ f: features, s: 'mix', m: 0.7 });
    expect(mixed.back).toEqual({ ai, user, shown: mixContributions(ai, user, 0.7) });

    const aiOnly = stored({ ai, user: [], shown: ai, alpha: null });
    expect(aiOnly.form).toMatchObject({ f: features, u: '', s: 'ai' });
    expect(aiOnly.back).toEqual({ ai, user: [], shown: ai });

    // Bars on screen that are neither (another alpha than the one given) are kept as their list.
    const other = stored({ ai, user, shown: mixContributions(ai, user, 0.3), alpha: 0.7 });
    expect(Array.isArray(other.form.s)).toBe(true);
    expect(other.back.shown).toEqual(mixContributions(ai, user, 0.3));
  });

  it('lists, each in its own form, what unpacking could not give back exactly', () => {
    const reordered = normaliseContributions([...features].reverse(), [1, 2, 3, 4]);
    const tampered = ai.map((b, i) => (i === 0 ? { ...b, importance: b.importance + 1e-12, abs_importance: Math.abs(b.importance + 1e-12) } : b));
    const fromPage = [{ feature: 'age', importance: 0.5, raw_shap: 0.2 }];
    for (const value of [
      { ai, user: reordered, shown: ai, alpha: null },
      { ai: tampered, user, shown: tampered, alpha: null },
      { ai, user, shown: fromPage, alpha: 0.5 },
      { ai: [], user: [], shown: [], alpha: null },
    ]) {
      const { form, back } = stored(value);
      expect(form).not.toHaveProperty('f');
      expect(back).toEqual({ ai: value.ai, user: value.user, shown: value.shown });
    }
  });

  it('packs doubles exactly, leaving out the zeros a participant model gives the features it never split on', () => {
    const bits = (values: number[]) => values.map((v) => new BigUint64Array(new Float64Array([v]).buffer)[0]!.toString(16));
    const lists = [
      [0.31, -1.2, 1e-17, 0.1 + 0.2],
      [0, 0.25, 0, 0, -1 / 3, 0],
      [-0, 0, Number.MIN_VALUE, -Number.MAX_VALUE],
      [0, 0, 0],
      Array.from({ length: 70 }, (_, i) => (i % 3 === 0 ? 0 : i / 7)),
      [],
    ];
    for (const values of lists) expect(bits(unpackDoubles(packDoubles(values))), String(values)).toEqual(bits(values));
    expect(packDoubles(lists[0]!)).not.toContain(':');
    // Four of six zeros: 6 as count, 0b101101 as the zeros' positions, two doubles in base64.
    expect(packDoubles(lists[1]!)).toBe(`6:2d:${packDoubles([0.25, -1 / 3])}`);
    expect(packDoubles(lists[1]!).length).toBeLessThan(packDoubles(lists[1]!.map((v) => v + 1)).length / 2);
    // -0 is not +0: it keeps its bytes.
    expect(packDoubles(lists[2]!).startsWith('4:2:')).toBe(true);
  });

  it('gives back a participant model with zeros, through the packed serve', () => {
    const sparse = normaliseContributions(features, [0, 0.25, 0, -0.5]);
    const value = { ai, user: sparse, shown: mixContributions(ai, sparse, 0.5), alpha: 0.5 };
    const { form, back } = stored(value);
    expect(form.u).toMatch(/^4:5:/);
    expect(back).toEqual({ ai, user: sparse, shown: value.shown });
  });
});
