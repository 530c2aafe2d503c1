/**
 * `npm run bench:ml [-- --against <git ref>] [--rounds n]`: the ML core's speed as ratios measured
 * in one run on one machine. Writes bench/results/ml.json.
 *
 * Sides, each a long-lived process answering timing requests (bench/ml-runner.ts):
 *  - `current`: this working tree's worker/ml;
 *  - `against` (with --against): the same runner bundled inside a checkout of that ref;
 *  - `lightgbm`: only when XDL_LIGHTGBM_PYTHONPATH names a directory from which a LightGBM 4.6.0
 *    Python package imports (bench/lightgbm_runner.py, run by XDL_PYTHON or python3). Without it
 *    no LightGBM figure or ratio is printed or written: timings recorded on another machine (the
 *    fixtures' metrics.json) are never the other side of a comparison.
 *
 * Tasks: per-row prediction and TreeSHAP on every fixture model (LightGBM gets whole batches of the
 * same rows, as it is used), AI-model training on each dataset's reference split with the fixtures'
 * parameters, and a user model on 200 answers weighted by confidence. Every round runs every task
 * on every side, the sides' order rotating from round to round; the figures are medians over the
 * rounds and the ratios are ratios of medians. Held-out accuracies of the trained AI models are
 * compared too (LightGBM's from the same run, else the fixtures' recorded ones: an accuracy does
 * not depend on the machine).
 *
 * Inside workerd (current side only): one participant-facing explanation (AI and user model, each
 * predicted and explained by TreeSHAP), as compute time per explanation (a loop in one request,
 * timed from the host) and as CPU time per request of the workerd process (kernel accounting over
 * many single-explanation requests, so it includes the request's own handling).
 */
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { build } from 'esbuild';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { AI_MODEL_PARAMS } from '../worker/ml/ai-model';
import { listFixtures, loadFixture } from '../ml-assets/lib/fixtures';
import { projectRoot } from '../ml-assets/lib/paths';
import { referenceSplit } from '../ml-assets/lib/training-data';
import { toTrainingData } from '../worker/ml/training-data';
import { seededRandom } from '../worker/ml/random';
import type { TrainingData } from '../worker/ml/train';
import { DATASET_TYPES, studyConfig } from '../worker/schemas/study';
import { userModelParams } from '../worker/ml/user-model-params';
import { workerdUsage } from './lib/workerd-processes';
import type { BenchInputs, SerializedData } from './ml-runner';
import { writeBenchResult } from './lib/results';

type Side = 'current' | 'against' | 'lightgbm';

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const againstRef = option('against');
const rounds = Number(option('rounds') ?? 21);
/** Only the tasks whose name contains this (for quick checks while working; the recorded run has all). */
const only = option('only');

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const serialize = (d: TrainingData): SerializedData => ({
  featureNames: [...d.featureNames],
  categorical: [...d.categorical],
  columns: d.columns.map((c) => Array.from(c, (v) => (Number.isNaN(v) ? null : v))),
  labels: Array.from(d.labels),
  ...(d.weights ? { weights: Array.from(d.weights) } : {}),
});

/** 200 answers on the user-model fixture's cases, weighted as the platform weights them (confidence / default). */
function userAnswers(): SerializedData {
  const f = loadFixture('adult_income/user_model');
  const encoding = f.encoding as { feature_names: string[]; categorical_features: string[] };
  const random = seededRandom(200);
  const { min, max, default: neutral } = studyConfig.confidence;
  return {
    featureNames: encoding.feature_names,
    categorical: encoding.feature_names.map((n) => encoding.categorical_features.includes(n)),
    columns: encoding.feature_names.map((_, j) => f.expected.rows.slice(0, 200).map((r) => r.x[j]!)),
    labels: f.expected.rows.slice(0, 200).map((r, i) => Number(f.rows[r.row ?? i]!.label)),
    weights: Array.from({ length: 200 }, () => (min + Math.floor(random() * (max - min + 1))) / neutral),
  };
}

