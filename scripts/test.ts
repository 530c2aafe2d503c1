/**
 * `npm test`: type-checks, then runs each vitest project (worker inside workerd, the ML core and
 * set-up scripts in Node, web components, e2e in Debian Chromium against a locally started Worker) and prints a closing
 * `N passed, N failed` line for each runner and for the whole run.
 *
 * The e2e suite runs beside the suites that neither build the SPA nor write the dataset registry
 * (see SCHEDULE): its browser and Worker leave about half of two cores idle. Those suites' output
 * is kept in a file and printed whole when each ends, so the log reads one suite at a time.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SpawnOptions } from 'node:child_process';
import { writeDatasetRegistry } from '../ml-assets/lib/dataset-registry';
import { prepareAll } from '../ml-assets/lib/prepare';
import { ensureChromium } from './lib/chromium';
import { ensurePythonStats } from './lib/python-stats';
import { buildSpa, offlineEnv, runTool } from '../ml-assets/lib/wrangler';

type Counts = { passed: number; failed: number; skipped: number };
const results: { name: string; counts: Counts | null; seconds: number }[] = [];
const only = process.argv.slice(2);
const wanted = (name: string) => only.length === 0 || only.includes(name);

/** Where a runner's tools write: the terminal, or a file printed when the runner ends. */
type Output = Pick<SpawnOptions, 'stdio'>;

async function typecheck(output: Output): Promise<Counts> {
  let failed = 0;
  const checks: [string, string[]][] = [
    ['wrangler', ['types', '--check', 'worker/worker-configuration.d.ts', '--env-file', 'worker/secrets.env.example']],
    ['tsc', ['-p', 'tsconfig.worker.json']],
    ['tsc', ['-p', 'tsconfig.web.json']],
    ['tsc', ['-p', 'tsconfig.node.json']],
  ];
  for (const [tool, args] of checks) {
    try {
      await runTool(tool, args, output);
    } catch (err) {
      console.error(String(err));
      failed++;
    }
  }
  return { passed: checks.length - failed, failed, skipped: 0 };
}

