/**
 * Where a speed-dating income lies among the 3,506 study rows (part 1 §9): piecewise linear
 * between the minimum, quartiles, median and maximum, on a 1–100 percentile scale.
 */
import { studyConfig } from '../../worker/schemas/study-config';

export class InvalidIncomeError extends Error {
  override readonly name = 'InvalidIncomeError';
}

export function incomePercentile(income: number): { percentile: number; top: number } {
  if (!Number.isFinite(income) || income < 0) throw new InvalidIncomeError('invalid income value');
  const s = studyConfig.incomeStatistics;
  const knots: [number, number][] = [
    [s.min, 1],
    [s.q1, 25],
    [s.median, 50],
    [s.q3, 75],
    [s.max, 100],
  ];
  let percentile: number;
  if (income <= s.min) percentile = 1;
  else if (income >= s.max) percentile = 100;
  else {
    const i = knots.findIndex(([value]) => income <= value);
    const [x0, p0] = knots[i - 1]!;
    const [x1, p1] = knots[i]!;
    percentile = p0 + ((income - x0) / (x1 - x0)) * (p1 - p0);
  }
  const rounded = Math.min(100, Math.max(1, Math.round(percentile)));
  return { percentile: rounded, top: Math.max(1, 100 - rounded) };
}
