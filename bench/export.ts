/**
 * `npm run bench:export`: the researcher's pre-experiment export of 250,000 answers (1,250
 * participants × 200), served by the real Worker inside workerd (`wrangler dev`, local D1/R2),
 * timed beside a plain `sqlite3 -csv` dump of the same table from the same database file in the
 * same run, interleaved, with the workerd processes' memory sampled throughout.
 * Writes bench/results/export.json.
 *
 * The rows are written straight into the local D1 file (node:sqlite) before the Worker starts:
 * what is measured is the export, not 250,000 API calls.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { d1File } from './lib/local-d1';
import { prepareLocalState } from '../ml-assets/lib/seed';
import { freeLoopbackPort, killLocalWorker, startLocalWorker } from '../scripts/lib/wrangler';
import { connectIsolateHeap } from './lib/isolate-heap';
import { workerdUsage } from './lib/workerd-processes';
import { machineLine, writeBenchResult } from './lib/results';

const PARTICIPANTS = Number(process.env.XDL_EXPORT_PARTICIPANTS ?? 1250);
const ANSWERS = 200;
const REPETITIONS = Number(process.env.XDL_EXPORT_REPETITIONS ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Participants, consented sessions and their answers, as the API would have stored them. */
function fillAnswers(file: string) {
  const db = new DatabaseSync(file);
  const cases = db.prepare("select case_id, ground_truth from cases where dataset_type = 'adult_income' and pool = 'pre_experiment' order by case_number limit ?").all(ANSWERS) as {
    case_id: string;
    ground_truth: number;
  }[];
  if (cases.length < ANSWERS) throw new Error(`only ${cases.length} pre-experiment cases seeded`);
  const now = new Date().toISOString();
  const person = db.prepare('insert into participants (participant_code, display_name, created_at, updated_at) values (?, ?, ?, ?)');
  const session = db.prepare(
    "insert into sessions (session_id, participant_id, dataset_type, current_phase, consented_at, pre_completed_at, created_at, updated_at) values (?, ?, 'adult_income', 'main_experiment', ?, ?, ?, ?)",
  );
  const answer = db.prepare(
    `insert into pre_experiment_responses (participant_id, session_id, dataset_type, case_id, case_number, prediction, confidence, response_time_ms, reasoning, ground_truth, case_data, created_at)
     values (?, ?, 'adult_income', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.exec('begin');
  for (let p = 0; p < PARTICIPANTS; p++) {
    const code = `B${String(p).padStart(7, '0')}`;
    const { lastInsertRowid: id } = person.run(code, code, now, now);
    session.run(code, id, now, now, now, now);
    cases.forEach((c, i) => {
      // Some reasons carry what a writer must quote: commas, quotes, line breaks, Japanese.
      const reasoning = i % 10 === 0 ? `理由, "${p}"\n${i}` : null;
      // As the Worker stores them: the case shown is its row in `cases` (no copy).
      answer.run(id, code, c.case_id, i + 1, (p + i) % 2, 1 + ((p * 7 + i) % 5), 1500 + ((p * 31 + i * 17) % 9000), reasoning, c.ground_truth, null, now);
    });
  }
  db.exec('commit');
  const rows = (db.prepare('select count(*) as n from pre_experiment_responses').get() as { n: number }).n;
  db.close();
  return rows;
}

const SQLITE_QUERY = `select r.id, p.id as user_id, p.participant_code as user_name, r.session_id, r.dataset_type, r.case_id, r.case_number, r.prediction,
  r.confidence, r.ground_truth, r.prediction = r.ground_truth as is_correct, r.response_time_ms, r.reasoning, r.created_at
  from pre_experiment_responses r join participants p on p.id = r.participant_id order by r.id`;

async function main() {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), 'xdl-export-bench-'));
  const outCsv = path.join(persistTo, 'sqlite-dump.csv');
  try {
    await prepareLocalState(persistTo);
    const file = d1File(persistTo);
    const t0 = performance.now();
    const rows = fillAnswers(file);
    console.log(`export bench: ${rows} answers written in ${Math.round(performance.now() - t0)} ms`);

    const port = await freeLoopbackPort();
    const inspectorPort = await freeLoopbackPort();
    const worker = await startLocalWorker({ port, inspectorPort, persistTo, vars: { ADMIN_PASSWORD: 'bench' }, stdio: 'ignore', detached: true });
    const heap = await connectIsolateHeap(inspectorPort);
    try {
      const base = `http://127.0.0.1:${port}`;
      const login = await fetch(`${base}/api/admin/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ password: 'bench' }) });
      if (login.status !== 200) throw new Error(`login ${login.status}`);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const idle = workerdUsage(worker.pid!).rssMb;
      const MB = 1024 * 1024;
      const heapIdle = (await heap.usedBytes()) / MB;
      let heapPeak = heapIdle;

      const worker_ms: number[] = [];
      const written_ms: number[] = [];
      const sqlite_ms: number[] = [];
      let peak = idle;
      let exportBytes = 0;
      let exportRows = 0;
      const exportOnce = async (sampleHeap: boolean) => {
        // The workerd processes' memory every 20 ms while the export runs; the isolate's heap too
        // when asked (the inspector slows the Worker, so timed runs go without it).
        const sampler = setInterval(() => {
          peak = Math.max(peak, workerdUsage(worker.pid!).rssMb);
          if (sampleHeap) void heap.usedBytes().then((b) => (heapPeak = Math.max(heapPeak, b / MB)));
        }, 20);
        const start = performance.now();
        const res = await fetch(`${base}/api/enhanced-export/pre-experiment`, { headers: { Cookie: cookie } });
        // Headers arrive once the export is written to R2; the body is the stored copy read back.
        written_ms.push(performance.now() - start);
        const text = await res.text();
        const ms = performance.now() - start;
        clearInterval(sampler);
        if (res.status !== 200) throw new Error(`export ${res.status}: ${text.slice(0, 200)}`);
        exportBytes = Buffer.byteLength(text);
        exportRows = text.split('\r\n').filter((l) => /^\d+,/.test(l)).length;
        return ms;
      };
      for (let rep = 0; rep < REPETITIONS; rep++) {
        worker_ms.push(await exportOnce(false));
        // The same table by the sqlite3 command-line shell, from the same file.
        const s = performance.now();
        execFileSync('sqlite3', ['-readonly', '-csv', '-header', file, SQLITE_QUERY], { stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 1 << 30 });
        sqlite_ms.push(performance.now() - s);
        console.log(`  rep ${rep + 1}: worker ${Math.round(worker_ms.at(-1)!)} ms (written ${Math.round(written_ms.at(-1)!)} ms), sqlite3 ${Math.round(sqlite_ms.at(-1)!)} ms, workerd peak ${peak.toFixed(0)} MB`);
      }
      const heapRunMs = await exportOnce(true);
      console.log(`  with the inspector reading the heap: ${Math.round(heapRunMs)} ms, isolate heap peak ${heapPeak.toFixed(1)} MB`);
      writeFileSync(outCsv, execFileSync('sqlite3', ['-readonly', '-csv', '-header', file, SQLITE_QUERY], { maxBuffer: 1 << 30 }));
      const report = {
        benchmark: 'export',
        measured_at: new Date().toISOString(),
        machine: machineLine(),
        rows,
        exported_rows: exportRows,
        export_bytes: exportBytes,
        sqlite3_dump_bytes: statSync(outCsv).size,
        repetitions: REPETITIONS,
        worker_export_ms_median: Math.round(median(worker_ms)),
        worker_written_to_r2_ms_median: Math.round(median(written_ms)),
        sqlite3_dump_ms_median: Math.round(median(sqlite_ms)),
        ratio_worker_to_sqlite3: Number((median(worker_ms) / median(sqlite_ms)).toFixed(2)),
        isolate_heap_idle_mb: Number(heapIdle.toFixed(1)),
        isolate_heap_peak_mb: Number(heapPeak.toFixed(1)),
        isolate_limit_mb: 128,
        workerd_rss_idle_mb: Number(idle.toFixed(1)),
        workerd_rss_peak_mb: Number(peak.toFixed(1)),
        workerd_rss_growth_mb: Number((peak - idle).toFixed(1)),
        note:
          "isolate_heap_* is the Worker isolate's V8 heap, read through the inspector every 20 ms while the exports ran: what Cloudflare's 128 MB per-isolate limit applies to. workerd_rss_* is the whole local workerd process, which also runs the local D1 and R2 (their caches and the stored export copies), so it is no measure of the Worker. The export holds one D1 page and at most one 5 MiB R2 part at a time, whatever the table's size.",
      };
      writeBenchResult('export', report);
      console.log(JSON.stringify(report, null, 2));
    } finally {
      heap.close();
      await killLocalWorker(worker, 'SIGTERM');
    }
  } finally {
    rmSync(persistTo, { recursive: true, force: true });
  }
}

await main();
