/**
 * The real Worker started by `wrangler dev` for a browser test project: on a free loopback port,
 * with the project's throw-away local state, its own admin password, and the keys the e2e helpers
 * read (`baseUrl`, `persistTo`) provided to its tests. Resolves to the teardown.
 */
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { freeLoopbackPort, startLocalWorker } from '../../ml-assets/lib/wrangler';

export async function serveForTests(
  project: TestProject,
  input: { persistTo: string; adminPassword: string; config?: string; /** Removed after the Worker stops. */ tempDir: string },
): Promise<() => Promise<void>> {
  const port = await freeLoopbackPort();
  const worker = await startLocalWorker({
    port,
    persistTo: input.persistTo,
    ...(input.config ? { config: input.config } : {}),
    vars: { ADMIN_PASSWORD: input.adminPassword },
    stdio: process.env.E2E_VERBOSE ? 'inherit' : 'ignore',
  });
  project.provide('baseUrl', `http://127.0.0.1:${port}`);
  project.provide('persistTo', input.persistTo);
  return async () => {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r).once('error', r));
    rmSync(input.tempDir, { recursive: true, force: true });
  };
}
