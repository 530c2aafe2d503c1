/**
 * A platform whose study runs several between-subject conditions (`design.ts`): the SPA and the
 * datasets as for the e2e project, and the real Worker started by `wrangler dev` from a copy of
 * wrangler.toml whose entry is `worker-entry.ts`, with throw-away local D1/R2 state.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { projectRoot } from '../../ml-assets/lib/paths';
import { prepareLocalState } from '../../ml-assets/lib/seed';
import { configWithEntry } from '../../ml-assets/lib/wrangler-config';
import { buildSpa } from '../../ml-assets/lib/wrangler';
import { serveForTests } from '../e2e/test-worker';

export const CONDITIONS_ADMIN_PASSWORD = 'conditions-admin-password';

export default async function setup(project: TestProject) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'xdl-conditions-'));
  const persistTo = path.join(root, 'state');
  await buildSpa({ stdio: 'ignore' });
  await prepareLocalState(persistTo);
  return serveForTests(project, { persistTo, adminPassword: CONDITIONS_ADMIN_PASSWORD, config: configWithEntry(path.join(projectRoot, 'test', 'conditions', 'worker-entry.ts'), root), tempDir: root });
}
