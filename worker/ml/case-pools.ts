/**
 * Experiment case pools, drawn only from a dataset's held-out split so the AI never explains a
 * case it was trained on: 2 tutorial cases, a fixed pre-experiment pool of 200 and main-experiment
 * pools of 50, each balanced 50:50 between the labels and disjoint from one another.
 */
import { DataSourceError, type CellValue, type PreparedDataset } from './dataset-source';
import { Mt19937 } from './split';

export type CasePool = 'tutorial' | 'pre_experiment' | 'main_experiment';

export type GeneratedCase = {
  case_id: string;
  dataset_type: string;
  pool: CasePool;
  /** Main pools are lettered a, b, c, …; null elsewhere. */
  pool_variant: string | null;
  case_number: number;
  features: Record<string, CellValue>;
  ground_truth: 0 | 1;
  /** Index of the source example in the prepared dataset (for tracing; no personal data). */
  source_row: number;
};

export type PoolSizes = { tutorial: number; pre: number; main: number; mainPools: number };

export const DEFAULT_POOL_SIZES: PoolSizes = { tutorial: 2, pre: 200, main: 50, mainPools: 4 };

const pad3 = (n: number) => String(n).padStart(3, '0');

/** Picks `size` cases, half of each label, interleaved in a seeded random order. */
function takeBalanced(byLabel: [number[], number[]], size: number, rng: Mt19937): number[] {
  const half = size / 2;
  if (!Number.isInteger(half)) throw new Error(`pool size ${size} cannot be split 50:50`);
  const picked: number[] = [];
  for (const label of [0, 1] as const) {
    if (byLabel[label].length < half) throw new Error(`not enough held-out cases with label ${label} for a pool of ${size}`);
    picked.push(...byLabel[label].splice(0, half));
  }
  return rng.permutation(picked.length).map((k) => picked[k]!);
}

export function buildCasePools(
  data: PreparedDataset,
  heldOut: readonly number[],
  seed: number,
  sizes: PoolSizes = DEFAULT_POOL_SIZES,
): GeneratedCase[] {
  const perLabel = (sizes.tutorial + sizes.pre + sizes.main * sizes.mainPools) / 2;
  const outcome = data.definition.outcome;
  const short = ([1, 0] as const).flatMap((label) => {
    const available = heldOut.filter((i) => data.examples[i]!.label === label).length;
    const name = `${label === 1 ? 'positive' : 'negative'} outcome "${(label === 1 ? outcome.positive : outcome.negative)[0]}"`;
    return available < perLabel ? [`the ${name} has ${available} held-out rows of the ${perLabel} needed`] : [];
  });
  if (short.length > 0) {
    throw new DataSourceError(
      `${data.dataset}: the pools need ${perLabel} held-out rows of each outcome (tutorial ${sizes.tutorial}, pre ${sizes.pre}, ${sizes.mainPools} main pools of ${sizes.main}, half of each outcome), ` +
        `but ${short.join(' and ')}. Use more rows, fewer main pools (pools.mainPools) or a larger test share (split.testSize); the dashboard's check proposes settings that fit.`,
    );
  }
  const rng = new Mt19937(seed);
  const order = rng.permutation(heldOut.length).map((k) => heldOut[k]!);
  const byLabel: [number[], number[]] = [[], []];
  for (const i of order) byLabel[data.examples[i]!.label].push(i);

  const make = (i: number, pool: CasePool, caseId: string, caseNumber: number, variant: string | null): GeneratedCase => ({
    case_id: caseId,
    dataset_type: data.dataset,
    pool,
    pool_variant: variant,
    case_number: caseNumber,
    features: data.examples[i]!.features,
    ground_truth: data.examples[i]!.label,
    source_row: i,
  });

  const cases: GeneratedCase[] = [];
  takeBalanced(byLabel, sizes.tutorial, rng).forEach((i, k) =>
    // The spec names the shipped datasets' tutorial cases (part 1 §3); a definition may name its own.
    cases.push(make(i, 'tutorial', data.definition.pools.tutorialIds?.[k] ?? `tutorial_${data.dataset}_${k + 1}`, k + 1, null)),
  );
  takeBalanced(byLabel, sizes.pre, rng).forEach((i, k) =>
    cases.push(make(i, 'pre_experiment', `${data.dataset}_pre_${pad3(k + 1)}`, k + 1, null)),
  );
  for (let p = 0; p < sizes.mainPools; p++) {
    const variant = String.fromCharCode(97 + p);
    takeBalanced(byLabel, sizes.main, rng).forEach((i, k) =>
      cases.push(make(i, 'main_experiment', `${data.dataset}_main_${variant}_${pad3(k + 1)}`, k + 1, variant)),
    );
  }
  return cases;
}
