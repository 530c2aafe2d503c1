/**
 * Where an amount lies among its column's values (a definition's `statistics`; for speed dating's
 * incomes the spec's figures of the 3,506 study rows, part 1 §9): piecewise linear between the
 * minimum, quartiles, median and maximum, on a 1–100 percentile scale.
 */
export type ColumnStatistics = { min: number; q1: number; median: number; q3: number; max: number };

export class InvalidAmountError extends Error {
  override readonly name = 'InvalidAmountError';
}

/** `money`: the value is an amount of money, which is never negative (speed dating's incomes); any other quantity may be. */
export function percentileOf(amount: number, s: ColumnStatistics, money = true): { percentile: number; top: number } {
  if (!Number.isFinite(amount) || (money && amount < 0)) throw new InvalidAmountError('invalid income value');
  const knots: [number, number][] = [
    [s.min, 1],
    [s.q1, 25],
    [s.median, 50],
    [s.q3, 75],
    [s.max, 100],
  ];
  let percentile: number;
  if (amount <= s.min) percentile = 1;
  else if (amount >= s.max) percentile = 100;
  else {
    const i = knots.findIndex(([value]) => amount <= value);
    const [x0, p0] = knots[i - 1]!;
    const [x1, p1] = knots[i]!;
    percentile = p0 + ((amount - x0) / (x1 - x0)) * (p1 - p0);
  }
  const rounded = Math.min(100, Math.max(1, Math.round(percentile)));
  return { percentile: rounded, top: Math.max(1, 100 - rounded) };
}