function writeInputs(dir: string): { file: string; fixtures: string[]; inputs: BenchInputs } {
  const fixtures = listFixtures();
  const inputs: BenchInputs & { fixtures: Record<string, { expectedRaw: number[] }> } = {
    fixtures: Object.fromEntries(
      fixtures.map((name) => {
        const f = loadFixture(name);
        return [name, { model: f.model, encoding: f.encoding, rows: f.expected.rows.map((r) => r.x), expectedRaw: f.expected.rows.map((r) => r.raw_score) }];
      }),
    ),
    datasets: Object.fromEntries(
      DATASET_TYPES.map((dataset) => {
        const { data, train, test } = referenceSplit(dataset);
        return [
          dataset,
          {
            params: { ...AI_MODEL_PARAMS },
            categoryCodes: data.categoryCodes,
            train: serialize(toTrainingData(data, train)),
            test: serialize(toTrainingData(data, test)),
          },
        ];
      }),
    ),
    user: { params: { ...userModelParams(200).params } as Record<string, number>, data: userAnswers() },
  };
  const file = path.join(dir, 'inputs.json');
  writeFileSync(file, JSON.stringify(inputs));
  return { file, fixtures, inputs };
}

/** Bundles the runner against the ML core under `root` (this tree, or a checkout of another ref). */
async function bundleRunner(root: string, out: string): Promise<void> {
  await build({
    entryPoints: [path.join(root, 'bench', 'ml-runner.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    outfile: out,
    nodePaths: [path.join(projectRoot, 'node_modules')],
    logLevel: 'error',
  });
}

/** A checkout of `ref`'s worker/ml with this tree's runner beside it. */
function checkoutRef(ref: string, dir: string): string {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: projectRoot, encoding: 'utf8' }).trim();
  const tar = execFileSync('git', ['archive', '--format=tar', sha, 'worker/ml'], { cwd: projectRoot, maxBuffer: 1 << 28 });
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  mkdirSync(path.join(dir, 'bench'), { recursive: true });
  cpSync(path.join(projectRoot, 'bench', 'ml-runner.ts'), path.join(dir, 'bench', 'ml-runner.ts'));
  return sha;
}

class Runner {
  private readonly lines: Interface;
  private readonly pending: ((value: Record<string, unknown>) => void)[] = [];
  ready: Promise<Record<string, unknown>>;

  constructor(private readonly child: ChildProcessWithoutNullStreams, readonly side: Side) {
    this.lines = createInterface({ input: child.stdout });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    this.ready = new Promise((resolve, reject) => {
      this.pending.push(resolve);
      child.on('exit', (code) => reject(new Error(`${side} runner exited with ${code}: ${stderr.slice(-2000)}`)));
    });
    this.lines.on('line', (line) => this.pending.shift()?.(JSON.parse(line) as Record<string, unknown>));
  }

  async ask(task: string, reps: number): Promise<Record<string, number>> {
    const answer = new Promise<Record<string, unknown>>((resolve) => this.pending.push(resolve));
    this.child.stdin.write(`${JSON.stringify({ task, reps })}\n`);
    const result = await answer;
    if ('error' in result) throw new Error(`${this.side} ${task}: ${String(result.error)}`);
    return result as Record<string, number>;
  }

  close() {
    this.child.stdin.end();
    this.child.kill();
  }
}

function cpuModel(): string {
  const info = readFileSync('/proc/cpuinfo', 'utf8');
  return /model name\s*:\s*(.+)/.exec(info)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
}

/** The python that imports LightGBM 4.6.0 from XDL_LIGHTGBM_PYTHONPATH, or null. */
function lightgbmPython(): { python: string; env: NodeJS.ProcessEnv } | null {
  const where = process.env.XDL_LIGHTGBM_PYTHONPATH;
  if (!where) return null;
  const python = process.env.XDL_PYTHON ?? 'python3';
  const env = { ...process.env, PYTHONPATH: where, OMP_NUM_THREADS: '1' };
  try {
    const version = execFileSync(python, ['-c', 'import lightgbm; print(lightgbm.__version__)'], { env, encoding: 'utf8' }).trim();
    if (version !== '4.6.0') {
      console.warn(`XDL_LIGHTGBM_PYTHONPATH has LightGBM ${version}, not 4.6.0: no LightGBM side`);
      return null;
    }
    return { python, env };
  } catch (error) {
    console.warn(`LightGBM does not import from XDL_LIGHTGBM_PYTHONPATH (${String(error).split('\n')[0]}): no LightGBM side`);
    return null;
  }
}

