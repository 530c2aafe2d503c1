/**
 * The AI's correctness on a participant's main set, set by the design (a condition's `aiAccuracy`,
 * issue #58): of the set's cases, exactly `right` are ones the participant's pinned AI predicts
 * correctly, and the outcomes are as near half each as the pools allow. The set is drawn from four
 * cells of the pool, outcome × whether the AI is right; this module says how many to take of each,
 * or what the pool lacks. Pure, so set-up checks a design against its pools by the same rule the
 * Worker draws by.
 */
import { setsAiAccuracy } from '../schemas/condition-plan';
import type { Condition } from '../schemas/study';

/** A pool's cases by outcome (positive / negative) and whether the AI predicts them correctly. */
export type CorrectnessCells = { positiveRight: number; positiveWrong: number; negativeRight: number; negativeWrong: number };

export const cellOf = (truth: number, aiPrediction: number): keyof CorrectnessCells =>
  truth === 1 ? (aiPrediction === 1 ? 'positiveRight' : 'positiveWrong') : aiPrediction === 0 ? 'negativeRight' : 'negativeWrong';

/** Counts a pool's cases by cell, from each case's truth and the AI's prediction for it. */
export function countCells(cases: readonly { truth: number; aiPrediction: number }[]): CorrectnessCells {
  const cells: CorrectnessCells = { positiveRight: 0, positiveWrong: 0, negativeRight: 0, negativeWrong: 0 };
  for (const c of cases) cells[cellOf(c.truth, c.aiPrediction)]++;
  return cells;
}

/** The cases a share of `size` stands for: a whole number, or null when the share gives none. */
export function rightCasesOf(accuracy: number, size: number): number | null {
  const right = Math.round(accuracy * size);
  return Math.abs(right - accuracy * size) < 1e-9 ? right : null;
}

/**
 * How many cases to take from each cell for a set of `size` with `right` of them right: the
 * outcomes as near half each as the pool allows, then the right and the wrong ones each spread as
 * evenly over the two outcomes as it allows. Null when the pool cannot give `right` right and
 * `size − right` wrong cases at all.
 */
export function cellsToDraw(available: CorrectnessCells, size: number, right: number): CorrectnessCells | null {
  const wrong = size - right;
  let best: { cells: CorrectnessCells; cost: [number, number] } | null = null;
  for (let positiveRight = 0; positiveRight <= right; positiveRight++) {
    const negativeRight = right - positiveRight;
    if (positiveRight > available.positiveRight || negativeRight > available.negativeRight) continue;
    for (let positiveWrong = 0; positiveWrong <= wrong; positiveWrong++) {
      const negativeWrong = wrong - positiveWrong;
      if (positiveWrong > available.positiveWrong || negativeWrong > available.negativeWrong) continue;
      const cost: [number, number] = [Math.abs(2 * (positiveRight + positiveWrong) - size), Math.abs(positiveRight - negativeRight) + Math.abs(positiveWrong - negativeWrong)];
      if (!best || cost[0] < best.cost[0] || (cost[0] === best.cost[0] && cost[1] < best.cost[1])) {
        best = { cells: { positiveRight, positiveWrong, negativeRight, negativeWrong }, cost };
      }
    }
  }
  return best?.cells ?? null;
}

const lacking = (rightThere: number, wrongThere: number, size: number, right: number) =>
  `the AI is right on ${rightThere} and wrong on ${wrongThere} of the ${rightThere + wrongThere} main-pool cases a participant can get, ` +
  `but ${right} right and ${size - right} wrong are needed (${right} of ${size})`;

/** What a pool lacks for `right` right and `size − right` wrong cases, in words with the numbers. */
export const shortfallOf = (available: CorrectnessCells, size: number, right: number): string =>
  lacking(available.positiveRight + available.negativeRight, available.positiveWrong + available.negativeWrong, size, right);

/** A condition's aiAccuracy that a dataset's main pools cannot give: what it needs and what they hold. */
export type AccuracyShortfall = { condition: string; aiAccuracy: number; neededRight: number; neededWrong: number; right: number; wrong: number };

/**
 * Every condition's aiAccuracy that a dataset's main-pool cases cannot give (each case's truth and
 * the AI's prediction for it): empty when each fits, or no condition sets one.
 */
export function accuracyShortfalls(conditions: readonly Condition[], numCases: number, mainCases: readonly { truth: number; aiPrediction: number }[]): AccuracyShortfall[] {
  const withAccuracy = conditions.filter(setsAiAccuracy);
  if (withAccuracy.length === 0) return [];
  const available = countCells(mainCases);
  return withAccuracy.flatMap((condition) => {
    const neededRight = rightCasesOf(condition.aiAccuracy, numCases)!;
    if (cellsToDraw(available, numCases, neededRight)) return [];
    return [
      {
        condition: condition.name,
        aiAccuracy: condition.aiAccuracy,
        neededRight,
        neededWrong: numCases - neededRight,
        right: available.positiveRight + available.negativeRight,
        wrong: available.positiveWrong + available.negativeWrong,
      },
    ];
  });
}

/** A shortfall in words with its numbers, for set-up's output and the Worker's refusals. */
export const describeShortfall = (dataset: string, s: AccuracyShortfall): string =>
  `${dataset}: condition ${s.condition} (aiAccuracy ${s.aiAccuracy}): ${lacking(s.right, s.wrong, s.neededRight + s.neededWrong, s.neededRight)}. ` +
  `Choose another aiAccuracy, or more main pools (pools.mainPools) for ${dataset}.`;
