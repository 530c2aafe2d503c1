/**
 * `npm run bench:storage`: what one finished participant costs in D1. Participants walk the whole
 * study through the real Worker (`wrangler dev`, local D1): entry, consent, 200 pre-experiment
 * answers each sent alone then in the final full send, the participant model, 50 main cases
 * (explanation, checkpoints, integrated answer) and the post-survey, as the SPA sends them. The
 * database's pages are counted per table and index (SQLite's dbstat) before and after, so the
 * figure is the participants' own growth, not the seeded cases and models. The walk is made
 * RUNS times (3), each on a fresh database: how B-tree pages split depends on the order answers
 * arrive in, so the figure moves by a kilobyte or two from run to run; the spread is recorded and
 * the goal is judged on the largest. Writes bench/results/storage.json with what one 10 GB D1
 * database would hold.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { prepareLocalState } from '../ml-assets/lib/seed';
import { freeLoopbackPort, killLocalWorker, startLocalWorker } from '../ml-assets/lib/wrangler';
import {
  ApiClient,
  datasetFor,
  enter,
  newAcknowledged,
  preCaseIds,
  sendMainCase,
  sendPostSurvey,
  sendPreAnswer,
  sendPreBatch,
  trainAndStartMain,
} from '../test/helpers/simulated-participant';
import { d1File } from './lib/local-d1';
import { machineLine, writeBenchResult } from './lib/results';

// 24 participants (8 per dataset): a page of 4 KB is then 171 B per participant, so where pages split moves the figure less.
const PARTICIPANTS = Number(process.env.XDL_STORAGE_PARTICIPANTS ?? 24);
const RUNS = Number(process.env.XDL_STORAGE_RUNS ?? 3);
/** D1's largest database (paid plan). */
const D1_DATABASE_BYTES = 10 * 1000 ** 3;
/** Issue #45's goal for one finished participant. */
const GOAL_BYTES = 100 * 1024;

type Usage = Map<string, { bytes: number; payload: number }>;

/** Bytes of every table and index: the pages each uses, and the bytes of row data in them. */
function usage(file: string): Usage {
  const db = new DatabaseSync(file);
  try {
    // The stopped Worker's processes may still hold the file for a moment: wait for them, not fail.
    db.exec('pragma busy_timeout = 30000');
    db.exec('pragma wal_checkpoint(truncate)');
    const rows = db.prepare('select name, sum(pgsize) as bytes, sum(payload) as payload from dbstat group by name').all() as { name: string; bytes: number; payload: number }[];
    return new Map(rows.map((r) => [r.name, { bytes: r.bytes, payload: r.payload }]));
  } finally {
    db.close();
  }
}

async function participant(index: number, baseUrl: string): Promise<void> {
  const client = new ApiClient({ baseUrl, clientIp: `10.9.${index >> 8}.${index & 255}` });
  const ack = newAcknowledged(datasetFor(index));
  await enter(client, ack);
  const preIds = await preCaseIds(client, ack.id);
  for (const caseId of preIds) await sendPreAnswer(client, ack, caseId);
  if (!(await sendPreBatch(client, ack, preIds))) throw new Error(`${ack.id}: the final send did not complete the pre-experiment`);
  const caseIds = await trainAndStartMain(client, ack);
  for (const [i, caseId] of caseIds.entries()) await sendMainCase(client, ack, caseId, i);
  await sendPostSurvey(client, ack);
}

type Growth = { name: string; bytes_per_participant: number; payload_per_participant: number };

/** One walk of PARTICIPANTS on a fresh database: growth per table and index, per participant. */
async function oneRun(): Promise<{ growth: Growth[]; perParticipant: number; walkSeconds: number }> {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), 'xdl-storage-bench-'));
  try {
    await prepareLocalState(persistTo);
    const file = d1File(persistTo);
    const before = usage(file);
    const port = await freeLoopbackPort();
    const worker = await startLocalWorker({ port, persistTo, vars: { ADMIN_PASSWORD: 'bench' }, stdio: 'ignore', detached: true });
    const started = performance.now();
    try {
      // A few at a time, as a study's participants overlap.
      for (let i = 0; i < PARTICIPANTS; i += 4) {
        await Promise.all(Array.from({ length: Math.min(4, PARTICIPANTS - i) }, (_, k) => participant(i + k, `http://127.0.0.1:${port}`)));
        console.log(`storage bench: ${Math.min(i + 4, PARTICIPANTS)} of ${PARTICIPANTS} participants finished`);
      }
    } finally {
      await killLocalWorker(worker, 'SIGTERM');
    }
    const walkSeconds = (performance.now() - started) / 1000;
    const after = usage(file);
    const growth = [...after]
      .map(([name, a]) => {
        const b = before.get(name) ?? { bytes: 0, payload: 0 };
        return { name, bytes_per_participant: Math.round((a.bytes - b.bytes) / PARTICIPANTS), payload_per_participant: Math.round((a.payload - b.payload) / PARTICIPANTS) };
      })
      .filter((g) => g.bytes_per_participant !== 0 || g.payload_per_participant !== 0)
      .sort((x, y) => y.bytes_per_participant - x.bytes_per_participant);
    return { growth, perParticipant: growth.reduce((s, g) => s + g.bytes_per_participant, 0), walkSeconds };
  } finally {
    rmSync(persistTo, { recursive: true, force: true });
  }
}

async function main() {
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    runs.push(await oneRun());
    console.log(`storage bench: run ${r + 1} of ${RUNS}: ${(runs.at(-1)!.perParticipant / 1024).toFixed(1)} KB per finished participant`);
  }
  const figures = runs.map((r) => r.perParticipant).sort((a, b) => a - b);
  const perParticipant = figures[Math.floor(figures.length / 2)]!;
  const largest = figures.at(-1)!;
  const { growth, walkSeconds } = runs.find((r) => r.perParticipant === perParticipant)!;
  {
    const report = {
      measured_at: new Date().toISOString(),
      machine: machineLine(),
      method:
        'finished participants walked through the real Worker (wrangler dev, local D1); growth of every table and index in SQLite pages (dbstat pgsize, the bytes the database file holds for it) and in row data (payload), after minus before, per participant',
      participants: PARTICIPANTS,
      runs: RUNS,
      walk_seconds: Math.round(walkSeconds),
      // The median run's figure; every run's, and the goal judged on the largest.
      bytes_per_finished_participant: perParticipant,
      bytes_per_finished_participant_by_run: runs.map((r) => r.perParticipant),
      spread: { smallest: figures[0], largest },
      goal: { bytes_at_most: GOAL_BYTES, met: largest <= GOAL_BYTES, margin_bytes: GOAL_BYTES - largest },
      one_database: { bytes: D1_DATABASE_BYTES, finished_participants: Math.floor(D1_DATABASE_BYTES / perParticipant) },
      by_table_or_index: growth,
    };
    writeBenchResult('storage', report);
    console.log(
      `\none finished participant: ${(perParticipant / 1024).toFixed(1)} KB (runs ${figures.map((f) => (f / 1024).toFixed(1)).join(', ')} KB; goal ≤ ${GOAL_BYTES / 1024} KB on the largest: ${report.goal.met ? 'met' : 'NOT met'}); one 10 GB database holds ${report.one_database.finished_participants.toLocaleString('en')}`,
    );
    for (const g of growth.slice(0, 14)) console.log(`  ${g.name.padEnd(40)} ${String(g.bytes_per_participant).padStart(8)} B (rows ${g.payload_per_participant} B)`);
  }
}

await main();
