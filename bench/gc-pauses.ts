/**
 * `npm run bench:gc-pauses`: whose garbage-collection pauses make the tail of the answer latency at
 * study pace on the local Worker, the platform's and the floor's. Writes bench/results/gc-pauses.json.
 *
 * `wrangler dev` runs a Worker in one workerd process together with the emulator's own isolates
 * (its entry and asset router, local D1, R2 and the rate limiter), each on the same thread, and
 * puts a second workerd in front (the dev proxy). A pause in any of them holds up every request in
 * flight. Here V8 reports every collection of every isolate (`--trace-gc-nvp`), and each pause is
 * put down to one of three: the Worker's own isolate (found by a collection the benchmark forces
 * in it through the inspector before and after its soak, which also bound the soak in the log),
 * the other isolates of its workerd, or the dev proxy's workerd. For each full collection it keeps
 * how much of the pause V8 puts down to its own phases (marking, clearing, evacuating, sweeping)
 * and how long the isolate had run since its previous full collection.
 *
 * The platform's crowd (as in bench:load: LOAD_PARTICIPANTS, one in ten in the main experiment)
 * answers at study pace for GC_SOAK_SECONDS (180); then the same number of callers send single-row
 * inserts at the same pace to the minimal Worker (bench/d1-ceiling, served as the platform is) for
 * as long. V8 prints its report through wrangler's console only at wrangler's default log level,
 * which also prints a line per request; the latencies here carry that cost and are for context
 * (bench:load measures them without it).
 */
import { chmodSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { connectIsolateHeap, EXPOSE_GC_ENV } from './lib/isolate-heap';
import { prepareLocalState } from '../ml-assets/lib/seed';
import { freeLoopbackPort, killLocalWorker, startLocalWorker } from '../ml-assets/lib/wrangler';
import { projectRoot } from '../ml-assets/lib/paths';
import { atStudyPace, insertsAtStudyPace, setUpCrowd, warmModelCache } from './lib/crowd';
import { latencySummary, machineLine, round, writeBenchResult } from './lib/results';

const PARTICIPANTS = Number(process.env.LOAD_PARTICIPANTS ?? 1000);
const SOAK_SECONDS = Number(process.env.GC_SOAK_SECONDS ?? 180);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The workerd binary wrangler's Miniflare runs (the `workerd` package's default export is its path). */
const workerdBinary = (createRequire(createRequire(import.meta.url).resolve('miniflare'))('workerd') as { default: string }).default;

/**
 * One collection as `--trace-gc-nvp` reports it: `[pid:isolate:n]  t ms: GC: {...}`, `t` being the
 * isolate's own clock. A full collection's record also times V8's own phases of it.
 */
type Collection = { pid: number; isolate: string; atMs: number; full: boolean; pauseMs: number; v8PhasesMs: number; forced: boolean; heapMb: [number, number] };
const TRACE_LINE = /^\[(\d+):(0x[0-9a-f]+)(?::\d+)?\]\s+([\d.]+) ms: GC: (\{.*\})\s*$/;
/** The phases V8 times inside a full collection (each nests its own sub-phases). */
const V8_PHASES = ['prologue', 'mark', 'weakness_handling', 'clear', 'evacuate', 'sweep', 'epilogue', 'finish'];
/** V8's young-generation collectors: the scavenger and the minor mark-sweeper. */
const YOUNG = new Set(['s', 'ms']);

function collectionsIn(logFile: string): Collection[] {
  const out: Collection[] = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const m = TRACE_LINE.exec(line);
    if (!m) continue;
    const gc = JSON.parse(m[4]!) as Record<string, number | string | boolean>;
    const ms = (key: string) => (typeof gc[key] === 'number' ? (gc[key] as number) : 0);
    out.push({
      pid: Number(m[1]),
      isolate: m[2]!,
      atMs: Number(m[3]),
      full: !YOUNG.has(String(gc.gc)),
      pauseMs: ms('pause'),
      v8PhasesMs: V8_PHASES.reduce((sum, phase) => sum + ms(phase), 0),
      forced: gc.reason === 'testing',
      heapMb: [ms('start_object_size') / 2 ** 20, ms('end_object_size') / 2 ** 20],
    });
  }
  return out;
}

