/**
 * The study's design checked against the case pools set-up generated, before anything is served:
 * a condition that sets the AI's accuracy (`aiAccuracy`) needs, in every dataset new sessions may
 * get, enough main-pool cases the set-up AI gets right and wrong (`worker/ml/correctness.ts`, the
 * rule the Worker draws by). `npm start` stops with the numbers when a dataset cannot give them.
 */
import { accuracyShortfalls, describeShortfall } from '../../worker/ml/correctness';
import { mainPoolCorrectness } from '../../worker/ml/dataset-build';
import { setsAiAccuracy } from '../../worker/schemas/condition-plan';
import type { Condition } from '../../worker/schemas/study';
import { readAssets } from './prepare';

/** What each dataset lacks for each condition's AI accuracy, one line each (empty when every one fits). */
export function designShortfalls(conditions: readonly Condition[], numCases: number, datasets: readonly string[], assetsOf = readAssets): string[] {
  if (!conditions.some(setsAiAccuracy)) return [];
  return datasets.flatMap((dataset) => {
    const { cases, model } = assetsOf(dataset);
    return accuracyShortfalls(conditions, numCases, mainPoolCorrectness(cases, model)).map((shortfall) => describeShortfall(dataset, shortfall));
  });
}
