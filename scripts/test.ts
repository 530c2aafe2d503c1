/**
 * `npm test`: type-checks, then runs each vitest project (worker inside workerd, the ML core and
 * set-up scripts in Node, web components, e2e in Debian Chromium against a locally started Worker) and prints a closing
 * `N passed, N failed` line for each runner and for the whole run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeDatasetRegistry } from '../ml-assets/lib/definitions';
import { ensureChromium } from './lib/chromium';
import { ensurePythonStats } from './lib/python-stats';
import { offlineEnv, runTool } from './lib/wrangler';

type Counts = { passed: number; failed: number; skipped: number };
const results: { name: string; counts: Counts | null; seconds: number }[] = [];
const only = process.argv.slice(2);
const wanted = (name: string) => only.length === 0 || only.includes(name);

async function typecheck(): Promise<Counts> {
  let failed = 0;
  const checks: [string, string[]][] = [
    ['wrangler', ['types', '--check', 'worker/worker-configuration.d.ts', '--env-file', 'worker/secrets.env.example']],
    ['tsc', ['-p', 'tsconfig.worker.json']],
    ['tsc', ['-p', 'tsconfig.web.json']],
    ['tsc', ['-p', 'tsconfig.node.json']],
  ];
  for (const [tool, args] of checks) {
    try {
      await runTool(tool, args);
    } catch (err) {
      console.error(String(err));
      failed++;
    }
  }
  return { passed: checks.length - failed, failed, skipped: 0 };
}

async function vitestProject(project: string, env: Record<string, string> = {}): Promise<Counts> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'xdl-vitest-'));
  const report = path.join(dir, 'report.json');
  try {
    const exited = await runTool('vitest', ['run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], {
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

const runners: [string, () => Promise<Counts>][] = [
  ['typecheck', typecheck],
  ['worker', () => vitestProject('worker')],
  ['ml', () => vitestProject('ml')],
  ['web', () => vitestProject('web')],
  // Full size (200 participants) when asked for by name (`npm run test:faults`); a smaller crowd inside the whole `npm test`.
  ['faults', () => vitestProject('faults', { XDL_FAULT_PARTICIPANTS: process.env.XDL_FAULT_PARTICIPANTS ?? (only.includes('faults') ? '200' : '30') })],
  ['deploy', () => vitestProject('deploy')],
  [
    'e2e',
    () => {
      ensureChromium();
      return vitestProject('e2e');
    },
  ],
  [
    'own-dataset',
    () => {
      ensureChromium();
      return vitestProject('own-dataset');
    },
  ],
  [
    'conditions',
    () => {
      ensureChromium();
      // Its reproduction test runs the export's analysis/reproduce.py.
      ensurePythonStats();
      return vitestProject('conditions');
    },
  ],
];

for (const [name, run] of runners) {
  if (!wanted(name)) continue;
  console.log(`\n── ${name} ──`);
  const started = performance.now();
  // A runner that cannot start (no browser, no fixtures) counts as one failure; the others still run.
  const counts = await run().catch((err: unknown): Counts => {
    console.error(`${name} could not run: ${err instanceof Error ? err.message : String(err)}`);
    return { passed: 0, failed: 1, skipped: 0 };
  });
  const seconds = Math.round((performance.now() - started) / 1000);
  results.push({ name, counts, seconds });
  console.log(`${name}: ${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''} (${seconds} s)`);
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
// Each runner's time too, so a CI log shows where a slow run spent it.
for (const r of results) console.log(`${r.name}: ${r.counts?.passed ?? 0} passed, ${r.counts?.failed ?? 1} failed (${r.seconds} s)`);
console.log(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
process.exit(total.failed === 0 && total.passed > 0 ? 0 : 1);
