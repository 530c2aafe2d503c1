/**
 * The rule a condition's AI accuracy (`aiAccuracy`, issue #58) is drawn by, and set-up's check of a
 * design against the generated pools (`npm start` stops on a shortfall, with the numbers).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { designShortfalls } from '../../ml-assets/lib/design-check';
import { readAssets } from '../../ml-assets/lib/prepare';
import { cellsToDraw, rightCasesOf, type CorrectnessCells } from '../../worker/ml/correctness';
import { conditionSchema } from '../../worker/schemas/study';

const cells = (positiveRight: number, positiveWrong: number, negativeRight: number, negativeWrong: number): CorrectnessCells => ({ positiveRight, positiveWrong, negativeRight, negativeWrong });

describe('cellsToDraw', () => {
  it('takes exactly the right and wrong cases asked for, the outcomes half each where the pool allows, the wrong ones spread over both', () => {
    expect(cellsToDraw(cells(80, 20, 90, 10), 50, 35)).toEqual(cells(17, 8, 18, 7));
    // Few wrong positives: the negatives make up the wrong cases, the positives the right ones.
    expect(cellsToDraw(cells(100, 2, 100, 40), 50, 35)).toEqual(cells(23, 2, 12, 13));
    // All right.
    expect(cellsToDraw(cells(30, 5, 30, 5), 50, 50)).toEqual(cells(25, 0, 25, 0));
  });

  it('gives null exactly when the pool lacks right or wrong cases, and otherwise a draw within the pool', () => {
    fc.assert(
      fc.property(fc.nat(60), fc.nat(60), fc.nat(60), fc.nat(60), fc.integer({ min: 0, max: 50 }), (pr, pw, nr, nw, right) => {
        const available = cells(pr, pw, nr, nw);
        const take = cellsToDraw(available, 50, right);
        if (pr + nr < right || pw + nw < 50 - right) return take === null;
        return (
          take !== null &&
          take.positiveRight + take.negativeRight === right &&
          take.positiveWrong + take.negativeWrong === 50 - right &&
          (Object.keys(take) as (keyof CorrectnessCells)[]).every((k) => take[k] <= available[k])
        );
      }),
    );
  });

  it('counts a share as whole cases only', () => {
    expect(rightCasesOf(0.7, 50)).toBe(35);
    expect(rightCasesOf(0.73, 50)).toBeNull();
    expect(rightCasesOf(1, 50)).toBe(50);
  });
});

describe("set-up's check of the design against the pools", () => {
  const condition = (aiAccuracy?: number) => conditionSchema.parse({ name: 'ai', shows: 'ai_prediction', aiTiming: 'after_initial', ...(aiAccuracy === undefined ? {} : { aiAccuracy }), share: 1 });

  it('passes the shipped datasets at 70 % and reads nothing for a design without the key', () => {
    expect(designShortfalls([condition(0.7)], 50, ['adult_income', 'compas', 'speed_dating'])).toEqual([]);
    expect(
      designShortfalls([condition()], 50, ['compas'], () => {
        throw new Error('read');
      }),
    ).toEqual([]);
  });

  it('names the dataset, the condition and the numbers when the pools are short', () => {
    const fewer = (dataset: string) => {
      const assets = readAssets(dataset);
      return { ...assets, cases: assets.cases.filter((c) => c.pool === 'main_experiment').slice(0, 40) };
    };
    const [line, ...rest] = designShortfalls([condition(0.7)], 50, ['compas'], fewer);
    expect(rest).toEqual([]);
    expect(line).toMatch(
      /^compas: condition ai \(aiAccuracy 0\.7\): the AI is right on \d+ and wrong on \d+ of the 40 main-pool cases a participant can get, but 35 right and 15 wrong are needed \(35 of 50\)\. Choose another aiAccuracy, or more main pools \(pools\.mainPools\) for compas\.$/,
    );
  });
});
