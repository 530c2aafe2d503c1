/**
 * `npm run bench:export`, two parts, each timed beside sqlite3 on the same database file in the
 * same run, interleaved, with the Worker isolate's heap read throughout:
 *
 * - the researcher's pre-experiment export of 250,000 answers (1,250 participants × 200), one
 *   request, beside a plain `sqlite3 -csv` dump of the same table;
 * - the all-data export, written in steps by the export Workflow, at 250,000 and 2,500,000 answers
 *   (XDL_EXPORT_SIZES, in participants), beside `sqlite3 .dump` of the whole database: rows out
 *   (the zip's pre-experiment and participants files) against rows in, its steps and the longest.
 *
 * Served by the real Worker inside workerd (`wrangler dev`, local D1/R2, Workflows). The rows are
 * written straight into the local D1 file (node:sqlite) before the Worker starts: what is measured
 * is the export, not millions of API calls. Writes bench/results/export.json.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { strFromU8, unzipSync } from 'fflate';
import { d1File } from './lib/local-d1';
import { D1_READ_PATH } from './export-floor/path';
import { projectRoot } from '../ml-assets/lib/paths';
import { configWithEntry } from '../ml-assets/lib/wrangler-config';
import { prepareLocalState } from '../ml-assets/lib/seed';
import { freeLoopbackPort, killLocalWorker, startLocalWorker } from '../ml-assets/lib/wrangler';
import { connectIsolateHeap } from './lib/isolate-heap';
import { workerdUsage } from './lib/workerd-processes';
import { machineLine, writeBenchResult } from './lib/results';

const PARTICIPANTS = Number(process.env.XDL_EXPORT_PARTICIPANTS ?? 1250);
/** Participants (× 200 answers) of each all-data measurement. */
const ALL_DATA_SIZES = (process.env.XDL_EXPORT_SIZES ?? '1250,12500').split(',').map(Number);
const ALL_DATA_REPETITIONS = Number(process.env.XDL_EXPORT_ALL_DATA_REPETITIONS ?? 2);
const ANSWERS = 200;
const REPETITIONS = Number(process.env.XDL_EXPORT_REPETITIONS ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Participants, consented sessions and their answers, as the API would have stored them. */
function fillAnswers(file: string, participantCount: number) {
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
  for (let p = 0; p < participantCount; p++) {
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

/**
 * The Worker on the state in `persistTo`, its isolate's heap and an admin session's cookie. With
 * `config`, the Worker of that copy of wrangler.toml (the platform's own with the D1 floor route).
 */
async function startSignedIn(persistTo: string, config?: string) {
  const port = await freeLoopbackPort();
  const inspectorPort = await freeLoopbackPort();
  const worker = await startLocalWorker({ port, inspectorPort, persistTo, vars: { ADMIN_PASSWORD: 'bench' }, stdio: 'ignore', detached: true, ...(config ? { config } : {}) });
  const heap = await connectIsolateHeap(inspectorPort);
  const base = `http://127.0.0.1:${port}`;
  const login = await fetch(`${base}/api/admin/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ password: 'bench' }) });
  if (login.status !== 200) throw new Error(`login ${login.status}`);
  return { worker, heap, base, cookie: (login.headers.get('set-cookie') ?? '').split(';')[0]! };
}

/** The pre-experiment table, one request, beside `sqlite3 -csv` of the same query. */
async function tableExport() {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), 'xdl-export-bench-'));
  const outCsv = path.join(persistTo, 'sqlite-dump.csv');
  try {
    await prepareLocalState(persistTo);
    const file = d1File(persistTo);
    const t0 = performance.now();
    const rows = fillAnswers(file, PARTICIPANTS);
    console.log(`export bench: ${rows} answers written in ${Math.round(performance.now() - t0)} ms`);

    const { worker, heap, base, cookie } = await startSignedIn(persistTo);
    try {
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
      return {
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
    } finally {
      heap.close();
      await killLocalWorker(worker, 'SIGTERM');
    }
  } finally {
    rmSync(persistTo, { recursive: true, force: true });
  }
}

/** Runs sqlite3 read-only on `file` with `args`, its output into `out`; returns the bytes written. */
function sqliteToFile(file: string, out: string, args: string[]) {
  const fd = openSync(out, 'w');
  try {
    execFileSync('sqlite3', ['-readonly', ...args.filter((a) => a.startsWith('-')), file, ...args.filter((a) => !a.startsWith('-'))], { stdio: ['ignore', fd, 'inherit'] });
  } finally {
    closeSync(fd);
  }
  return statSync(out).size;
}

/** Rows of a CSV that start with an integer id (the exports' first column); quoted line breaks continue a row. */
const idRows = (text: string) => text.split('\r\n').filter((l) => /^\d+,/.test(l)).length;

/** The all-data export of `participantCount` × 200 answers as the dashboard starts it (the Workflow), beside `sqlite3 .dump`. */
async function allDataExport(participantCount: number) {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), 'xdl-export-bench-'));
  try {
    await prepareLocalState(persistTo);
    const file = d1File(persistTo);
    const t0 = performance.now();
    fillAnswers(file, participantCount);
    const counts = new DatabaseSync(file, { readOnly: true });
    const rowsIn = {
      'pre-experiment.csv': (counts.prepare('select count(*) as n from pre_experiment_responses').get() as { n: number }).n,
      'participants.csv': (counts.prepare('select count(*) as n from participants').get() as { n: number }).n,
    };
    // The database's own tables (not SQLite's, D1's or wrangler's bookkeeping).
    const tables = (counts.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name not like 'd1_%' order by name").all() as { name: string }[]).map((t) => t.name);
    counts.close();
    console.log(`all-data bench: ${rowsIn['pre-experiment.csv']} answers written in ${Math.round(performance.now() - t0)} ms`);
    const { worker, heap, base, cookie } = await startSignedIn(persistTo, configWithEntry(path.join(projectRoot, 'bench', 'export-floor', 'worker.ts'), persistTo));
    try {
      const headers = { Cookie: cookie, Origin: base };
      const d1ReadMs: number[] = [];
      const MB = 1024 * 1024;
      const heapIdle = (await heap.usedBytes()) / MB;
      let heapPeak = heapIdle;
      const workerMs: number[] = [];
      const sqliteMs: number[] = [];
      const sqliteCsvMs: number[] = [];
      const sqliteRowsMs: number[] = [];
      let dumpBytes = 0;
      let csvDumpBytes = 0;
      let sameRowsBytes = 0;
      type Job = { id: string; status: string; rows: number; bytes: number; steps: number; longest_step_ms: number; failed_attempts: number; last_error: string | null };
      let last: Job | null = null;
      let longestStepMs = 0;
      let rowsOut: Record<string, number> = {};
      let sampledMs = 0;
      let everyExportWhole = true;
      // The timed repetitions, then one more with the isolate's heap read throughout, as the table
      // export above does: the inspector's readings run on the Worker's thread, so they are kept
      // out of the timed runs.
      for (let rep = 0; rep <= ALL_DATA_REPETITIONS; rep++) {
        const sampled = rep === ALL_DATA_REPETITIONS;
        // The sqlite3 runs leave the client's kept-alive connection idle for seconds, and the
        // server may close it just as the next request goes out: a GET that may be repeated finds out.
        await fetch(`${base}/api/admin/export-jobs`, { headers }).catch(() => fetch(`${base}/api/admin/export-jobs`, { headers }));
        const sampler = sampled ? setInterval(() => void heap.usedBytes().then((b) => (heapPeak = Math.max(heapPeak, b / MB))), 100) : undefined;
        const start = performance.now();
        const started = await fetch(`${base}/api/admin/export-jobs`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: '{}' });
        if (started.status !== 202) throw new Error(`export-jobs ${started.status}: ${await started.text()}`);
        let job = ((await started.json()) as { job: Job }).job;
        while (job.status === 'running') {
          await new Promise((r) => setTimeout(r, 200));
          job = ((await (await fetch(`${base}/api/admin/export-jobs/${job.id}`, { headers })).json()) as { job: Job }).job;
        }
        const ms = performance.now() - start;
        clearInterval(sampler);
        if (job.status !== 'completed') throw new Error(`export ${job.status}: ${job.last_error}`);
        last = job;
        longestStepMs = Math.max(longestStepMs, job.longest_step_ms);
        const zip = unzipSync(new Uint8Array(await (await fetch(`${base}/api/admin/export-jobs/${job.id}/file`, { headers })).arrayBuffer()), {
          filter: (f) => f.name in rowsIn,
        });
        rowsOut = Object.fromEntries(Object.keys(rowsIn).map((name) => [name, idRows(strFromU8(zip[name]!))]));
        everyExportWhole &&= Object.keys(rowsIn).every((k) => rowsOut[k] === rowsIn[k as keyof typeof rowsIn]);
        if (sampled) {
          sampledMs = ms;
          console.log(`  with the heap read: worker ${Math.round(ms)} ms in ${job.steps} steps (longest ${job.longest_step_ms} ms), heap peak ${heapPeak.toFixed(1)} MB`);
          continue;
        }
        workerMs.push(ms);
        // D1's share: the same pre-experiment pages read by the same Worker, nothing written.
        const d = performance.now();
        const read = (await (await fetch(`${base}${D1_READ_PATH}`, { headers })).json()) as { rows: number };
        d1ReadMs.push(performance.now() - d);
        if (read.rows !== rowsIn['pre-experiment.csv']) throw new Error(`the D1 floor read ${read.rows} rows`);
        // The whole database by the sqlite3 shell, from the same file.
        const s = performance.now();
        dumpBytes = sqliteToFile(file, path.join(persistTo, 'dump.sql'), ['.dump']);
        sqliteMs.push(performance.now() - s);
        // Every table as CSV with its header.
        const c = performance.now();
        csvDumpBytes = sqliteToFile(file, path.join(persistTo, 'dump.csv'), ['-csv', '-header', ...tables.map((t) => `select * from "${t}";`)]);
        sqliteCsvMs.push(performance.now() - c);
        // The zip's row files as the export writes them (each answer with its participant), as the 0.1× figure was measured.
        const r = performance.now();
        sameRowsBytes = sqliteToFile(file, path.join(persistTo, 'rows.csv'), ['-csv', '-header', `${SQLITE_QUERY};`, 'select * from participants order by id;']);
        sqliteRowsMs.push(performance.now() - r);
        console.log(`  rep ${rep + 1}: worker ${Math.round(ms)} ms in ${job.steps} steps (longest ${job.longest_step_ms} ms), D1 pages alone ${Math.round(d1ReadMs.at(-1)!)} ms, sqlite3 .dump ${Math.round(sqliteMs.at(-1)!)} ms, -csv tables ${Math.round(sqliteCsvMs.at(-1)!)} ms, -csv same rows ${Math.round(sqliteRowsMs.at(-1)!)} ms, heap peak ${heapPeak.toFixed(1)} MB`);
      }
      return {
        participants: participantCount,
        rows_in: rowsIn,
        rows_out: rowsOut,
        // In every repetition, the sampled one too.
        rows_out_equal_rows_in: everyExportWhole,
        zip_bytes: last!.bytes,
        steps: last!.steps,
        longest_step_ms: longestStepMs,
        longest_step_ms_last_export: last!.longest_step_ms,
        failed_step_attempts: last!.failed_attempts,
        repetitions: ALL_DATA_REPETITIONS,
        worker_export_ms_median: Math.round(median(workerMs)),
        sqlite3_dump_ms_median: Math.round(median(sqliteMs)),
        sqlite3_dump_bytes: dumpBytes,
        throughput_vs_sqlite3_dump: Number((median(sqliteMs) / median(workerMs)).toFixed(2)),
        d1_pre_experiment_pages_ms_median: Math.round(median(d1ReadMs)),
        d1_pages_alone_vs_sqlite3_dump: Number((median(sqliteMs) / median(d1ReadMs)).toFixed(2)),
        sqlite3_same_rows_ms_median: Math.round(median(sqliteRowsMs)),
        sqlite3_same_rows_bytes: sameRowsBytes,
        throughput_vs_sqlite3_same_rows: Number((median(sqliteRowsMs) / median(workerMs)).toFixed(2)),
        sqlite3_csv_ms_median: Math.round(median(sqliteCsvMs)),
        sqlite3_csv_bytes: csvDumpBytes,
        throughput_vs_sqlite3_csv: Number((median(sqliteCsvMs) / median(workerMs)).toFixed(2)),
        isolate_heap_idle_mb: Number(heapIdle.toFixed(1)),
        isolate_heap_peak_mb: Number(heapPeak.toFixed(1)),
        worker_export_ms_heap_sampled: Math.round(sampledMs),
      };
    } finally {
      heap.close();
      await killLocalWorker(worker, 'SIGTERM');
    }
  } finally {
    rmSync(persistTo, { recursive: true, force: true });
  }
}

const table = process.env.XDL_EXPORT_SKIP_TABLE ? null : await tableExport();
const allData = [];
for (const size of ALL_DATA_SIZES) allData.push(await allDataExport(size));
const report = {
  benchmark: 'export',
  measured_at: new Date().toISOString(),
  machine: machineLine(),
  ...table,
  all_data: allData,
  all_data_note:
    "The all-data export as the dashboard starts it: POST /api/admin/export-jobs, then its Workflow writes the zip in steps (at most 100,000 rows each) into an R2 multipart upload; worker_export_ms is from the POST to the job reading completed. rows_in are D1's counts, rows_out the rows of those files in the zip. longest_step_ms is the longest step of all the repetitions as the Worker's clock saw it (it moves on I/O, so it includes D1's reading time: an upper bound of the step's CPU); the first export after the answers were written straight into D1 also computes the quality signals (worker/services/analytics/quality-flags.ts) of all its participants at once, which are otherwise refreshed only for participants whose answers changed since the dashboard or an export last read them; longest_step_ms_last_export is the last repetition's. throughput_vs_sqlite3_same_rows is sqlite3's time to write the rows of the zip's row files as CSV from the same database file (`sqlite3 -csv -header`: each answer with its participant, as the export writes it, and the participants; the comparator of the issue's 0.1× figure) over the Worker's time for the export. The floor: d1_pre_experiment_pages_ms is the same Worker reading the pre-experiment table's pages with the export's own page function and writing nothing (bench/export-floor/worker.ts: the query, the rows crossing from local D1 into the isolate, the rows made), timed after each export; d1_pages_alone_vs_sqlite3_dump is that reading's throughput against sqlite3's dump, the most any export through D1 could reach here. Two plainer sides are recorded too: throughput_vs_sqlite3_csv (every table as `select *` CSV, no join) and throughput_vs_sqlite3_dump (`sqlite3 .dump`, every table as SQL statements). isolate_heap_* is the Worker isolate's V8 heap read through the inspector every 100 ms during one more export after the timed ones (its time is worker_export_ms_heap_sampled; the readings run on the Worker's thread, so that export is not among the timed repetitions).",
};
writeBenchResult('export', report);
console.log(JSON.stringify(report, null, 2));
