/**
 * A task's understanding-test sample (worker/schemas/understanding-test.ts) derived from its data
 * when the definition gives none: the four features that play roles a–d are picked by how strongly
 * each goes with the outcome in the rows read, so what the sample chart teaches ("this pushes toward
 * the positive answer") agrees with the data; each shows a value typical of the side it pushes to.
 * The shares are the illustrative ones every shipped sample uses. Pure and deterministic: the
 * dashboard's check, its add and set-up derive the same sample from the same definition and CSV.
 */
import type { DatasetColumn } from '../schemas/dataset-definition';
import type { UnderstandingSample } from '../schemas/understanding-test';
import type { PreparedDataset } from './dataset-source';

/** The shares of roles a–d and of the features not shown, for the AI and a participant model (each set's magnitudes add to 1). */
const SHARES = { a: { ai: 0.4, user: 0.34 }, b: { ai: -0.24, user: -0.28 }, c: { ai: 0.14, user: 0.12 }, d: { ai: 0.005, user: 0.003 } } as const;
const OTHER_AI = 1 - (0.4 + 0.24 + 0.14 + 0.005);
const OTHER_USER = 1 - (0.34 + 0.28 + 0.12 + 0.003);

/** Below this share of the rows a category is too rare to stand for its column. */
const RARE_BELOW = 0.05;

type Scored = {
  column: DatasetColumn;
  /** How strongly the column goes with the outcome (0 = not at all). */
  strength: number;
  /** A value typical of the positive outcome, of the negative one, and of every row. */
  positive: string | number;
  negative: string | number;
  typical: string | number;
};

/** The sorted values at ⌊n·q⌋, as the spec's income statistics are taken (part 1 §9); the dashboard's check reports them too. */
export function quartilesOf(values: number[]): { q1: number; median: number; q3: number } {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.floor(sorted.length * q)]!;
  return { q1: at(0.25), median: at(0.5), q3: at(0.75) };
}
const median = (values: number[]) => quartilesOf(values).median;
const rounded = (x: number) => Math.round(x * 1e6) / 1e6;

function scoreNumeric(column: DatasetColumn, pairs: { x: number; y: 0 | 1 }[]): Scored | null {
  const n = pairs.length;
  const pos = pairs.filter((p) => p.y === 1).map((p) => p.x);
  const neg = pairs.filter((p) => p.y === 0).map((p) => p.x);
  if (pos.length === 0 || neg.length === 0) return null;
  let sx = 0;
  let sy = 0;
  for (const p of pairs) {
    sx += p.x;
    sy += p.y;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const p of pairs) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) * (p.x - mx);
    syy += (p.y - my) * (p.y - my);
  }
  const strength = sxx > 0 && syy > 0 ? Math.abs(sxy) / Math.sqrt(sxx * syy) : 0;
  // An ordinal value is shown by its level; a numeric one as the value a row of that side has.
  const shown = (x: number) => (column.kind === 'ordinal' ? column.levels[x]! : x);
  return { column, strength: rounded(strength), positive: shown(median(pos)), negative: shown(median(neg)), typical: shown(median(pairs.map((p) => p.x))) };
}

function scoreCategorical(column: DatasetColumn, pairs: { x: string; y: 0 | 1 }[]): Scored | null {
  const n = pairs.length;
  const base = pairs.filter((p) => p.y === 1).length / n;
  const counts = new Map<string, { n: number; pos: number }>();
  for (const p of pairs) {
    const c = counts.get(p.x) ?? { n: 0, pos: 0 };
    c.n++;
    c.pos += p.y;
    counts.set(p.x, c);
  }
  const levels = [...counts.entries()].filter(([, c]) => c.n >= RARE_BELOW * n).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (levels.length < 2) return null;
  const lift = levels.map(([level, c]) => ({ level, lift: c.pos / c.n - base, n: c.n }));
  const most = lift.reduce((best, l) => (l.lift > best.lift ? l : best));
  const least = lift.reduce((best, l) => (l.lift < best.lift ? l : best));
  const common = lift.reduce((best, l) => (l.n > best.n ? l : best));
  return { column, strength: rounded(Math.max(most.lift, -least.lift)), positive: most.level, negative: least.level, typical: common.level };
}

function scoreColumn(data: PreparedDataset, column: DatasetColumn): Scored | null {
  const present = data.examples.flatMap((e) => {
    const x = e.features[column.name];
    return x === null || x === undefined ? [] : [{ x, y: e.label }];
  });
  if (present.length < 10) return null;
  if (column.kind === 'categorical') return scoreCategorical(column, present.map((p) => ({ x: String(p.x), y: p.y })));
  return scoreNumeric(column, present.map((p) => ({ x: Number(p.x), y: p.y })));
}

export class SampleNotDerivable extends Error {}

/**
 * The sample: a = the column that goes most strongly with the outcome, shown with a value typical of
 * the positive outcome; b = the next, with a value typical of the negative one; c = the third, toward
 * the positive; d = the column that goes least with it, with its most typical value. Needs four
 * columns with values of both outcomes.
 */
export function deriveUnderstandingSample(data: PreparedDataset): UnderstandingSample {
  const scored = data.definition.columns
    .map((c) => scoreColumn(data, c))
    .filter((s): s is Scored => s !== null)
    // Strongest first; ties in definition order (sort is stable).
    .sort((x, y) => y.strength - x.strength);
  if (scored.length < 4) {
    throw new SampleNotDerivable(
      `understandingSample: only ${scored.length} column(s) have enough values of both outcomes to derive the understanding test's sample from; give understandingSample in the definition`,
    );
  }
  const [a, b, c] = scored as [Scored, Scored, Scored];
  const d = scored[scored.length - 1]!;
  const role = (s: Scored, value: string | number, share: { ai: number; user: number }) => ({ feature: s.column.name, value, ai: share.ai, user: share.user });
  return {
    prediction: 1,
    features: { a: role(a, a.positive, SHARES.a), b: role(b, b.negative, SHARES.b), c: role(c, c.positive, SHARES.c), d: role(d, d.typical, SHARES.d) },
    otherAi: rounded(OTHER_AI),
    otherUser: rounded(OTHER_USER),
  };
}