/**
 * The soak's collections by whose they are. The Worker's isolate is the one the benchmark made
 * collect (`gc()` reports as "testing"); its first and last forced collection bound the soak.
 */
function attribute(collections: Collection[]) {
  const forced = collections.flatMap((c, i) => (c.forced ? [i] : []));
  if (forced.length < 2) throw new Error('the Worker isolate reported no forced collection: is --trace-gc-nvp reaching the log?');
  const worker = collections[forced[0]!]!;
  // Seconds since the same isolate's previous full collection (forced ones and set-up's included).
  const sincePrevious = new Map<Collection, number>();
  const lastFull = new Map<string, number>();
  for (const c of collections.filter((c) => c.full)) {
    const key = `${c.pid}:${c.isolate}`;
    if (lastFull.has(key)) sincePrevious.set(c, (c.atMs - lastFull.get(key)!) / 1000);
    lastFull.set(key, c.atMs);
  }
  const soak = collections.slice(forced[0]! + 1, forced.at(-1)!).filter((c) => !c.forced);
  const groups = {
    worker_isolate: soak.filter((c) => c.isolate === worker.isolate),
    emulator_isolates_beside_it: soak.filter((c) => c.pid === worker.pid && c.isolate !== worker.isolate),
    dev_proxy: soak.filter((c) => c.pid !== worker.pid),
  };
  return Object.fromEntries(
    Object.entries(groups).map(([name, cs]) => {
      const pauses = cs.map((c) => c.pauseMs);
      const full = cs.filter((c) => c.full);
      const fullPauseMs = full.reduce((s, c) => s + c.pauseMs, 0);
      return [
        name,
        {
          isolates: new Set(cs.map((c) => c.isolate)).size,
          scavenges: cs.length - full.length,
          full_collections: full.length,
          // workerd runs V8 without incremental marking: a full collection is one stop-the-world pause.
          full_collection_max_ms: round(Math.max(0, ...full.map((c) => c.pauseMs))),
          pause_total_ms: round(pauses.reduce((s, p) => s + p, 0)),
          pause_max_ms: round(pauses.length ? Math.max(...pauses) : 0),
          pauses_over_50_ms: pauses.filter((p) => p > 50).length,
          pauses_over_100_ms: pauses.filter((p) => p > 100).length,
          // How much of the full collections' pauses V8 puts down to its own phases.
          v8_phases_share_of_full_pauses: fullPauseMs > 0 ? round(full.reduce((s, c) => s + c.v8PhasesMs, 0) / fullPauseMs, 2) : null,
          full_collection_list: full.map((c) => ({
            pause_ms: round(c.pauseMs),
            v8_phases_ms: round(c.v8PhasesMs),
            seconds_since_previous_full: sincePrevious.has(c) ? round(sincePrevious.get(c)!) : null,
            js_heap_mb: c.heapMb.map((mb) => round(mb)),
          })),
        },
      ];
    }),
  );
}

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'xdl-bench-gc-'));
  const persistTo = path.join(tmp, 'platform');
  await prepareLocalState(persistTo);
  // workerd's stdout is a pipe to wrangler and so block-buffered: a collection's line would reach
  // the log seconds later and out of order with the other workerd's. Line-buffered (coreutils'
  // stdbuf), each line arrives as V8 prints it.
  const lineBuffered = path.join(tmp, 'workerd');
  writeFileSync(lineBuffered, `#!/bin/sh\nexec stdbuf -oL '${workerdBinary}' "$@"\n`);
  chmodSync(lineBuffered, 0o755);
  const env = { MINIFLARE_WORKERD_V8_FLAGS: `${EXPOSE_GC_ENV.MINIFLARE_WORKERD_V8_FLAGS} --trace-gc-nvp`, MINIFLARE_WORKERD_PATH: lineBuffered };
  /** A wrangler dev at its default log level, its console (V8's report included) into `name`.log. */
  const start = async (name: string, options: { persistTo: string; config?: string; vars?: Record<string, string> }) => {
    const port = await freeLoopbackPort();
    const inspectorPort = await freeLoopbackPort();
    const log = path.join(tmp, `${name}.log`);
    const fd = openSync(log, 'w');
    const child = await startLocalWorker({ ...options, port, inspectorPort, stdio: ['ignore', fd, fd], detached: true, env });
    return { child, port, inspectorPort, log };
  };
  const platform = await start('platform', { persistTo, vars: { ADMIN_PASSWORD: 'bench' } });
  const floor = await start('floor', { persistTo: path.join(tmp, 'floor'), config: path.join(projectRoot, 'bench', 'd1-ceiling', 'wrangler.assets.toml') });
  try {
    const participants = await setUpCrowd(`http://127.0.0.1:${platform.port}`, PARTICIPANTS);
    await warmModelCache(participants);
    /** `soak` between two collections forced in the Worker's isolate, which mark it in the log. */
    const bracketed = async (side: typeof platform, soak: () => Promise<{ ms: number[]; errors: string[] }>) => {
      const heap = await connectIsolateHeap(side.inspectorPort);
      const liveBefore = await heap.liveBytes();
      await sleep(2000);
      const { ms, errors } = await soak();
      await sleep(2000);
      const liveAfter = await heap.liveBytes();
      await sleep(500);
      heap.close();
      if (collectionsIn(side.log).filter((c) => c.forced).length < 2) throw new Error(`no forced collection reached ${side.log}: is workerd's output line-buffered?`);
      if (errors.length > 0) throw new Error(`${errors.length} calls failed: ${errors[0]}`);
      // What the Worker's isolate holds right after a forced full collection, before and after the soak.
      const liveMb = { before: round(liveBefore / 2 ** 20, 2), after: round(liveAfter / 2 ** 20, 2) };
      return { latency: latencySummary(ms), worker_live_heap_mb: liveMb };
    };
    const platformSoak = await bracketed(platform, async () => {
      const { answerMs, errors } = await atStudyPace(participants, SOAK_SECONDS);
      return { ms: answerMs, errors };
    });
    console.log('platform', platformSoak);
    const floorSoak = await bracketed(floor, () => insertsAtStudyPace(`http://127.0.0.1:${floor.port}/api/answers`, PARTICIPANTS, SOAK_SECONDS));
    console.log('floor', floorSoak);
    await killLocalWorker(platform.child, 'SIGTERM');
    await killLocalWorker(floor.child, 'SIGTERM');
    const report = {
      generated_at: new Date().toISOString(),
      machine: machineLine(),
      method:
        "wrangler dev (local D1/R2) over loopback at its default log level, every workerd isolate's collections reported by V8 (--trace-gc-nvp); a pause is V8's own main-thread figure for that collection, its phases V8's own timing of the phases inside it",
      config: { participants: PARTICIPANTS, soak_seconds: SOAK_SECONDS },
      platform: { answers: platformSoak.latency, worker_live_heap_mb: platformSoak.worker_live_heap_mb, pauses: attribute(collectionsIn(platform.log)) },
      floor: { inserts: floorSoak.latency, worker_live_heap_mb: floorSoak.worker_live_heap_mb, pauses: attribute(collectionsIn(floor.log)) },
    };
    console.log(JSON.stringify(report, null, 2));
    writeBenchResult('gc-pauses', report);
  } finally {
    await killLocalWorker(platform.child, 'SIGTERM');
    await killLocalWorker(floor.child, 'SIGTERM');
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