async function vitestProject(output: Output, project: string, env: Record<string, string> = {}): Promise<Counts> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'xdl-vitest-'));
  const report = path.join(dir, 'report.json');
  try {
    const exited = await runTool('vitest', ['run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], {
      ...output,
      env: offlineEnv(env),
    }).then(
      () => 'ok' as const,
      () => 'failed' as const,
    );
    if (!existsSync(report)) return { passed: 0, failed: 1, skipped: 0 };
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
      numTodoTests: number;
      testResults: { status: string; assertionResults: { status: string }[] }[];
    };
    // A file that failed to load, or whose hooks failed (its tests then count as skipped), counts
    // as one failure; a file whose tests failed is already counted by its tests.
    const brokenFiles = json.testResults.filter((file) => file.status === 'failed' && !file.assertionResults.some((a) => a.status === 'failed')).length;
    // A run that ended in error with no test failed (its global set-up failed, or it found no
    // test files) is one failure too: it must never read as a pass of nothing.
    const unexplained = exited === 'failed' && json.numFailedTests + brokenFiles === 0 ? 1 : 0;
    return {
      passed: json.numPassedTests,
      failed: json.numFailedTests + brokenFiles + unexplained,
      skipped: json.numPendingTests + json.numTodoTests,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Everything is checked as it is built: with every dataset definition of ml-assets/datasets/.
writeDatasetRegistry();

const runners: Record<string, (output: Output) => Promise<Counts>> = {
  typecheck,
  worker: (output) => vitestProject(output, 'worker'),
  ml: (output) => vitestProject(output, 'ml'),
  web: (output) => vitestProject(output, 'web'),
  // Full size (200 participants) when asked for by name (`npm run test:faults`); a smaller crowd inside the whole `npm test`.
  faults: (output) => vitestProject(output, 'faults', { XDL_FAULT_PARTICIPANTS: process.env.XDL_FAULT_PARTICIPANTS ?? (only.includes('faults') ? '200' : '30') }),
  deploy: (output) => vitestProject(output, 'deploy'),
  e2e: (output) => {
    ensureChromium();
    // The SPA is built once before any suite starts (below the runners): its global set-up would
    // otherwise build it again while the suites beside it run.
    return vitestProject(output, 'e2e', { XDL_SPA_BUILT: '1' });
  },
  'own-dataset': (output) => {
    ensureChromium();
    return vitestProject(output, 'own-dataset');
  },
  conditions: (output) => {
    ensureChromium();
    // Its reproduction test runs the export's analysis/reproduce.py.
    ensurePythonStats();
    return vitestProject(output, 'conditions');
  },
};

/**
 * Phases run one after another; the lanes of a phase at the same time, each lane's runners in
 * order. Beside e2e run only suites that write nothing another reads: deploy and conditions
 * build the SPA into dist/ (which e2e's Worker serves), and own-dataset builds one with a fourth
 * dataset after rewriting the dataset registry every suite's Worker is built from. The conditions
 * flows compare a stored response time with the browser's own reading, so they run with no other
 * suite.
 */
const SCHEDULE: string[][][] = [
  [['e2e'], ['typecheck', 'worker', 'ml', 'web', 'faults']],
  [['deploy', 'own-dataset', 'conditions']],
];

async function runOne(name: string, output: Output): Promise<(typeof results)[number]> {
  const started = performance.now();
  // A runner that cannot start (no browser, no fixtures) counts as one failure; the others still run.
  const counts = await runners[name]!(output).catch((err: unknown): Counts => {
    console.error(`${name} could not run: ${err instanceof Error ? err.message : String(err)}`);
    return { passed: 0, failed: 1, skipped: 0 };
  });
  const result = { name, counts, seconds: Math.round((performance.now() - started) / 1000) };
  results.push(result);
  return result;
}

const resultLine = (r: (typeof results)[number]) =>
  `${r.name}: ${r.counts?.passed ?? 0} passed, ${r.counts?.failed ?? 1} failed${r.counts?.skipped ? `, ${r.counts.skipped} skipped` : ''} (${r.seconds} s)`;

/** A lane beside others: each runner's output goes to a file, printed whole when the runner ends. */
async function runLane(names: string[], alone: boolean): Promise<void> {
  for (const name of names) {
    if (alone) {
      console.log(`\n── ${name} ──`);
      console.log(resultLine(await runOne(name, { stdio: 'inherit' })));
      continue;
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), 'xdl-test-log-'));
    const log = path.join(dir, `${name}.log`);
    const fd = openSync(log, 'w');
    let result;
    try {
      result = await runOne(name, { stdio: ['ignore', fd, fd] });
    } finally {
      closeSync(fd);
    }
    process.stdout.write(`\n── ${name} ──\n${readFileSync(log, 'utf8')}`);
    console.log(resultLine(result));
    rmSync(dir, { recursive: true, force: true });
  }
}

// The SPA and the datasets' pools and models, made once before the suites that read them run side by side.
if (wanted('e2e')) {
  console.log('\n── set-up: datasets and the SPA ──');
  prepareAll({ log: (line) => console.log(line) });
  await buildSpa();
}
for (const phase of SCHEDULE) {
  const lanes = phase.map((lane) => lane.filter(wanted)).filter((lane) => lane.length > 0);
  await Promise.all(lanes.map((lane) => runLane(lane, lanes.length === 1)));
}

const total = results.reduce(
  (sum, r) => ({
    passed: sum.passed + (r.counts?.passed ?? 0),
    failed: sum.failed + (r.counts?.failed ?? 1),
    skipped: sum.skipped + (r.counts?.skipped ?? 0),
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
console.log('');
// Each runner's time too, so a CI log shows where a slow run spent it (in the runners' order).
const order = Object.keys(runners);
for (const r of [...results].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name))) console.log(resultLine(r));
console.log(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
process.exit(total.failed === 0 && total.passed > 0 ? 0 : 1);
