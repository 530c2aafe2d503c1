/** The Worker as `wrangler deploy` uploads it, and the plan limit it must stay under. */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { runTool } from '../../ml-assets/lib/wrangler';

/** The Workers Free plan's limit on a Worker's size after compression (the Paid plan allows 10 MiB). */
export const FREE_PLAN_WORKER_LIMIT_BYTES = 3 * 1024 * 1024;

/** Bundles the Worker with wrangler's dry run (no network), into `outdir`; returns its size and its size after gzip. */
export async function bundleWorker(env: string | null, outdir: string): Promise<{ bytes: number; gzipBytes: number }> {
  rmSync(outdir, { recursive: true, force: true });
  await runTool('wrangler', ['deploy', '--dry-run', ...(env ? ['--env', env] : []), '--outdir', outdir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const script = readFileSync(path.join(outdir, 'index.js'));
  return { bytes: script.length, gzipBytes: gzipSync(script).length };
}
