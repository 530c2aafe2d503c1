/**
 * `npm run bench:v8-flags`: does a set of V8 flags for the local workerd (V8_CANDIDATE_FLAGS,
 * `--optimize-for-size` by default) shorten the answer latency's tail at study pace? The platform
 * under them against the same platform under V8's defaults, in one run on this machine. Both
 * local Workers (wrangler dev, local D1/R2, throw-away state) get V8_PARTICIPANTS (1,000)
 * simulated participants each, set up and their models cached; then the crowds take turns at
 * study pace, V8_SEGMENT_SECONDS (45) each in the order ABBA ABBA (V8_ROUNDS, 2), so a drift in
 * the VM's speed falls on both sides alike. Writes bench/results/v8-flags.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareLocalState } from '../ml-assets/lib/seed';
import { freeLoopbackPort, killLocalWorker, startLocalWorker } from '../ml-assets/lib/wrangler';
import { atStudyPace, setUpCrowd, warmModelCache, type Participant } from './lib/crowd';
import { machineLine, quantile, round, writeBenchResult } from './lib/results';

const PARTICIPANTS = Number(process.env.V8_PARTICIPANTS ?? 1000);
const SEGMENT_SECONDS = Number(process.env.V8_SEGMENT_SECONDS ?? 45);
const ROUNDS = Number(process.env.V8_ROUNDS ?? 2);
const CANDIDATE_FLAGS = (process.env.V8_CANDIDATE_FLAGS ?? '--optimize-for-size').split(' ').filter(Boolean);

type Side = { name: 'candidate_flags' | 'v8_defaults'; flags: string[]; persistTo: string; crowd: Participant[]; answerMs: number[]; failed: number; segments: (number | null)[] };

async function main() {
  const sides: Side[] = [
    { name: 'candidate_flags', flags: CANDIDATE_FLAGS, persistTo: '', crowd: [], answerMs: [], failed: 0, segments: [] },
    { name: 'v8_defaults', flags: [], persistTo: '', crowd: [], answerMs: [], failed: 0, segments: [] },
  ];
  const workers = [];
  try {
    for (const side of sides) {
      side.persistTo = mkdtempSync(path.join(os.tmpdir(), `xdl-bench-v8-${side.name}-`));
      await prepareLocalState(side.persistTo);
      const port = await freeLoopbackPort();
      workers.push(
        await startLocalWorker({
          port,
          persistTo: side.persistTo,
          vars: { ADMIN_PASSWORD: 'bench' },
          stdio: 'ignore',
          detached: true,
          logLevel: 'warn',
          // miniflare passes no flags when the variable is empty.
          env: { MINIFLARE_WORKERD_V8_FLAGS: side.flags.join(' ') },
        }),
      );
      side.crowd = await setUpCrowd(`http://127.0.0.1:${port}`, PARTICIPANTS);
      await warmModelCache(side.crowd);
      console.log(`${side.name}: ${PARTICIPANTS} participants set up`);
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of [sides[0]!, sides[1]!, sides[1]!, sides[0]!]) {
        const { answerMs, errors } = await atStudyPace(side.crowd, SEGMENT_SECONDS);
        side.answerMs.push(...answerMs);
        side.failed += errors.length;
        const sorted = [...answerMs].sort((a, b) => a - b);
        side.segments.push(round(quantile(sorted, 0.99)));
        console.log(`round ${r + 1} ${side.name}: ${answerMs.length} answers, p99 ${round(quantile(sorted, 0.99), 0)} ms`);
      }
    }
    const summary = Object.fromEntries(
      sides.map((side) => {
        const sorted = [...side.answerMs].sort((a, b) => a - b);
        return [
          side.name,
          {
            v8_flags: side.flags,
            answers: sorted.length,
            failed_answers: side.failed,
            answer_p50_ms: round(quantile(sorted, 0.5)),
            answer_p95_ms: round(quantile(sorted, 0.95)),
            answer_p99_ms: round(quantile(sorted, 0.99)),
            segment_p99_ms: side.segments,
          },
        ];
      }),
    );
    const report = {
      generated_at: new Date().toISOString(),
      machine: machineLine(),
      method: 'two local Workers (wrangler dev, local D1/R2) over loopback, one per V8 setting; their crowds answer at study pace in turns, ABBA per round',
      config: { participants_per_side: PARTICIPANTS, segment_seconds: SEGMENT_SECONDS, rounds: ROUNDS },
      sides: summary,
    };
    console.log(JSON.stringify(report.sides, null, 2));
    writeBenchResult('v8-flags', report);
  } finally {
    for (const worker of workers) await killLocalWorker(worker, 'SIGTERM');
    for (const side of sides) if (side.persistTo) rmSync(side.persistTo, { recursive: true, force: true });
  }
}

await main();
