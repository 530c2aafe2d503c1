/**
 * `npm run bench:answer-cost`: where the CPU of saving one pre-experiment answer goes, layer by
 * layer, inside one isolate (bench/answer-cost/worker.ts on local D1, seeded like the platform).
 * Each round asks the Worker to save ANSWERS answers through one layer (a bare insert, the
 * platform's save service, its routes alone, the whole app), the layers interleaved round by
 * round; the workerd CPU per answer is read from /proc around each request. No HTTP per answer,
 * no wrangler proxy and no static-asset router are in what is measured, so the difference
 * between `app` here and the saturated CPU per request in bench/results/load.json is what the
 * request's way in costs. Writes bench/results/answer-cost.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareLocalState } from '../ml-assets/lib/seed';
import { freeLoopbackPort, killLocalWorker, projectRoot, startLocalWorker } from '../scripts/lib/wrangler';
import { workerdUsage } from './lib/workerd-processes';
import { machineLine, writeBenchResult } from './lib/results';

const LAYERS = ['raw', 'service', 'route', 'app'] as const;
const ROUNDS = 7;
const ANSWERS = 200;
// Enough participants (200 cases each) for every answer of every layer and round, warm-up included.
const PARTICIPANTS = Math.ceil((LAYERS.length * (ROUNDS * ANSWERS + 1)) / 200) + 1;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), 'xdl-bench-answer-cost-'));
  await prepareLocalState(persistTo);
  const port = await freeLoopbackPort();
  const worker = await startLocalWorker({
    port,
    persistTo,
    config: path.join(projectRoot, 'bench', 'answer-cost', 'wrangler.toml'),
    stdio: 'ignore',
    detached: true,
    logLevel: 'warn',
  });
  const ask = async (route: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${route}`, { method: 'POST' });
    if (!res.ok) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  try {
    await ask(`/setup?n=${PARTICIPANTS}`);
    // One answer through every layer first, so no layer pays for the isolate's first compilation.
    for (const layer of LAYERS) await ask(`/save?layer=${layer}&n=1`);
    const cpuMs: Record<string, number[]> = Object.fromEntries(LAYERS.map((l) => [l, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const layer of LAYERS) {
        const before = workerdUsage(worker.pid!).cpuSeconds;
        await ask(`/save?layer=${layer}&n=${ANSWERS}`);
        cpuMs[layer]!.push(((workerdUsage(worker.pid!).cpuSeconds - before) * 1000) / ANSWERS);
      }
    }
    const perAnswer = Object.fromEntries(LAYERS.map((l) => [l, Number(median(cpuMs[l]!).toFixed(3))]));
    const report = {
      generated_at: new Date().toISOString(),
      machine: machineLine(),
      method: `workerd CPU (/proc, all processes of wrangler dev) per answer, median of ${ROUNDS} interleaved rounds of ${ANSWERS} answers per layer, saved inside one isolate on local D1`,
      cpu_ms_per_answer: perAnswer,
      rounds: Object.fromEntries(LAYERS.map((l) => [l, cpuMs[l]!.map((v) => Number(v.toFixed(3)))])),
      // What each layer adds to the one below it (/proc counts CPU in 10 ms ticks: ±0.05 ms per answer).
      added_ms: {
        one_batch_save_over_bare_insert: Number((perAnswer.service! - perAnswer.raw!).toFixed(3)),
        routing_and_validation: Number((perAnswer.route! - perAnswer.service!).toFixed(3)),
        app_middleware: Number((perAnswer.app! - perAnswer.route!).toFixed(3)),
      },
    };
    console.log(JSON.stringify(report, null, 2));
    writeBenchResult('answer-cost', report);
  } finally {
    await killLocalWorker(worker, 'SIGTERM');
    rmSync(persistTo, { recursive: true, force: true });
  }
}

await main();
