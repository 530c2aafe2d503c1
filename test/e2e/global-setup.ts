/**
 * Builds the SPA, prepares and seeds the datasets and AI models, and starts the real Worker with
 * `wrangler dev` on a free loopback port, with throw-away local D1/R2 state, for every e2e file. Tests reach it through `inject('baseUrl')`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { prepareLocalState } from '../../ml-assets/lib/seed';
import { buildSpa, freeLoopbackPort, startLocalWorker } from '../../scripts/lib/wrangler';

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
  await buildSpa({ stdio: 'ignore' });
  await prepareLocalState(persistTo);
  const port = await freeLoopbackPort();
  const worker = await startLocalWorker({
    port,
    persistTo,
    vars: { ADMIN_PASSWORD: E2E_ADMIN_PASSWORD },
    stdio: process.env.E2E_VERBOSE ? 'inherit' : 'ignore',
  });
  project.provide('baseUrl', `http://127.0.0.1:${port}`);
  project.provide('persistTo', persistTo);
  return async () => {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r).once('error', r));
    rmSync(persistTo, { recursive: true, force: true });
  };
}
