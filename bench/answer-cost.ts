/**
 * `npm run bench:answer-cost`: what the record costs a participant's calls. Writes
 * bench/results/answer-cost.json.
 *
 * 1. Where the CPU of saving one pre-experiment answer goes, layer by layer, inside one isolate
 *    (bench/answer-cost/worker.ts on local D1, seeded like the platform). Each round asks the
 *    Worker to save ANSWERS answers through one layer (a bare insert, the platform's save service,
 *    its routes alone, the whole app), the layers interleaved round by round; the workerd CPU per
 *    answer is read from /proc around each request. No HTTP per answer, no wrangler proxy and no
 *    static-asset router are in what is measured, so the difference between `app` here and the
 *    saturated CPU per request in bench/results/load.json is what the request's way in costs.
 * 2. The main experiment's calls at study pace, against the floor in the same run:
 *    STUDY_PACE_PARTICIPANTS (200) participants in the main experiment on the platform's own
 *    Worker (wrangler dev, local D1/R2), each making its next call about every 9 s (a case's
 *    reveal, its two checkpoints and the stored case, half a minute apart), and as many callers
 *    sending single-row inserts to the minimal insert-only Worker (bench/d1-ceiling, served as the
 *    platform is) at the same pace take turns, STUDY_PACE_SEGMENT_SECONDS (45) each,
 *    platform–floor–floor–platform. p50 and p99 per call against the floor's (goal: p99 ≤ 1.5×).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareLocalState } from '../ml-assets/lib/seed';
import { freeLoopbackPort, killLocalWorker, startLocalWorker } from '../ml-assets/lib/wrangler';
import { projectRoot } from '../ml-assets/lib/paths';
import { workerdUsage } from './lib/workerd-processes';
import { insertsAtStudyPace, MAIN_STEPS, mainCallsAtStudyPace, setUpMainCrowd, type MainStep } from './lib/crowd';
import { latencySummary, machineLine, round, writeBenchResult } from './lib/results';

const LAYERS = ['raw', 'service', 'route', 'app'] as const;
const ROUNDS = 7;
const ANSWERS = 200;
// Enough participants (200 cases each) for every answer of every layer and round, warm-up included.
const PARTICIPANTS = Math.ceil((LAYERS.length * (ROUNDS * ANSWERS + 1)) / 200) + 1;

const STUDY_PACE_PARTICIPANTS = Number(process.env.STUDY_PACE_PARTICIPANTS ?? 200);
const STUDY_PACE_SEGMENT_SECONDS = Number(process.env.STUDY_PACE_SEGMENT_SECONDS ?? 45);
const P99_GOAL_OVER_FLOOR = 1.5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Part 2: the main experiment's calls at study pace, in turns with the floor (ABBA). */
async function atStudyPace() {
  const platformState = mkdtempSync(path.join(os.tmpdir(), 'xdl-bench-answer-cost-pace-'));
  const floorState = mkdtempSync(path.join(os.tmpdir(), 'xdl-bench-answer-cost-floor-'));
  await prepareLocalState(platformState);
  const port = await freeLoopbackPort();
  const floorPort = await freeLoopbackPort();
  const common = { stdio: 'ignore' as const, detached: true, logLevel: 'warn' as const };
  const platform = await startLocalWorker({ port, persistTo: platformState, vars: { ADMIN_PASSWORD: 'bench' }, ...common });
  const floor = await startLocalWorker({ port: floorPort, persistTo: floorState, config: path.join(projectRoot, 'bench', 'd1-ceiling', 'wrangler.assets.toml'), ...common });
  try {
    const setupStarted = performance.now();
    const participants = await setUpMainCrowd(`http://127.0.0.1:${port}`, STUDY_PACE_PARTICIPANTS);
    console.log(`study pace: ${participants.length} participants in the main experiment after ${((performance.now() - setupStarted) / 1000).toFixed(0)} s`);
    const platformMs = Object.fromEntries(MAIN_STEPS.map((step) => [step, [] as number[]])) as Record<MainStep, number[]>;
    const floorMs: number[] = [];
    for (const side of ['platform', 'floor', 'floor', 'platform'] as const) {
      if (side === 'floor') {
        const inserts = await insertsAtStudyPace(`http://127.0.0.1:${floorPort}/api/answers`, participants.length, STUDY_PACE_SEGMENT_SECONDS);
        if (inserts.errors.length > 0) throw new Error(`the floor Worker failed ${inserts.errors.length} inserts: ${inserts.errors[0]}`);
        floorMs.push(...inserts.ms);
      } else {
        const calls = await mainCallsAtStudyPace(participants, STUDY_PACE_SEGMENT_SECONDS);
        if (calls.errors.length > 0) throw new Error(`${calls.errors.length} main-experiment calls failed: ${calls.errors[0]}`);
        for (const step of MAIN_STEPS) platformMs[step].push(...calls.ms[step]);
      }
    }
    const floorSummary = latencySummary(floorMs);
    const perCall = Object.fromEntries(
      MAIN_STEPS.map((step) => {
        const summary = latencySummary(platformMs[step]);
        return [step, { ...summary, p50_over_floor: round(summary.p50_ms! / floorSummary.p50_ms!, 2), p99_over_floor: round(summary.p99_ms! / floorSummary.p99_ms!, 2) }];
      }),
    );
    return {
      method: `${participants.length} participants in the main experiment, each making its next call (reveal, explanation_viewed checkpoint, final checkpoint, stored case) about every 9 s, and as many callers inserting one row each into the minimal Worker (bench/d1-ceiling behind static assets, as the platform is served) at the same pace, in turns of ${STUDY_PACE_SEGMENT_SECONDS} s: platform, floor, floor, platform; wall time over loopback against wrangler dev (local D1/R2), one client address per participant`,
      participants: participants.length,
      per_call: perCall,
      floor: floorSummary,
      goal: `p99 of every call ≤ ${P99_GOAL_OVER_FLOOR}× the floor's p99`,
      meets_goal: Object.values(perCall).every((c) => c.p99_over_floor !== null && c.p99_over_floor <= P99_GOAL_OVER_FLOOR),
      cases_stored: participants.reduce((n, p) => n + p.ack.main.size, 0),
    };
  } finally {
    await Promise.all([killLocalWorker(platform, 'SIGTERM'), killLocalWorker(floor, 'SIGTERM')]);
    rmSync(platformState, { recursive: true, force: true });
    rmSync(floorState, { recursive: true, force: true });
  }
}

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
    await killLocalWorker(worker, 'SIGTERM');
    const studyPace = await atStudyPace();
    const all = { ...report, study_pace: studyPace };
    console.log(JSON.stringify(all, null, 2));
    writeBenchResult('answer-cost', all);
  } finally {
    await killLocalWorker(worker, 'SIGTERM');
    rmSync(persistTo, { recursive: true, force: true });
  }
}

await main();
