/**
 * Builds the SPA, prepares and seeds the datasets and AI models, and starts the real Worker with
 * `wrangler dev` on a free loopback port, with throw-away local D1/R2 state, for every e2e file. Tests reach it through `inject('baseUrl')`.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { prepareLocalState } from '../../ml-assets/lib/seed';
import { buildSpa } from '../../ml-assets/lib/wrangler';
import { serveForTests } from './test-worker';

export const E2E_ADMIN_PASSWORD = 'e2e-admin-password';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    /** The throw-away local state of the running Worker, for checks through wrangler. */
    persistTo: string;
  }
}

export default async function setup(project: TestProject) {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), 'xdl-e2e-'));
  // `npm test` builds it once before this suite and the ones beside it start (scripts/test.ts).
  if (process.env.XDL_SPA_BUILT !== '1') await buildSpa({ stdio: 'ignore' });
  await prepareLocalState(persistTo);
  return serveForTests(project, { persistTo, adminPassword: E2E_ADMIN_PASSWORD, tempDir: persistTo });
}
