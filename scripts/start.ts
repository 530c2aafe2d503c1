/**
 * `npm start`: makes sure the local admin secret exists, builds the SPA, applies the local D1
 * migrations, prepares datasets, case pools and AI models (skipped when up to date), seeds them
 * into the local D1 and R2, then serves everything with `wrangler dev` on
 * 127.0.0.1:8787 using wrangler's embedded local D1 and R2. One line per step with its time; the
 * tools' own output goes to .wrangler/start.log (`npm start -- --verbose` prints it instead).
 */
import path from 'node:path';
import { writeDatasetRegistry } from '../ml-assets/lib/dataset-registry';
import { isSetUpError, prepareAll } from '../ml-assets/lib/prepare';
import { placeholderContacts } from '../worker/schemas/study-config';
import { designShortfalls } from '../ml-assets/lib/design-check';
import { seedLocal } from '../ml-assets/lib/seed';
import { ensureDevSecrets, devVarsPath } from './lib/dev-secrets';
import { closingBox, step, toolOutput } from './lib/start-output';
import { applyLocalMigrations, buildSpa, spawnTool } from '../ml-assets/lib/wrangler';
import { projectRoot } from '../ml-assets/lib/paths';

const PORT = Number(process.env.PORT ?? 8787);
/** How long `npm start` waits for the Worker to answer before it says it has not. */
const STATUS_WAIT_MS = 120_000;
const verbose = process.argv.includes('--verbose');
const output = toolOutput(verbose, path.join(projectRoot, '.wrangler', 'start.log'));
const tools = { stdio: output.stdio };

const secrets = await step('Admin password', () => ensureDevSecrets());

// The Worker and the web app are built with every dataset definition of ml-assets/datasets/.
let definitions;
try {
  definitions = await step('Dataset definitions', () => writeDatasetRegistry());
} catch (err) {
  if (!isSetUpError(err)) throw err;
  console.error(`\nSet-up stopped: ${err.message}`);
  process.exit(2);
}
await step('Building the web app', () => buildSpa(tools));
await step('Applying local D1 migrations', () => applyLocalMigrations(undefined, tools));
try {
  await step('Preparing datasets, case pools and AI models', (log) => prepareAll({ log: (line) => log(`    ${line}`), definitions }));
} catch (err) {
  // A definition or source problem says what to fix; nothing is served from a half-built set-up.
  if (!isSetUpError(err)) throw err;
  console.error(`\nSet-up stopped: ${err.message}`);
  process.exit(2);
}
// A design the pools cannot give (a condition's aiAccuracy) is refused now, with the numbers, not at a participant's start.
const shortfalls = await step('Checking the design against the case pools', async () => {
  // Read once the registry above is written: the study's module validates the datasets it names.
  const { enabledDatasets, studyConfig } = await import('../worker/schemas/study');
  return designShortfalls(studyConfig.conditions, studyConfig.mainExperiment.numCases, enabledDatasets());
});
if (shortfalls.length > 0) {
  console.error(`\nSet-up stopped: the study configuration's conditions ask for more than the case pools hold:\n${shortfalls.map((line) => `  - ${line}`).join('\n')}`);
  process.exit(2);
}
await step('Seeding cases and AI models into the local D1 and R2', () => seedLocal({ stdio: output.stdio }));
output.close();

const placeholders = placeholderContacts();
if (placeholders.length > 0) {
  const rule = '!'.repeat(78);
  console.warn(
    [
      '',
      rule,
      '!! The study still shows the shipped placeholder contacts to participants:',
      ...placeholders.map((c) => `!!   ${c.role}: ${c.name} <${c.email}>`),
      '!! Put your own in `contacts` of worker/schemas/study-config.ts before you recruit anyone.',
      rule,
    ].join('\n'),
  );
}

// wrangler's own warnings come as they come; with --verbose everything it says.
const url = `http://127.0.0.1:${PORT}`;
const dev = spawnTool('wrangler', ['dev', '--ip', '127.0.0.1', '--port', String(PORT), '--local', ...(verbose ? [] : ['--log-level', 'warn'])]);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => dev.kill(signal));
let exited = false;
dev.on('exit', (code) => {
  exited = true;
  process.exit(code ?? 0);
});
// The box says the platform is running once it is: when the Worker answers its status route.
const answered = await step('Starting the Worker', async () => {
  if (!(await workerAnswers(`${url}/api/status`, () => exited))) throw new Error('no answer');
}).then(
  () => true,
  () => false,
);
if (answered) console.log(`\n${closingBox({ url, devVars: devVarsPath, password: secrets.created ? secrets.password : null, logFile: output.note })}\n`);
else console.error(`\nThe Worker has not answered ${url}/api/status in ${STATUS_WAIT_MS / 1000} s; wrangler's messages above say why (npm start -- --verbose shows them all).`);

/** Asks `statusUrl` every half second until it answers, wrangler exits, or STATUS_WAIT_MS pass. */
async function workerAnswers(statusUrl: string, gone: () => boolean): Promise<boolean> {
  const until = Date.now() + STATUS_WAIT_MS;
  while (Date.now() < until && !gone()) {
    try {
      if ((await fetch(statusUrl, { signal: AbortSignal.timeout(2000) })).status < 500) return true;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}
