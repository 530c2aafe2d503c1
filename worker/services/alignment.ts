/**
 * The alignment alpha of each main-experiment case: a within-participant counterbalanced
 * schedule. Every level of the study configuration gets the same number of cases, in an order
 * shuffled by a seed derived from the session, so a participant sees each level equally often,
 * no two participants share an order, and the schedule never changes across resume.
 */
import { studyConfig } from '../schemas/study';
import { seededShuffle, seedOf } from './case-sets';

/** Alphas for `total` cases; null when `total` does not split evenly over the levels. */
export function alphaSchedule(sessionId: string, total: number, levels: readonly number[] = studyConfig.mainExperiment.alphaLevels): number[] | null {
  if (total <= 0 || total % levels.length !== 0) return null;
  const each = total / levels.length;
  const ordered = levels.flatMap((level) => Array.from({ length: each }, () => level));
  // Its own seed, so the alpha order is independent of the case order drawn from the same session.
  return seededShuffle(ordered, seedOf(`${sessionId}/alignment-alpha`));
}
