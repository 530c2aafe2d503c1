/**
 * The study's design checked against the case pools set-up generated, before anything is served:
 * a condition that sets the AI's accuracy (`aiAccuracy`) needs, in every dataset new sessions may
 * get, enough main-pool cases the set-up AI gets right and wrong (`worker/ml/correctness.ts`, the
 * rule the Worker draws by). `npm start` stops with the numbers when a dataset cannot give them.
 */
import { cellsToDraw, countCells, rightCasesOf, shortfallOf } from '../../worker/ml/correctness';
import { compileModel, encodeRow } from '../../worker/ml/model';
import { predictedLabel, predictProbability } from '../../worker/ml/predict';
import type { Condition } from '../../worker/schemas/study';
import { readAssets } from './prepare';

/** What each dataset lacks for each condition's AI accuracy, one line each (empty when every one fits). */
export function designShortfalls(conditions: readonly Condition[], numCases: number, datasets: readonly string[], assetsOf = readAssets): string[] {
  const withAccuracy = conditions.filter((c): c is Condition & { aiAccuracy: number } => c.shows !== 'none' && c.aiAccuracy !== undefined);
  if (withAccuracy.length === 0) return [];
  return datasets.flatMap((dataset) => {
    const { cases, model: json } = assetsOf(dataset);
    const model = compileModel(json);
    const available = countCells(
      cases
        .filter((c) => c.pool === 'main_experiment')
        .map((c) => ({ truth: c.ground_truth, aiPrediction: predictedLabel(predictProbability(model, encodeRow(model.header, c.features))) })),
    );
    return withAccuracy.flatMap((condition) => {
      const right = rightCasesOf(condition.aiAccuracy, numCases)!;
      return cellsToDraw(available, numCases, right)
        ? []
        : [`${dataset}: condition ${condition.name} (aiAccuracy ${condition.aiAccuracy}): ${shortfallOf(available, numCases, right)}. Choose another aiAccuracy, or more main pools (pools.mainPools) for ${dataset}.`];
    });
  });
}