async function workerdExplanation(inputs: BenchInputs) {
  const bundle = await build({
    entryPoints: [path.join(projectRoot, 'bench', 'workerd-entry.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    logLevel: 'error',
  });
  const pick = (name: string) => inputs.fixtures[name]!;
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: bundle.outputFiles[0]!.text,
      compatibilityDate: '2026-10-01',
      bindings: { FIXTURES: JSON.parse(JSON.stringify({ 'adult_income/ai_model': pick('adult_income/ai_model'), 'adult_income/user_model': pick('adult_income/user_model') })) },
    }),
  );
  try {
    const call = async (reps: number) => {
      const res = await mf.dispatchFetch(`http://bench.local/?op=explain-pair&reps=${reps}`);
      await res.text();
      if (!res.ok) throw new Error(`workerd explain-pair: ${res.status}`);
    };
    const timed = async (reps: number) => {
      const t = performance.now();
      await call(reps);
      return performance.now() - t;
    };
    for (let k = 0; k < 200; k++) await call(1); // warm up: compile the models and the code paths
    const perExplanation: number[] = [];
    for (let k = 0; k < 7; k++) perExplanation.push(Math.max(0, (await timed(500)) - (await timed(0))) / 500);
    const requests = 2000;
    const before = workerdUsage(process.pid).cpuSeconds;
    for (let k = 0; k < requests; k++) await call(1);
    const cpuPerRequestMs = ((workerdUsage(process.pid).cpuSeconds - before) * 1000) / requests;
    return {
      compute_ms_per_explanation: median(perExplanation),
      cpu_ms_per_request: cpuPerRequestMs,
      requests,
      note: 'compute: a loop of 500 explanations in one request, host-timed, minus an empty request (workerd freezes its clocks during computation); cpu: the workerd process\'s user+system time from /proc over single-explanation requests, dispatch included',
    };
  } finally {
    await mf.dispose();
  }
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'xdl-bench-ml-'));
  const node = process.execPath;
  const runners: Runner[] = [];
  try {
    const { file, fixtures, inputs } = writeInputs(dir);
    await bundleRunner(projectRoot, path.join(dir, 'current.mjs'));
    runners.push(new Runner(spawn(node, [path.join(dir, 'current.mjs'), file]), 'current'));
    let againstSha: string | null = null;
    if (againstRef) {
      againstSha = checkoutRef(againstRef, path.join(dir, 'against'));
      await bundleRunner(path.join(dir, 'against'), path.join(dir, 'against.mjs'));
      runners.push(new Runner(spawn(node, [path.join(dir, 'against.mjs'), file]), 'against'));
    }
    const lightgbm = lightgbmPython();
    if (lightgbm) {
      runners.push(new Runner(spawn(lightgbm.python, [path.join(projectRoot, 'bench', 'lightgbm_runner.py'), file], { env: lightgbm.env }), 'lightgbm'));
    }
    const ready = Object.fromEntries(await Promise.all(runners.map(async (r) => [r.side, await r.ready] as const)));
    const current = runners[0]!;

    // Repetitions per request: enough for about 150 ms on the current side (training: one model).
    const tasks: { task: string; reps: number; unit: 'us_per_row' | 'ms' }[] = [];
    for (const name of fixtures) {
      for (const kind of ['predict', 'shap']) {
        if (only && !`${kind}:${name}`.includes(only)) continue;
        let reps = 300;
        while ((await current.ask(`${kind}:${name}`, reps)).ms! < 150) reps *= 2;
        tasks.push({ task: `${kind}:${name}`, reps, unit: 'us_per_row' });
      }
    }
    for (const dataset of DATASET_TYPES) tasks.push({ task: `train-ai:${dataset}`, reps: 1, unit: 'ms' });
    tasks.push({ task: 'train-user', reps: 10, unit: 'ms' });
    if (only) tasks.splice(0, tasks.length, ...tasks.filter((t) => t.task.includes(only)));

    const samples = new Map<string, Map<Side, number[]>>(tasks.map((t) => [t.task, new Map(runners.map((r) => [r.side, []]))]));
    for (const { task, reps } of tasks) for (const r of runners) await r.ask(task, reps); // warm-up round
    for (let round = 0; round < rounds; round++) {
      for (const { task, reps, unit } of tasks) {
        for (let k = 0; k < runners.length; k++) {
          const runner = runners[(round + k) % runners.length]!;
          const { ms } = await runner.ask(task, reps);
          samples.get(task)!.get(runner.side)!.push(unit === 'us_per_row' ? (ms! * 1000) / reps : ms! / reps);
        }
      }
      process.stdout.write(`\rround ${round + 1}/${rounds}`);
    }
    process.stdout.write('\n');

    const results: Record<string, unknown> = {};
    for (const { task, unit } of tasks) {
      const bySide = samples.get(task)!;
      const med = Object.fromEntries([...bySide].map(([side, values]) => [side, median(values)])) as Partial<Record<Side, number>>;
      const spread = Object.fromEntries([...bySide].map(([side, values]) => [side, [Math.min(...values), Math.max(...values)]]));
      results[task] = {
        unit,
        median: med,
        min_max: spread,
        ...(med.against !== undefined ? { current_vs_against: med.current! / med.against } : {}),
        ...(med.lightgbm !== undefined ? { current_vs_lightgbm: med.current! / med.lightgbm } : {}),
      };
      const ratios = [
        med.against !== undefined ? `${(med.current! / med.against).toFixed(2)}× against` : '',
        med.lightgbm !== undefined ? `${(med.current! / med.lightgbm).toFixed(2)}× LightGBM` : '',
      ].filter(Boolean);
      console.log(`${task.padEnd(34)} ${Object.entries(med).map(([s, v]) => `${s} ${v!.toFixed(unit === 'ms' ? 2 : 3)}`).join('  ')}  ${ratios.join('  ')}`);
    }

    const accuracy: Record<string, unknown> = {};
    for (const dataset of only ? [] : DATASET_TYPES) {
      const bySide = Object.fromEntries(await Promise.all(runners.map(async (r) => [r.side, (await r.ask(`accuracy:${dataset}`, 1)).accuracy!] as const)));
      const recorded = (loadFixture(`${dataset}/ai_model`).metrics as Record<string, { accuracy: number }>)['heldout_metrics(threshold 0.5)']!.accuracy;
      const reference = bySide.lightgbm ?? recorded;
      accuracy[dataset] = {
        ...bySide,
        lightgbm_reference: reference,
        reference_source: bySide.lightgbm !== undefined ? 'LightGBM in this run' : "the fixture's recorded held-out accuracy",
        current_minus_lightgbm_pp: (bySide.current! - reference) * 100,
      };
      console.log(`accuracy ${dataset}: ${Object.entries(bySide).map(([s, v]) => `${s} ${(v * 100).toFixed(2)} %`).join('  ')}  LightGBM ${(reference * 100).toFixed(2)} %`);
    }

    for (const r of runners) r.close();
    runners.length = 0;
    const workerd = only ? null : await workerdExplanation(inputs);
    if (workerd) console.log(`workerd: ${workerd.compute_ms_per_explanation.toFixed(3)} ms compute per explanation, ${workerd.cpu_ms_per_request.toFixed(3)} ms CPU per request`);

    const report = {
      generated_at: new Date().toISOString(),
      machine: { cpu: cpuModel(), cores: os.cpus().length, platform: `${process.platform} ${process.arch}`, node: process.version },
      sides: {
        current: 'this working tree',
        ...(againstSha ? { against: `${againstRef} (${againstSha})` } : {}),
        ...(ready.lightgbm ? { lightgbm: `LightGBM ${String(ready.lightgbm.version)} (Python, 1 thread); its retrained fixture models' raw scores differ from the fixtures' by at most ${String(ready.lightgbm.fixture_raw_score_max_abs_diff)}` } : {}),
      },
      method: `${rounds} rounds after a warm-up round; each round runs every task on every side, the order of sides rotating; medians per side; ratios of medians. Node sides are esbuild bundles run by plain node, one thread.`,
      tasks: results,
      ai_model_accuracy: accuracy,
      workerd_explanation_ai_plus_user_model: workerd,
    };
    if (only) return; // a partial run is not a result
    writeBenchResult('ml', report);
  } finally {
    for (const r of runners) r.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
