/**
 * A platform whose study runs several between-subject conditions (`design.ts`): the SPA and the
 * datasets as for the e2e project, and the real Worker started by `wrangler dev` from a copy of
 * wrangler.toml whose entry is `worker-entry.ts`, with throw-away local D1/R2 state.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import type { TestProject } from 'vitest/node';
import { projectRoot } from '../../ml-assets/lib/paths';
import { prepareLocalState } from '../../ml-assets/lib/seed';
import { wranglerTomlPath } from '../../scripts/lib/wrangler-config';
import { buildSpa, freeLoopbackPort, startLocalWorker } from '../../scripts/lib/wrangler';

export const CONDITIONS_ADMIN_PASSWORD = 'conditions-admin-password';

/** wrangler.toml with the test's entry, its relative paths made absolute, and without the online environments. */
function testConfig(dir: string): string {
  const config = parse(readFileSync(wranglerTomlPath, 'utf8')) as Record<string, unknown> & {
    assets: { directory: string };
    d1_databases: { migrations_dir: string }[];
  };
  config.main = path.join(projectRoot, 'test', 'conditions', 'worker-entry.ts');
  config.assets.directory = path.join(projectRoot, 'dist', 'client');
  for (const db of config.d1_databases) db.migrations_dir = path.join(projectRoot, db.migrations_dir);
  delete config.env;
  const file = path.join(dir, 'wrangler.toml');
  writeFileSync(file, stringify(config));
  return file;
}

export default async function setup(project: TestProject) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'xdl-conditions-'));
  const persistTo = path.join(root, 'state');
  await buildSpa({ stdio: 'ignore' });
  await prepareLocalState(persistTo);
  const port = await freeLoopbackPort();
  const worker = await startLocalWorker({
    port,
    persistTo,
    config: testConfig(root),
    vars: { ADMIN_PASSWORD: CONDITIONS_ADMIN_PASSWORD },
    stdio: process.env.E2E_VERBOSE ? 'inherit' : 'ignore',
  });
  project.provide('baseUrl', `http://127.0.0.1:${port}`);
  project.provide('persistTo', persistTo);
  return async () => {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r).once('error', r));
    rmSync(root, { recursive: true, force: true });
  };
}
