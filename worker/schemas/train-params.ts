/**
 * The trainer's parameters (worker/ml/train.ts), with LightGBM's names in camel case and its
 * defaults: a dataset definition's `model.params` is checked against them, and the trainer reads
 * its settings through them.
 */
import { z } from 'zod';

export const trainParamsSchema = z.object({
  numTrees: z.number().int().min(1).max(5000).default(100),
  learningRate: z.number().positive().max(1).default(0.1),
  numLeaves: z.number().int().min(2).max(1024).default(31),
  /** -1: unlimited. */
  maxDepth: z.number().int().min(-1).max(64).default(-1),
  minDataInLeaf: z.number().int().min(1).default(20),
  minSumHessianInLeaf: z.number().nonnegative().default(1e-3),
  lambdaL2: z.number().nonnegative().default(0),
  minGainToSplit: z.number().nonnegative().default(0),
  maxBin: z.number().int().min(2).max(255).default(255),
  minDataInBin: z.number().int().min(1).default(3),
  maxCatToOnehot: z.number().int().min(1).default(4),
  maxCatThreshold: z.number().int().min(1).default(32),
  catSmooth: z.number().nonnegative().default(10),
  catL2: z.number().nonnegative().default(10),
  minDataPerGroup: z.number().int().min(1).default(100),
});
export type TrainParams = z.infer<typeof trainParamsSchema>;
export type TrainParamsInput = z.input<typeof trainParamsSchema>;
