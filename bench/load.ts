/**
 * `npm run bench:load`: the platform under a crowd, on the local Worker (`wrangler dev`, local
 * D1/R2, throw-away state) over loopback. Writes bench/results/load.json.
 *
 * 1. Saturation, first, while the workerds are fresh: LOAD_CONCURRENCY (32) callers send
 *    pre-experiment answers back to back for LOAD_ROUND_SECONDS (10), interleaved round by round
 *    (LOAD_ROUNDS, 5) with the same callers sending single-row inserts to a minimal Worker on its
 *    own local D1 (bench/d1-ceiling), run twice: served the way the platform is (static assets,
 *    the Worker first for /api/*, so wrangler's asset router sits in front of every request as it
 *    does of the platform's) and bare. The platform's answer throughput as a share of the first
 *    is the target; the bare one shows what the asset router costs locally. Each side's workerd
 *    CPU and memory growth per request too.
 * 2. Study pace (the soak): LOAD_PARTICIPANTS simulated participants (1,000), nine in ten in the
 *    pre-experiment and one in ten in the main experiment (explanation + case), each giving one
 *    answer every ~9 s for LOAD_PACE_SECONDS (180), about 110 answers/s in all. Latency
 *    p50/p95/p99 per endpoint (and the load generator's own event-loop delay, which is in every
 *    latency it times); the workerd processes' memory sampled every 2 s. The memory target is
 *    what the Worker's isolate still holds right after a full collection (forced through the V8
 *    inspector) with no request in flight, read just before the soak and just after it, the
 *    model cache filled beforehand by one main case of every main participant: the same state
 *    twenty thousand answers apart, and no forced pause inside the timed soak.
 * 3. The floor: the platform's crowd and the same number of callers sending single-row inserts to
 *    the minimal Worker (served the way the platform is) at the same pace take turns,
 *    LOAD_FLOOR_SEGMENT_SECONDS (45) each, platform–floor–floor–platform: the answer-save latency
 *    beside what a Worker that does nothing but insert gets from wrangler dev on this machine.
 *    Afterwards every acknowledged answer is looked up in D1 (lost = acknowledged but absent).
 *
 * Every Worker runs at wrangler's `--log-level warn`: its line per request is the dev console's,
 * not the Worker's, and on two cores its CPU is taken from the requests being measured.
 *
 * Each simulated participant has its own client address (CF-Connecting-IP, which a local run
 * takes as the caller sends it), as a crowd behind Cloudflare's edge would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import os from 'node:os';
import path from 'node:path';
import { connectIsolateHeap, EXPOSE_GC_ENV } from './lib/isolate-heap';
import { workerdUsage } from './lib/workerd-processes';
import { prepareLocalState } from '../ml-assets/lib/seed';
import { freeLoopbackPort, killLocalWorker, localD1Rows, startLocalWorker } from '../ml-assets/lib/wrangler';
import { projectRoot } from '../ml-assets/lib/paths';
import { preAnswerFor, sendPreAnswer } from '../test/helpers/simulated-participant';
import { ANSWER_EVERY_MS, atStudyPace, insertsAtStudyPace, MAIN_SHARE, setUpCrowd, warmModelCache } from './lib/crowd';
import { latencySummary, machineLine, quantile, round, writeBenchResult } from './lib/results';

const PARTICIPANTS = Number(process.env.LOAD_PARTICIPANTS ?? 1000);
const PACE_SECONDS = Number(process.env.LOAD_PACE_SECONDS ?? 180);
const CONCURRENCY = Number(process.env.LOAD_CONCURRENCY ?? 32);
const ROUND_SECONDS = Number(process.env.LOAD_ROUND_SECONDS ?? 10);
const ROUNDS = Number(process.env.LOAD_ROUNDS ?? 5);
const FLOOR_SEGMENT_SECONDS = Number(process.env.LOAD_FLOOR_SEGMENT_SECONDS ?? 45);
/** The calls that save an answer (the explanation is timed apart). */
const SAVE_ENDPOINTS = ['/api/experiments/pre-experiment/responses', '/api/experiments/main/integrated-response'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

const workerdRssMb = (root: number) => workerdUsage(root).rssMb;

async function main() {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), 'xdl-bench-load-'));
  const ceilingState = mkdtempSync(path.join(os.tmpdir(), 'xdl-bench-ceiling-'));
  const frontedCeilingState = mkdtempSync(path.join(os.tmpdir(), 'xdl-bench-ceiling-assets-'));
  await prepareLocalState(persistTo);
  const port = await freeLoopbackPort();
  const inspectorPort = await freeLoopbackPort();
  const worker = await startLocalWorker({
    port,
    inspectorPort,
    persistTo,
    vars: { ADMIN_PASSWORD: 'bench' },
    stdio: 'ignore',
    detached: true,
    env: EXPOSE_GC_ENV,
    logLevel: 'warn',
  });
  // The same V8 flags and log level on every side.
  const startCeiling = async (config: string, persistTo: string) => {
    const ceilingPort = await freeLoopbackPort();
    const child = await startLocalWorker({
      port: ceilingPort,
      persistTo,
      config: path.join(projectRoot, 'bench', 'd1-ceiling', config),
      stdio: 'ignore',
      detached: true,
      env: EXPOSE_GC_ENV,
      logLevel: 'warn',
    });
    return { child, url: `http://127.0.0.1:${ceilingPort}/api/answers` };
  };
  const fronted = await startCeiling('wrangler.assets.toml', frontedCeilingState);
  const bare = await startCeiling('wrangler.toml', ceilingState);
  const base = `http://127.0.0.1:${port}`;
  const timings = new Map<string, number[]>();
  const statuses = new Map<number, number>();
  let recording = false;
  /** Save latencies of the platform's segments beside the floor, apart from the soak's. */
  let comparing = false;
  const comparedSaveMs: number[] = [];
  const onTiming = (endpoint: string, ms: number, status: number) => {
    if (comparing && SAVE_ENDPOINTS.includes(endpoint)) comparedSaveMs.push(ms);
    if (!recording) return;
    (timings.get(endpoint) ?? timings.set(endpoint, []).get(endpoint)!).push(ms);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  };

  try {
    // ── Set-up: every participant enters and consents; one in ten gets to the main experiment.
    const setupStarted = performance.now();
    const participants = await setUpCrowd(base, PARTICIPANTS, onTiming);
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    console.log(`set-up: ${PARTICIPANTS} participants in ${setupSeconds.toFixed(0)} s`);

    // ── Saturation, interleaved with the raw insert ceiling (before the soak, so neither workerd
    // has been grown by it).
    const pre = participants.filter((p) => !p.main);
    let cursor = 0;
    const nextAnswer = () => {
      for (let tries = 0; tries < pre.length; tries++) {
        const p = pre[cursor++ % pre.length]!;
        if (p.next < p.cases.length) return { p, caseId: p.cases[p.next++]! };
      }
      throw new Error('no unanswered cases left for the saturation rounds');
    };
    /** Requests per second, and the serving workerd's CPU and memory growth per request, over one round. */
    const saturate = async (root: number, send: () => Promise<void>) => {
      const before = workerdUsage(root);
      const end = performance.now() + ROUND_SECONDS * 1000;
      let done = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (performance.now() < end) {
            await send();
            done++;
          }
        }),
      );
      const after = workerdUsage(root);
      return {
        perSecond: done / ((performance.now() - started) / 1000),
        cpuMsPerRequest: ((after.cpuSeconds - before.cpuSeconds) * 1000) / done,
        rssKbPerRequest: ((after.rssMb - before.rssMb) * 1024) / done,
      };
    };
    type Round = Awaited<ReturnType<typeof saturate>>;
    const insertInto = (ceiling: Awaited<ReturnType<typeof startCeiling>>) => () =>
      saturate(ceiling.child.pid!, async () => {
        const { p, caseId } = nextAnswer();
        const res = await fetch(ceiling.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ session_id: p.ack.id, case_id: caseId, ...preAnswerFor(p.ack.id, caseId) }),
        });
        if (res.status !== 201) throw new Error(`ceiling worker answered ${res.status}`);
        await res.arrayBuffer();
      });
    const sides = {
      platform: () =>
        saturate(worker.pid!, async () => {
          const { p, caseId } = nextAnswer();
          await sendPreAnswer(p.client, p.ack, caseId);
        }),
      raw: insertInto(fronted),
      rawBare: insertInto(bare),
    };
    const rounds: Record<keyof typeof sides, Round[]> = { platform: [], raw: [], rawBare: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // Each round in another order, so no side always follows the same one.
      const order = (Object.keys(sides) as (keyof typeof sides)[]).map((_, i, keys) => keys[(i + r) % keys.length]!);
      for (const side of order) rounds[side].push(await sides[side]());
      const last = (side: keyof typeof sides) => rounds[side].at(-1)!.perSecond.toFixed(0);
      console.log(`round ${r + 1}: platform ${last('platform')} answers/s · raw insert ${last('raw')} rows/s (bare ${last('rawBare')})`);
    }
    const platformRounds = rounds.platform;
    const ceilingRounds = rounds.raw;

    // ── Study pace (the soak). First every main participant answers one case (untimed), so the
    // Worker's model cache holds before the soak what it holds after it. The inspector is
    // connected only now, so saturation ran without it.
    await warmModelCache(participants);
    const heap = await connectIsolateHeap(inspectorPort);
    // The least of three full collections a second apart, no request in flight.
    const quietLiveMb = async () => {
      const mb: number[] = [];
      for (let i = 0; i < 3; i++) {
        if (i > 0) await sleep(1000);
        mb.push((await heap.liveBytes()) / 2 ** 20);
      }
      return Math.min(...mb);
    };
    const liveBeforeMb = await quietLiveMb();
    const memory: { t: number; mb: number }[] = [];
    const paceStarted = performance.now();
    const sinceStart = () => (performance.now() - paceStarted) / 1000;
    const sampler = setInterval(() => memory.push({ t: sinceStart(), mb: workerdRssMb(worker.pid!) }), 2000);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    memory.push({ t: 0, mb: workerdRssMb(worker.pid!) });
    recording = true;
    const { answerMs, errors } = await atStudyPace(participants, PACE_SECONDS);
    for (const error of errors) console.error(error);
    recording = false;
    clearInterval(sampler);
    loopDelay.disable();
    const liveAfterMb = await quietLiveMb();
    heap.close();
    const paceSeconds = (performance.now() - paceStarted) / 1000;
    const paceAnswers = answerMs.length;

    // ── The floor: the same pace of single-row inserts into the minimal Worker (served as the
    // platform is), in turns with the platform's crowd (ABBA), so both meet the same VM.
    const floorMs: number[] = [];
    for (const side of ['platform', 'floor', 'floor', 'platform'] as const) {
      if (side === 'floor') {
        const floor = await insertsAtStudyPace(fronted.url, PARTICIPANTS, FLOOR_SEGMENT_SECONDS);
        if (floor.errors.length > 0) throw new Error(`the floor Worker failed ${floor.errors.length} inserts: ${floor.errors[0]}`);
        floorMs.push(...floor.ms);
      } else {
        comparing = true;
        const { errors: segmentErrors } = await atStudyPace(participants, FLOOR_SEGMENT_SECONDS);
        comparing = false;
        for (const error of segmentErrors) console.error(error);
        errors.push(...segmentErrors);
      }
    }

    const failed = errors.length;
    // Every acknowledged answer must be in D1, and nothing else.
    const storedPre = localD1Rows<{ n: number }>(persistTo, 'select count(*) as n from pre_experiment_responses')[0]!.n;
    const storedMain = localD1Rows<{ n: number }>(persistTo, 'select count(*) as n from main_experiment_responses where completed_at is not null')[0]!.n;
    const ackedPre = participants.reduce((s, p) => s + p.ack.pre.size, 0);
    const ackedMain = participants.reduce((s, p) => s + p.ack.main.size, 0);
    const sessionIds = participants.map((p) => `'${p.ack.id}'`).join(',');
    const storedPerParticipant = new Map(
      localD1Rows<{ session_id: string; n: number }>(persistTo, `select session_id, count(*) as n from pre_experiment_responses where session_id in (${sessionIds}) group by session_id`).map(
        (r) => [r.session_id, r.n],
      ),
    );
    const lost = participants.filter((p) => (storedPerParticipant.get(p.ack.id) ?? 0) < p.ack.pre.size).length;

    const perEndpoint = Object.fromEntries([...timings].map(([endpoint, values]) => [endpoint, latencySummary(values)]));
    const answerSorted = [...answerMs].sort((a, b) => a - b);
    const paceMemory = memory.filter((m) => m.t <= paceSeconds);
    const secondHalf = paceMemory.filter((m) => m.t >= paceSeconds / 2);
    const memorySlope = slope(secondHalf.map((m) => ({ x: m.t / 60, y: m.mb })));
    const liveGrowth = (liveAfterMb - liveBeforeMb) / (paceSeconds / 60);
    const platform = median(platformRounds.map((r) => r.perSecond));
    const raw = median(ceilingRounds.map((r) => r.perSecond));
    const rawBare = median(rounds.rawBare.map((r) => r.perSecond));
    const answerP99 = quantile(answerSorted, 0.99)!;
    const saveP99 = SAVE_ENDPOINTS.map((e) => perEndpoint[e]?.p99_ms ?? Infinity);
    const report = {
      generated_at: new Date().toISOString(),
      machine: machineLine(),
      method:
        'wrangler dev (local D1/R2) over loopback; simulated participants through the real API (test/helpers/simulated-participant.ts), each with its own client address; latencies are per HTTP call',
      config: { participants: PARTICIPANTS, main_share: MAIN_SHARE, answer_every_ms: ANSWER_EVERY_MS, pace_seconds: PACE_SECONDS, concurrency: CONCURRENCY, round_seconds: ROUND_SECONDS, rounds: ROUNDS },
      setup_seconds: round(setupSeconds),
      study_pace: {
        seconds: round(paceSeconds),
        answers: paceAnswers,
        answers_per_second: round(paceAnswers / paceSeconds),
        // A main-experiment answer here is the explanation call and the case save together.
        answer_p50_ms: round(quantile(answerSorted, 0.5)),
        answer_p95_ms: round(quantile(answerSorted, 0.95)),
        answer_p99_ms: round(answerP99),
        per_endpoint: perEndpoint,
        // Node's monitorEventLoopDelay at 10 ms resolution: how long the load generator's 10 ms timer
        // took. What passes 10 ms is its own event loop running late, which is in every latency above.
        client_event_loop_delay_ms: { p50: round(loopDelay.percentile(50) / 1e6), p99: round(loopDelay.percentile(99) / 1e6), max: round(loopDelay.max / 1e6) },
        http_statuses: Object.fromEntries(statuses),
        failed_answers: failed,
        acknowledged: { pre: ackedPre, main: ackedMain },
        stored: { pre: storedPre, main: storedMain },
        participants_missing_an_acknowledged_answer: lost,
      },
      // The same pace against a Worker that only inserts each answer as one row (bench/d1-ceiling,
      // served as the platform is): what any Worker meets on this machine under wrangler dev.
      floor_at_study_pace: {
        order: 'platform, floor, floor, platform',
        segment_seconds: FLOOR_SEGMENT_SECONDS,
        platform_saves: latencySummary(comparedSaveMs),
        floor_inserts: latencySummary(floorMs),
      },
      memory: {
        workerd_rss_mb: memory.map((m) => ({ t_s: round(m.t), mb: round(m.mb) })),
        pace_start_mb: round(paceMemory[0]?.mb ?? null),
        pace_end_mb: round(paceMemory.at(-1)?.mb ?? null),
        second_half_slope_mb_per_minute: round(memorySlope, 2),
        // What the Worker's isolate still held right after a full collection, no request in flight.
        worker_live_heap_before_soak_mb: round(liveBeforeMb, 2),
        worker_live_heap_after_soak_mb: round(liveAfterMb, 2),
        worker_live_heap_growth_mb_per_minute: round(liveGrowth, 2),
      },
      saturation: {
        platform_answers_per_second: platformRounds.map((r) => round(r.perSecond)),
        // The minimal Worker served as the platform is (asset router in front), and bare.
        raw_insert_rows_per_second: ceilingRounds.map((r) => round(r.perSecond)),
        bare_raw_insert_rows_per_second: rounds.rawBare.map((r) => round(r.perSecond)),
        platform_median: round(platform),
        raw_median: round(raw),
        bare_raw_median: round(rawBare),
        ratio: round(platform / raw, 3),
        ratio_to_bare_raw: round(platform / rawBare, 3),
        // Where the time goes: CPU of the serving workerd processes (Worker, asset router, local D1, local limiter, proxy) per request.
        workerd_cpu_ms_per_request: Object.fromEntries(Object.entries(rounds).map(([side, rs]) => [side, round(median(rs.map((r) => r.cpuMsPerRequest)), 2)])),
        // Growth of the serving workerd's memory per request, the platform's Worker beside ones that hold nothing.
        workerd_rss_kb_per_request: Object.fromEntries(Object.entries(rounds).map(([side, rs]) => [side, round(median(rs.map((r) => r.rssKbPerRequest)))])),
      },
      targets: {
        answer_save_p99_under_100_ms: Math.max(...saveP99) < 100,
        none_lost: failed === 0 && lost === 0 && storedPre === ackedPre && storedMain === ackedMain,
        saturation_at_least_80_percent_of_raw: platform / raw >= 0.8,
        // The Worker's live heap: the workerd RSS also keeps the pages of collected garbage (see bench/README.md).
        memory_flat_under_1_mb_per_minute: Math.abs(liveGrowth) < 1,
        // The local emulator's own growth, measured on a Worker that holds nothing, is the yardstick.
        memory_growth_per_request_at_most_bare_worker_x1_5:
          median(platformRounds.map((r) => r.rssKbPerRequest)) <= 1.5 * Math.max(median(ceilingRounds.map((r) => r.rssKbPerRequest)), 1),
      },
    };
    console.log(JSON.stringify({ study_pace: { ...report.study_pace, per_endpoint: undefined }, floor_at_study_pace: report.floor_at_study_pace, memory: { ...report.memory, workerd_rss_mb: undefined }, saturation: report.saturation, targets: report.targets }, null, 2));
    writeBenchResult('load', report);
  } finally {
    await killLocalWorker(worker, 'SIGTERM');
    await killLocalWorker(fronted.child, 'SIGTERM');
    await killLocalWorker(bare.child, 'SIGTERM');
    for (const dir of [persistTo, ceilingState, frontedCeilingState]) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
