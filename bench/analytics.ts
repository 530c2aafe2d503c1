/**
 * `npm run bench:analytics`: the dashboard's reliance tab with 1,000 participants × 50 main trials
 * (and their 200 pre-experiment answers and post-surveys, which the data-quality flags read),
 * served by the real Worker inside workerd (`wrangler dev`, local D1). Times the tab's call
 * (`GET /api/admin/analytics/reliance`), the users list filtered by a flag, and the
 * per-participant CSV export. Goal: the tab loads in under 1 s. Writes bench/results/analytics.json.
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
import { applyLocalMigrations, freeLoopbackPort, killLocalWorker, startLocalWorker } from '../scripts/lib/wrangler';
import { machineLine, writeBenchResult } from './lib/results';

const PARTICIPANTS = Number(process.env.XDL_ANALYTICS_PARTICIPANTS ?? 1000);
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
    const worker = await startLocalWorker({ port, persistTo, vars: { ADMIN_PASSWORD: 'bench' }, stdio: 'ignore', detached: true });
    try {
      const base = `http://127.0.0.1:${port}`;
      const login = await fetch(`${base}/api/admin/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ password: 'bench' }) });
      if (login.status !== 200) throw new Error(`login ${login.status}`);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const timed = async (url: string) => {
        const start = performance.now();
        const res = await fetch(`${base}${url}`, { headers: { Cookie: cookie } });
        const body = await res.text();
        const ms = performance.now() - start;
        if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 200)}`);
        return { ms, body };
      };
      const calls = {
        reliance: '/api/admin/analytics/reliance',
        reliance_excluding_flagged: '/api/admin/analytics/reliance?exclude_flagged=true',
        users_flagged: '/api/admin/users?flag=any&limit=20',
        reliance_participants_csv: '/api/enhanced-export/reliance-participants?format=csv',
      } as const;
      // One warm-up of each, then the repetitions interleaved.
      const first = await timed(calls.reliance);
      for (const url of Object.values(calls).slice(1)) await timed(url);
      const times: Record<keyof typeof calls, number[]> = { reliance: [], reliance_excluding_flagged: [], users_flagged: [], reliance_participants_csv: [] };
      for (let rep = 0; rep < REPETITIONS; rep++) {
        for (const [name, url] of Object.entries(calls) as [keyof typeof calls, string][]) times[name].push((await timed(url)).ms);
        console.log(`  rep ${rep + 1}: ${Object.entries(times).map(([k, v]) => `${k} ${Math.round(v.at(-1)!)} ms`).join(', ')}`);
      }
      const parsed = JSON.parse(first.body) as { participants: unknown[]; participants_excluded: number; overall: { trials: number } };
      const tabMs = median(times.reliance);
      const report = {
        benchmark: 'analytics',
        measured_at: new Date().toISOString(),
        machine: machineLine(),
        where: 'local workerd (wrangler dev) with its local D1, wall time over loopback, warm',
        rows,
        participants_in_report: parsed.participants.length,
        trials_in_report: parsed.overall.trials,
        flagged_participants: (JSON.parse((await timed(calls.reliance_excluding_flagged)).body) as { participants_excluded: number }).participants_excluded,
        response_bytes: Buffer.byteLength(first.body),
        repetitions: REPETITIONS,
        median_ms: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(median(v))])),
        max_ms: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(Math.max(...v))])),
        goal: { call: 'GET /api/admin/analytics/reliance', under_ms: 1000, met: tabMs < 1000 },
      };
      writeBenchResult('analytics', report);
      console.log(`reliance tab: ${Math.round(tabMs)} ms median (goal under 1000 ms): ${report.goal.met ? 'met' : 'NOT met'}`);
    } finally {
      await killLocalWorker(worker);
    }
  } finally {
    rmSync(persistTo, { recursive: true, force: true });
  }
}

await main();
