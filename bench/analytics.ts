/**
 * `npm run bench:analytics`: the dashboard's reliance tab with 10,000 participants × 50 main trials
 * (and their 200 pre-experiment answers and post-surveys, which the data-quality flags read),
 * served by the real Worker inside workerd (`wrangler dev`, local D1 and R2). Times the first view,
 * which computes the report, then the tab's call served from the kept report
 * (`GET /api/admin/analytics/reliance`, also a sorted later page of its participant table), the
 * recruitment figures, the users list filtered by a flag and the per-participant CSV export; then a
 * view right after a write (served stale) and how long until the current report is served.
 * `XDL_ANALYTICS_PARTICIPANTS` sets the size (10,000 by default).
 * Goal: the tab and the recruitment figures answer in under 1 s. Writes bench/results/analytics.json.
 *
 * The rows are written straight into the local D1 file (node:sqlite) before the Worker starts:
 * what is measured is the analytics, not 300,000 API calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { d1File } from './lib/local-d1';
import { answeredQuestions, postSurvey } from '../worker/schemas/post-survey';
import { applyLocalMigrations, freeLoopbackPort, killLocalWorker, startLocalWorker } from '../ml-assets/lib/wrangler';
import { connectIsolateHeap, EXPOSE_GC_ENV } from './lib/isolate-heap';
import { machineLine, writeBenchResult } from './lib/results';

const PARTICIPANTS = Number(process.env.XDL_ANALYTICS_PARTICIPANTS ?? 10000);
const TRIALS = 50;
const PRE = 200;
const REPETITIONS = Number(process.env.XDL_ANALYTICS_REPETITIONS ?? 7);
const ALPHAS = [0, 0.25, 0.5, 0.75, 1];
const DATASETS = ['adult_income', 'speed_dating', 'compas'];
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 2246822519) + 0x9e3779b9) >>> 0) / 2 ** 32);
}

function fill(file: string) {
  const db = new DatabaseSync(file);
  const rnd = random(42);
  const now = new Date().toISOString();
  const grids = Object.fromEntries(
    (['bigfive', 'locus', 'cognition', 'benevolent', 'demographics'] as const).map((id) => [id, answeredQuestions(postSurvey.sections.find((s) => s.id === id)!)]),
  );
  const person = db.prepare('insert into participants (participant_code, display_name, created_at, updated_at) values (?, ?, ?, ?)');
  const session = db.prepare(
    `insert into sessions (session_id, participant_id, dataset_type, current_phase, consented_at, pre_completed_at, main_started_at, main_completed_at, post_survey_completed_at, resume_count, created_at, updated_at)
     values (?, ?, ?, 'completed', ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const pre = db.prepare(
    `insert into pre_experiment_responses (participant_id, session_id, dataset_type, case_id, case_number, prediction, confidence, response_time_ms, ground_truth, case_data, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, null, ?)`,
  );
  const main = db.prepare(
    `insert into main_experiment_responses (participant_id, session_id, dataset_type, case_id, case_number, ground_truth, initial_prediction, initial_confidence, final_prediction, final_confidence,
       ai_prediction, alignment_alpha, created_at, updated_at, completed_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const survey = db.prepare(
    'insert into post_surveys (participant_id, session_id, demographics, benevolent, bigfive, locus, cognition, experiment_rating, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const answersOf = (id: string) =>
    JSON.stringify(Object.fromEntries(grids[id]!.map((q) => [q.name, q.kind === 'scale' ? q.min + Math.floor(rnd() * (q.max - q.min + 1)) : q.kind === 'number' ? 30 : 'x'])));
  db.exec('begin');
  for (let p = 0; p < PARTICIPANTS; p++) {
    const code = `A${String(p).padStart(7, '0')}`;
    const dataset = DATASETS[p % DATASETS.length]!;
    const { lastInsertRowid: id } = person.run(code, code, now, now);
    session.run(code, id, dataset, now, now, now, now, now, Math.floor(rnd() * 12), now, now);
    const speed = p % 97 === 0 ? 300 : 4000;
    for (let i = 0; i < PRE; i++) {
      pre.run(id, code, dataset, `${dataset}_pre_${i + 1}`, i + 1, rnd() < 0.5 ? 1 : 0, 1 + Math.floor(rnd() * 5), Math.round(speed * (0.5 + rnd())), rnd() < 0.5 ? 1 : 0, now);
    }
    for (let t = 0; t < TRIALS; t++) {
      const truth = rnd() < 0.5 ? 1 : 0;
      const ai = rnd() < 0.75 ? truth : 1 - truth;
      const initial = rnd() < 0.65 ? truth : 1 - truth;
      const final = initial !== ai && rnd() < 0.4 ? ai : initial;
      main.run(id, code, dataset, `${dataset}_main_${t + 1}`, t + 1, truth, initial, 1 + Math.floor(rnd() * 5), final, 1 + Math.floor(rnd() * 5), ai, ALPHAS[t % ALPHAS.length]!, now, now, now);
    }
    survey.run(id, code, answersOf('demographics'), answersOf('benevolent'), answersOf('bigfive'), answersOf('locus'), answersOf('cognition'), 5, now);
  }
  db.exec('commit');
  const count = (table: string) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  const rows = { participants: count('participants'), pre_experiment_responses: count('pre_experiment_responses'), main_experiment_responses: count('main_experiment_responses'), post_surveys: count('post_surveys') };
  db.close();
  return rows;
}

async function main() {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), 'xdl-analytics-bench-'));
  try {
    await applyLocalMigrations(persistTo, { stdio: 'ignore' });
    const t0 = performance.now();
    const rows = fill(d1File(persistTo));
    console.log(`analytics bench: ${JSON.stringify(rows)} written in ${Math.round(performance.now() - t0)} ms`);
    const port = await freeLoopbackPort();
    const inspectorPort = await freeLoopbackPort();
    const worker = await startLocalWorker({ port, inspectorPort, persistTo, vars: { ADMIN_PASSWORD: 'bench' }, env: EXPOSE_GC_ENV, stdio: 'ignore', detached: true });
    // The Worker isolate's heap (what the 128 MB limit applies to), sampled every 20 ms: while the report is computed, and while it is served.
    const heap = await connectIsolateHeap(inspectorPort);
    const MB = 1024 * 1024;
    let heapPeak = 0;
    const sampler = setInterval(() => void heap.usedBytes().then((b) => (heapPeak = Math.max(heapPeak, b / MB)), () => undefined), 20);
    try {
      const base = `http://127.0.0.1:${port}`;
      const login = await fetch(`${base}/api/admin/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ password: 'bench' }) });
      if (login.status !== 200) throw new Error(`login ${login.status}`);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const timed = async (url: string, init: RequestInit = {}) => {
        const start = performance.now();
        const res = await fetch(`${base}${url}`, { ...init, headers: { Cookie: cookie } });
        const body = await res.text();
        const ms = performance.now() - start;
        if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 200)}`);
        return { ms, body };
      };
      type Served = { computed: { compute_ms: number; stale: boolean; recomputing: boolean; data_revision: number }; participants_total: number; participants_excluded: number; overall: { trials: number } | null; trials: number };
      const tab = '/api/admin/analytics/reliance';
      // No kept report yet: the first view computes it inside the request.
      const cold = await timed(tab);
      const coldBody = JSON.parse(cold.body) as Served;
      const heapComputing = heapPeak;
      heapPeak = 0;
      console.log(`  first view (computes the report): ${Math.round(cold.ms)} ms, compute ${coldBody.computed.compute_ms} ms`);
      const calls = {
        reliance: tab,
        reliance_excluding_flagged: `${tab}?exclude_flagged=true`,
        reliance_sorted_page_3: `${tab}?participants_sort=switch&participants_direction=descending&participants_offset=200&participants_limit=100`,
        recruitment_progress: '/api/admin/recruitment/progress',
        users_flagged: '/api/admin/users?flag=any&limit=20',
        reliance_participants_csv: '/api/enhanced-export/reliance-participants?format=csv',
      } as const;
      // One warm-up of each (the excluding-flagged population's first view computes its own report), then the repetitions interleaved.
      for (const url of Object.values(calls).slice(1)) await timed(url);
      const times = Object.fromEntries(Object.keys(calls).map((k) => [k, [] as number[]])) as Record<keyof typeof calls, number[]>;
      for (let rep = 0; rep < REPETITIONS; rep++) {
        for (const [name, url] of Object.entries(calls) as [keyof typeof calls, string][]) times[name].push((await timed(url)).ms);
        console.log(`  rep ${rep + 1}: ${Object.entries(times).map(([k, v]) => `${k} ${Math.round(v.at(-1)!)} ms`).join(', ')}`);
      }
      const heapServing = heapPeak;
      const excluding = JSON.parse((await timed(calls.reliance_excluding_flagged)).body) as Served;

      // An answer changes (here: one trial deleted by the dashboard): the next view serves the kept
      // report marked stale while the Worker computes the next one after the response.
      const { lastInsertRowid: victim } = (() => {
        const db = new DatabaseSync(d1File(persistTo), { readOnly: true });
        const row = db.prepare('select max(id) as lastInsertRowid from main_experiment_responses').get() as { lastInsertRowid: number };
        db.close();
        return row;
      })();
      await timed(`/api/admin/responses/${victim}?experiment_type=main_experiment`, { method: 'DELETE' });
      const changed = performance.now();
      const staleView = await timed(tab);
      const staleBody = JSON.parse(staleView.body) as Served;
      let fresh = staleBody;
      let polls = 0;
      while (fresh.computed.stale && polls < 600) {
        await new Promise((r) => setTimeout(r, 250));
        fresh = JSON.parse((await timed(tab)).body) as Served;
        polls++;
      }
      const freshAfterMs = performance.now() - changed;

      // What the isolate holds after a full collection (garbage left out), at the points where it
      // answers the inspector: between the report's groups and at every await. Timed figures above
      // are taken before, without these collections.
      clearInterval(sampler);
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const idleLiveMb = (await heap.liveBytes()) / MB;
      const liveWhile = async (work: () => Promise<unknown>) => {
        let done = false;
        let peak = 0;
        let samples = 0;
        const sampling = (async () => {
          while (!done) {
            peak = Math.max(peak, (await heap.liveBytes()) / MB);
            samples++;
            await sleep(50);
          }
        })();
        try {
          await work();
        } finally {
          done = true;
          await sampling;
        }
        return { peak_mb: Number(peak.toFixed(1)), samples };
      };
      const liveComputing = await liveWhile(async () => {
        await timed(`/api/admin/responses/${victim - 1}?experiment_type=main_experiment`, { method: 'DELETE' });
        // Both populations' reports, one after the other, so that none is computed while the views are served below.
        for (const url of [tab, calls.reliance_excluding_flagged]) {
          let view = JSON.parse((await timed(url)).body) as Served;
          for (let i = 0; i < 600 && view.computed.stale; i++) {
            await sleep(250);
            view = JSON.parse((await timed(url)).body) as Served;
          }
          if (view.computed.stale) throw new Error(`${url}: the report was not recomputed within 150 s`);
        }
      });
      const liveServingByCall: Record<string, { peak_mb: number; samples: number }> = {};
      for (const [name, url] of Object.entries(calls)) {
        liveServingByCall[name] = await liveWhile(async () => {
          for (let rep = 0; rep < 3; rep++) await timed(url);
        });
      }
      const liveServing = Math.max(...Object.values(liveServingByCall).map((l) => l.peak_mb));
      console.log(`  live heap (after a collection): idle ${idleLiveMb.toFixed(1)} MB, computing ${liveComputing.peak_mb} MB, serving ${JSON.stringify(liveServingByCall)}`);

      const tabMs = median(times.reliance);
      const recruitmentMs = median(times.recruitment_progress);
      const report = {
        benchmark: 'analytics',
        measured_at: new Date().toISOString(),
        machine: machineLine(),
        where: 'local workerd (wrangler dev) with its local D1 and R2, wall time over loopback',
        rows,
        participants_in_report: coldBody.participants_total,
        trials_in_report: coldBody.trials,
        flagged_participants: excluding.participants_excluded,
        response_bytes: Buffer.byteLength(cold.body),
        repetitions: REPETITIONS,
        first_view: {
          what: 'no kept report yet (after a deploy or a local start): the view computes it inside the request',
          wall_ms: Math.round(cold.ms),
          compute_ms: coldBody.computed.compute_ms,
        },
        isolate_heap_peak_mb: {
          what: "the Worker isolate's V8 heap, read through the inspector every 20 ms (garbage not yet collected included): Cloudflare's 128 MB per-isolate limit applies to it",
          computing_the_report: Number(heapComputing.toFixed(1)),
          serving_kept_reports: Number(heapServing.toFixed(1)),
        },
        isolate_live_peak_mb: {
          what: "the Worker isolate's V8 heap right after a full collection (gc() through the inspector, every 50 ms, taken at the isolate's yield points: between the report's groups and at each await): what must fit in Cloudflare's 128 MB per-isolate limit",
          idle: Number(idleLiveMb.toFixed(1)),
          computing_the_report: liveComputing,
          serving: { peak_mb: liveServing, by_call: liveServingByCall },
          limit_mb: 128,
          fits: Math.max(liveComputing.peak_mb, liveServing) < 128,
        },
        median_ms: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(median(v))])),
        max_ms: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(Math.max(...v))])),
        after_a_write: {
          what: 'one trial deleted on the dashboard: the next view serves the kept report marked stale, the Worker computes the next after the response',
          stale_view_ms: Math.round(staleView.ms),
          stale_view_marked: staleBody.computed.stale,
          recomputing: staleBody.computed.recomputing,
          current_report_after_ms: Math.round(freshAfterMs),
          trials_counted_before: coldBody.trials,
          trials_counted_after: fresh.trials,
        },
        floor: 'the same report computed from the same rows in the same run: first_view.compute_ms',
        goal: {
          calls: ['GET /api/admin/analytics/reliance', 'GET /api/admin/recruitment/progress'],
          under_ms: 1000,
          reliance_ms: Math.round(tabMs),
          recruitment_ms: Math.round(recruitmentMs),
          met: tabMs < 1000 && recruitmentMs < 1000 && staleView.ms < 1000,
        },
      };
      writeBenchResult('analytics', report);
      console.log(`reliance tab: ${Math.round(tabMs)} ms median, recruitment ${Math.round(recruitmentMs)} ms, stale view ${Math.round(staleView.ms)} ms (goal under 1000 ms): ${report.goal.met ? 'met' : 'NOT met'}`);
    } finally {
      clearInterval(sampler);
      heap.close();
      await killLocalWorker(worker);
    }
  } finally {
    rmSync(persistTo, { recursive: true, force: true });
  }
}

await main();
