/**
 * Whether a dataset's held-out split can fill its case pools, and if not, settings that would:
 * which outcome is short and by how much, and for each number of main pools up to the definition's
 * the smallest test share (in hundredths) whose split holds enough of both outcomes and what it
 * leaves to train the AI. The proposal takes the fewest main pools (the most rows left to train on).
 * Pure: the dashboard's check runs it on the uploaded rows; the split is the one the build makes
 * (split.ts), not an estimate.
 */
import type { DatasetDefinition } from '../schemas/dataset-definition';
import type { PreparedDataset } from './dataset-source';
import { heldOutSplit } from './dataset-build';
import { MIN_TRAINING_ROWS } from '../schemas/study-counts';

/** The largest test share proposed: past it the AI is trained on almost nothing. */
const MAX_TEST_SHARE = 0.9;

export type OutcomeShort = { outcome: 'positive' | 'negative'; value: string; held_out: number; needed: number };
export type PoolOption = { main_pools: number; test_size: number; needed_per_outcome: number; held_out: { positive: number; negative: number }; training_rows: number };

export const neededPerOutcome = (pools: DatasetDefinition['pools'], mainPools = pools.mainPools) => (pools.tutorial + pools.pre + pools.main * mainPools) / 2;

/** The build's split (`heldOutSplit`) at `testSize`: its training rows and how many of each outcome it holds out. */
export function heldOutAt(definition: DatasetDefinition, labels: readonly (0 | 1)[], testSize: number) {
  const { train, test } = heldOutSplit({ ...definition, split: { ...definition.split, testSize } }, labels);
  const positive = test.filter((i) => labels[i] === 1).length;
  return { train, held: { positive, negative: test.length - positive } };
}

/** The outcomes the definition's own split holds too few of, each named by its first cell text. */
export function outcomesShort(data: PreparedDataset, held: { positive: number; negative: number }): OutcomeShort[] {
  const { definition } = data;
  const needed = neededPerOutcome(definition.pools);
  return (['positive', 'negative'] as const)
    .filter((o) => held[o] < needed)
    .map((o) => ({ outcome: o, value: definition.outcome[o][0]!, held_out: held[o], needed }));
}

/** For 1 … the definition's main pools, the smallest test share that fills the pools, when one does up to MAX_TEST_SHARE. */
export function poolOptions(data: PreparedDataset): PoolOption[] {
  const { definition } = data;
  const labels = data.examples.map((e) => e.label);
  const smaller = Math.min(labels.filter((y) => y === 1).length, labels.filter((y) => y === 0).length);
  const options: PoolOption[] = [];
  for (let k = 1; k <= definition.pools.mainPools; k++) {
    const needed = neededPerOutcome(definition.pools, k);
    if (needed > smaller) break;
    // No share below what the smaller outcome needs can fill its pools; start a little under it (the split rounds).
    const from = Math.max(Math.round(definition.split.testSize * 100), Math.floor((needed / smaller) * 100) - 2, 1);
    for (let hundredths = from; hundredths <= MAX_TEST_SHARE * 100; hundredths++) {
      const testSize = hundredths / 100;
      const { train, held } = heldOutAt(definition, labels, testSize);
      if (held.positive >= needed && held.negative >= needed) {
        options.push({ main_pools: k, test_size: testSize, needed_per_outcome: needed, held_out: held, training_rows: train.length });
        break;
      }
    }
  }
  return options;
}

/**
 * The option to propose when the definition's settings do not fit: the fewest main pools, at the
 * smallest test share that fills them, if it leaves MIN_TRAINING_ROWS to train on; else null.
 */
export function proposePoolFit(data: PreparedDataset): { options: PoolOption[]; proposal: PoolOption | null } {
  const options = poolOptions(data);
  return { options, proposal: options.find((o) => o.training_rows >= MIN_TRAINING_ROWS) ?? null };
}
