/**
 * A platform whose study runs several between-subject conditions (`design.ts`): the SPA and the
 * datasets as for the e2e project, and the real Worker started by `wrangler dev` from a copy of
 * wrangler.toml whose entry is `worker-entry.ts`, with throw-away local D1/R2 state.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import type { TestProject } from 'vitest/node';
import { projectRoot } from '../../ml-assets/lib/paths';
import { prepareLocalState } from '../../ml-assets/lib/seed';
import { wranglerTomlPath } from '../../scripts/lib/wrangler-config';
import { buildSpa } from '../../scripts/lib/wrangler';
import { serveForTests } from '../e2e/test-worker';

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
  return serveForTests(project, { persistTo, adminPassword: CONDITIONS_ADMIN_PASSWORD, config: testConfig(root), tempDir: root });
}
