/**
 * `npm run bench:setup [-- --rounds n]`: set-up of a researcher's own task against the shipped
 * adult income, in one run on one machine. Target (#34): a 50,000-row, 20-column dataset within
 * 2× adult income's set-up time (48,842 rows, 14 columns). Writes bench/results/setup.json.
 *
 * The wide task is made here (seeded: 12 numeric and 8 categorical columns, 3% missing values, a
 * 35/65 outcome) with its definition, in a temporary folder. Each round prepares both datasets
 * through the same `prepareDataset` that `npm run ml -- prepare` runs (read and sha256 check,
 * parse, split, case pools, 5-fold cross-validation, final model, files written), the order
 * alternating from round to round; figures are medians over the rounds.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareDataset } from '../ml-assets/lib/prepare';
import { seededRandom } from '../worker/ml/random';
import { parseDatasetDefinition, type DatasetDefinitionInput } from '../worker/schemas/dataset-definition';
import { machineLine, round, writeBenchResult } from './lib/results';

const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const rounds = at >= 0 ? Number(args[at + 1]) : 5;

const ROWS = 50_000;
const NUMERIC = 12;
const CATEGORICAL = 8;

function wideCsv(): string {
  const random = seededRandom(20_000);
  const header = [...Array.from({ length: NUMERIC }, (_, i) => `x${i + 1}`), ...Array.from({ length: CATEGORICAL }, (_, i) => `c${i + 1}`), 'outcome'];
  const lines = [header.join(',')];
  for (let r = 0; r < ROWS; r++) {
    const xs = Array.from({ length: NUMERIC }, () => Math.round(random() * 10_000) / 100);
    const cs = Array.from({ length: CATEGORICAL }, (_, i) => `level_${Math.floor(random() * (3 + i * 2))}`);
    const z = (xs[0]! - 50) / 20 + (xs[1]! - 50) / 30 - (xs[2]! > 70 ? 1 : 0) + (cs[0] === 'level_0' ? 0.8 : 0) + (cs[3] === 'level_2' ? -0.7 : 0) - 0.6;
    const outcome = random() < 1 / (1 + Math.exp(-z)) ? 1 : 0;
    const cell = (v: string | number) => (random() < 0.03 ? '' : String(v));
    lines.push([...xs.map(cell), ...cs.map(cell), outcome].join(','));
  }
  return `${lines.join('\n')}\n`;
}

function wideDefinition(sha256: string): DatasetDefinitionInput {
  const text = (en: string) => ({ en, ja: en });
  return {
    id: 'bench_wide',
    source: { files: [{ path: 'bench_wide/wide.csv', sha256 }] },
    columns: [
      ...Array.from({ length: NUMERIC }, (_, i) => ({ name: `x${i + 1}`, kind: 'numeric' as const, meaning: `Measure ${i + 1}`, label: text(`Measure ${i + 1}`), description: text(`Measure ${i + 1}.`) })),
      ...Array.from({ length: CATEGORICAL }, (_, i) => ({
        name: `c${i + 1}`,
        kind: 'categorical' as const,
        meaning: `Group ${i + 1}`,
        label: text(`Group ${i + 1}`),
        description: text(`Group ${i + 1}.`),
        values: Object.fromEntries(Array.from({ length: 3 + i * 2 }, (_, k) => [`level_${k}`, text(`Level ${k}`)])),
      })),
    ],
    outcome: { column: 'outcome', positive: ['1'], negative: ['0'] },
    texts: { en: { name: 'Wide', summary: 'Synthetic.', task: 'Predict.', positive: 'Yes', negative: 'No', aiPositive: 'Yes', aiNegative: 'No' }, ja: { name: 'Wide', summary: 'Synthetic.', task: 'Predict.', positive: 'Yes', negative: 'No', aiPositive: 'Yes', aiNegative: 'No' } },
    colours: { positive: '#1a7f37', negative: '#5a6270' },
    understandingSample: {
      prediction: 1,
      features: { a: { feature: 'x1', value: 80, ai: 0.4, user: 0.4 }, b: { feature: 'x2', value: 20, ai: -0.3, user: -0.3 }, c: { feature: 'x3', value: 50, ai: 0.1, user: 0.1 }, d: { feature: 'c1', value: 'level_1', ai: 0, user: 0 } },
      otherAi: 0.2,
      otherUser: 0.2,
    },
    pools: { seed: 5 },
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const work = mkdtempSync(path.join(os.tmpdir(), 'xdl-bench-setup-'));
try {
  const dataDir = path.join(work, 'data');
  mkdirSync(path.join(dataDir, 'bench_wide'), { recursive: true });
  const csv = wideCsv();
  writeFileSync(path.join(dataDir, 'bench_wide', 'wide.csv'), csv);
  const wide = parseDatasetDefinition(wideDefinition(createHash('sha256').update(csv).digest('hex')));
  process.env.XDL_GENERATED_DIR = path.join(work, 'generated');

  const sides = {
    adult_income: () => prepareDataset('adult_income'),
    // The wide task's file sits in its own folder: the data folder is pointed there for its turn only.
    wide_50000x20: () => {
      const before = process.env.XDL_DATA_DIR;
      process.env.XDL_DATA_DIR = dataDir;
      try {
        return prepareDataset(wide);
      } finally {
        if (before === undefined) delete process.env.XDL_DATA_DIR;
        else process.env.XDL_DATA_DIR = before;
      }
    },
  };
  const times: Record<keyof typeof sides, number[]> = { adult_income: [], wide_50000x20: [] };
  const accuracy: Record<string, number> = {};
  // A warm-up of each, not recorded: the first run pays for module loading and JIT.
  for (const run of Object.values(sides)) run();
  for (let r = 0; r < rounds; r++) {
    const order = (r % 2 === 0 ? ['adult_income', 'wide_50000x20'] : ['wide_50000x20', 'adult_income']) as (keyof typeof sides)[];
    for (const side of order) {
      const started = performance.now();
      const { report } = sides[side]();
      times[side].push(performance.now() - started);
      accuracy[side] = report.test.accuracy;
    }
    console.log(`round ${r + 1}/${rounds}: adult ${round(times.adult_income.at(-1)! / 1000, 2)} s, wide ${round(times.wide_50000x20.at(-1)! / 1000, 2)} s`);
  }
  const adult = median(times.adult_income);
  const wideMs = median(times.wide_50000x20);
  const ratio = wideMs / adult;
  writeBenchResult('setup', {
    machine: machineLine(),
    measured_at: new Date().toISOString(),
    rounds,
    what: 'prepareDataset per dataset: sha256 check, parse, split, case pools, 5-fold CV, final AI model, files written; medians over interleaved rounds',
    adult_income: { rows: 48_842, columns: 14, median_s: round(adult / 1000, 2), all_s: times.adult_income.map((t) => round(t / 1000, 2)), test_accuracy: accuracy.adult_income },
    wide_50000x20: { rows: ROWS, columns: NUMERIC + CATEGORICAL, median_s: round(wideMs / 1000, 2), all_s: times.wide_50000x20.map((t) => round(t / 1000, 2)), test_accuracy: accuracy.wide_50000x20 },
    ratio_wide_to_adult: round(ratio, 2),
    target: 'ratio ≤ 2',
    meets_target: ratio <= 2,
  });
  console.log(`wide / adult = ${ratio.toFixed(2)} (target ≤ 2)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
