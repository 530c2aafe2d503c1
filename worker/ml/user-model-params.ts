/** The per-participant model's hyper-parameters by how many pre-experiment answers it learns from. */
import type { TrainParamsInput } from '../schemas/train-params';

export type DataSizeCategory = 'minimal' | 'small' | 'medium' | 'full';

/** Fewer answers get simpler models, so a handful of judgements is not over-fitted. */
export function userModelParams(answers: number): { category: DataSizeCategory; params: TrainParamsInput } {
  if (answers < 20) return { category: 'minimal', params: { numTrees: 10, numLeaves: 4, maxDepth: 2, learningRate: 0.1, minDataInLeaf: 1 } };
  if (answers < 60) return { category: 'small', params: { numTrees: 20, numLeaves: 4, maxDepth: 2, learningRate: 0.1, minDataInLeaf: 3 } };
  if (answers < 150) return { category: 'medium', params: { numTrees: 30, numLeaves: 8, maxDepth: 3, learningRate: 0.1, minDataInLeaf: 5 } };
  return { category: 'full', params: { numTrees: 50, numLeaves: 8, maxDepth: 3, learningRate: 0.1, minDataInLeaf: 5 } };
}
