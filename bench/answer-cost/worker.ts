/**
 * The answer path taken apart inside one isolate, for `npm run bench:answer-cost`: each request
 * saves `n` pre-experiment answers one after another by one of these routes, so the host can read
 * the workerd CPU per answer of each layer with no HTTP, proxy or static-asset routing around it.
 *   raw      one bare single-row insert into local D1 (the floor bench:load compares with)
 *   service  storePreAnswers: the platform's one-batch save with its checks and reply read
 *   route    the pre-experiment routes alone under Hono (routing, JSON, zod validation)
 *   app      the whole API app (every middleware: security headers, admin guard, body limits)
 * `POST /setup?n=` first makes n consented participants through the app itself.
 */
import { Hono } from 'hono';
import app from '../../worker/app';
import { createDb } from '../../worker/db/client';
import type { AppEnv } from '../../worker/env';
import { withDb } from '../../worker/middleware/with-db';
import { preExperimentRoutes } from '../../worker/routes/pre-experiment';
import { CONSENT_ITEMS } from '../../worker/schemas/study-config';
import { storePreAnswers } from '../../worker/services/pre-experiment';
import { generateParticipantId } from '../../web/lib/session-id';

type Fetches = { fetch: (request: Request, env: Env, ctx: ExecutionContext) => Response | Promise<Response> };
type Participant = { id: string; cases: string[]; next: number };

const routesAlone = new Hono<AppEnv>().basePath('/api').use(withDb).route('/experiments', preExperimentRoutes);
const participants: Participant[] = [];
let turn = 0;

async function call(target: Fetches, env: Env, ctx: ExecutionContext, method: string, path: string, body?: unknown) {
  const res = await target.fetch(
    new Request(`https://lab.test${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }),
    env,
    ctx,
  );
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function setUp(env: Env, ctx: ExecutionContext, count: number) {
  await env.DB.prepare(
    `create table if not exists bench_answers (id integer primary key autoincrement, session_id text not null, case_id text not null,
       prediction integer not null, confidence integer not null, response_time_ms integer not null, created_at text not null)`,
  ).run();
  for (let i = 0; i < count; i++) {
    const id = generateParticipantId();
    await call(app, env, ctx, 'POST', '/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', language: 'ja', new_participant: true });
    await call(app, env, ctx, 'POST', '/api/consent/submit', { session_id: id, consent_items: Object.fromEntries(CONSENT_ITEMS.map((item) => [item, true])) });
    const set = await call(app, env, ctx, 'GET', `/api/experiments/case-sets/fixed?participant_id=${id}&num_cases=200&experiment_type=pre_experiment`);
    participants.push({ id, cases: (set.case_set as { case_id: string }[]).map((c) => c.case_id), next: 0 });
  }
}

async function saveOne(env: Env, ctx: ExecutionContext, layer: string) {
  const p = participants[turn++ % participants.length]!;
  const caseId = p.cases[p.next++];
  if (!caseId) throw new Error('every case of every participant is answered; set up more participants');
  const answer = { session_id: p.id, case_id: caseId, prediction: 1 as const, confidence: 3, response_time_ms: 1234 };
  const path = '/api/experiments/pre-experiment/responses';
  if (layer === 'raw') {
    await env.DB.prepare('insert into bench_answers (session_id, case_id, prediction, confidence, response_time_ms, created_at) values (?, ?, ?, ?, ?, ?)')
      .bind(p.id, caseId, 1, 3, 1234, new Date().toISOString())
      .run();
  } else if (layer === 'service') await storePreAnswers(createDb(env.DB), p.id, [answer], new Date().toISOString());
  else if (layer === 'route') await call(routesAlone, env, ctx, 'POST', path, answer);
  else if (layer === 'app') await call(app, env, ctx, 'POST', path, answer);
  else throw new Error(`unknown layer ${layer}`);
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get('n') ?? 1);
    // What ml-assets/lib/wrangler's start-up check asks for.
    if (url.pathname === '/api/status') return Response.json({ ok: true });
    if (url.pathname === '/setup') {
      await setUp(env, ctx, n);
      return Response.json({ participants: participants.length });
    }
    const layer = url.searchParams.get('layer') ?? '';
    for (let i = 0; i < n; i++) await saveOne(env, ctx, layer);
    return Response.json({ saved: n });
  },
} satisfies ExportedHandler<Env>;
