/**
 * What a paid online study needs of the API: production mode closes the debug bypasses to all
 * but an administrator; the completion code comes only to a session whose post-survey is stored;
 * an 8-character ID opens only its holder's own flow, and a finished participation takes no more
 * writes.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import app from '../../worker/app';
import { environmentResponseSchema, errorBodySchema } from '../../worker/schemas/api';
import { understandingAttemptResultSchema } from '../../worker/schemas/main-experiment';
import { completionSchema, postSurveyProgressSchema, postSurveyRecordSchema } from '../../worker/schemas/post-survey-schemas';
import { drawUnderstandingQuestions } from '../../worker/schemas/understanding-test';
import { studyCodes } from '../../worker/study-codes';
import { adminCookie, api, callUntilLimited, postJson, uniqueClientIp } from '../helpers/api';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { consentedParticipant, participantDoneWithMain, seedCompasStudy } from '../helpers/study-factories';

let cookie: string;
beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
});

/** The app as a deployed copy runs it: `ENVIRONMENT = "production"`, every other binding as in tests. */
async function production(path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (!headers.has('CF-Connecting-IP')) headers.set('CF-Connecting-IP', uniqueClientIp());
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`https://lab.test${path}`, { ...init, headers }), { ...env, ENVIRONMENT: 'production' }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const mainSetSize = async (id: string) =>
  (await env.DB.prepare('select count(*) as n from case_set_items where session_id = ? and phase = ?').bind(id, 'main').first<{ n: number }>())!.n;

async function finishedParticipant() {
  const p = await participantDoneWithMain();
  const res = await postJson('/api/post-survey/', { session_id: p.id, ...completePostSurvey() });
  expect(res.status, await res.clone().text()).toBe(201);
  return p;
}

const understandingAttempt = (sessionId: string, attemptId: string) =>
  postJson('/api/experiments/main/understanding-test', {
    session_id: sessionId,
    attempt_id: attemptId,
    answers: drawUnderstandingQuestions().map((q) => ({ question_id: q.id, answer: q.correct })),
  });

describe('production mode', () => {
  it('refuses the debug and tutorial bypasses of POST /api/experiments/main/start with 403 and changes nothing', async () => {
    const p = await consentedParticipant();
    for (const query of ['debug=true', 'tutorial=true']) {
      const res = await production(`/api/experiments/main/start?session_id=${p.id}&${query}`, { method: 'POST' });
      expect(res.status).toBe(403);
      expect(errorBodySchema.parse(await res.json())).toMatchObject({ code: 'debug_disabled' });
    }
    const body = await production('/api/experiments/main/start', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ session_id: p.id, debug: true }) });
    expect(body.status).toBe(403);
    expect(await mainSetSize(p.id)).toBe(0);
  });

  it('lets an administrator use the bypass in production', async () => {
    const p = await consentedParticipant();
    const res = await production(`/api/experiments/main/start?session_id=${p.id}&debug=true`, { method: 'POST', headers: { Cookie: cookie } });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await mainSetSize(p.id)).toBeGreaterThan(0);
  });

  it('keeps the bypass for everyone in development', async () => {
    const p = await consentedParticipant();
    const res = await api(`/api/experiments/main/start?session_id=${p.id}&debug=true`, { method: 'POST' });
    expect(res.status, await res.clone().text()).toBe(201);
  });

  it('tells the SPA whether this caller may use the debug views', async () => {
    const read = async (res: Response) => environmentResponseSchema.parse(await res.json());
    expect(await read(await production('/api/status/environment'))).toEqual({ environment: 'production', production: true, debug_tools: false });
    expect(await read(await production('/api/status/environment', { headers: { Cookie: cookie } }))).toEqual({ environment: 'production', production: true, debug_tools: true });
    expect(await read(await api('/api/status/environment'))).toEqual({ environment: 'development', production: false, debug_tools: true });
  });
});

describe('GET /api/post-survey/completion/:sessionId', () => {
  it('refuses a session whose post-survey is not stored with 409, and an unknown one with 404', async () => {
    const p = await participantDoneWithMain();
    const res = await api(`/api/post-survey/completion/${p.id}`);
    expect(res.status).toBe(409);
    expect(errorBodySchema.parse(await res.json())).toMatchObject({ code: 'post_survey_incomplete' });
    expect((await api('/api/post-survey/completion/ZZZZ9999')).status).toBe(404);
  });

  it("gives the study's code and the participant's own verification code once the post-survey is stored", async () => {
    const p = await finishedParticipant();
    const res = await api(`/api/post-survey/completion/${p.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = completionSchema.parse(await res.json());
    expect(body.completion_code).toBe(studyCodes.completionCode);
    expect(body.verification_code).toMatch(/^[0-9A-F]{10}$/);
    const stored = await env.DB.prepare('select completion_verification_code as code from sessions where session_id = ?').bind(p.id).first<{ code: string }>();
    expect(stored!.code).toBe(body.verification_code);
    // Asked again (another device), the same codes.
    expect(completionSchema.parse(await (await api(`/api/post-survey/completion/${p.id}`)).json())).toEqual(body);
    // Two participants, two codes.
    const other = completionSchema.parse(await (await api(`/api/post-survey/completion/${(await finishedParticipant()).id}`)).json());
    expect(other.verification_code).not.toBe(body.verification_code);
  });

  it('counts as an ID lookup', async () => {
    const ip = uniqueClientIp();
    const statuses = await callUntilLimited(120, () => api('/api/post-survey/completion/ZZZZ9999', { headers: { 'CF-Connecting-IP': ip } }));
    expect(statuses.at(-1)).toBe(429);
  }, 60_000);
});

describe('what an ID opens', () => {
  it('GET /api/post-survey/:sessionId tells a participant which sections are stored, never the answers', async () => {
    const p = await finishedParticipant();
    const res = await api(`/api/post-survey/${p.id}`);
    expect(res.status).toBe(200);
    const json = (await res.json()) as Record<string, unknown>;
    expect(postSurveyProgressSchema.strict().parse(json).sections_done).toEqual(['demographics', 'benevolent', 'bigfive', 'locus', 'cognition']);
    expect(JSON.stringify(json)).not.toContain('"ok"');
    // The researchers' view keeps the answers.
    const admin = postSurveyRecordSchema.parse(await (await api(`/api/post-survey/${p.id}`, { headers: { Cookie: cookie } })).json());
    expect(Object.keys(admin.demographics).length).toBeGreaterThan(0);
  });

  it('takes no understanding-test attempt or forced retrain after the post-survey (409, nothing stored)', async () => {
    const p = await finishedParticipant();
    const attempt = await understandingAttempt(p.id, 'after-done-1');
    expect(attempt.status).toBe(409);
    expect(errorBodySchema.parse(await attempt.json())).toMatchObject({ code: 'study_completed' });
    const train = await postJson('/api/user-model/train', { session_id: p.id, force_retrain: true });
    expect(train.status).toBe(409);
    const counts = await env.DB.prepare(
      'select (select count(*) from understanding_test_attempts where session_id = ?1) as attempts, (select count(*) from user_models where session_id = ?1) as models',
    )
      .bind(p.id)
      .first<{ attempts: number; models: number }>();
    expect(counts).toEqual({ attempts: 0, models: 0 });
    // Withdrawal stays open to a finished participant.
    expect((await postJson('/api/experiments/withdraw', { participant_id: p.id, confirm: true })).status).toBe(200);
  });

  it('gives understanding-test attempts sent at once distinct numbers', async () => {
    const p = await consentedParticipant();
    const results = await Promise.all([1, 2, 3, 4].map((n) => understandingAttempt(p.id, `concurrent-attempt-${n}`)));
    const numbers = await Promise.all(results.map(async (r) => understandingAttemptResultSchema.parse(await r.json()).attempt_number));
    expect(numbers.sort()).toEqual([1, 2, 3, 4]);
  });

  it('counts GET /api/experiments/alignment-alpha as an ID lookup', async () => {
    const ip = uniqueClientIp();
    const statuses = await callUntilLimited(120, (i) => api(`/api/experiments/alignment-alpha/ZZZZ${String(i).padStart(4, '0')}/0/50`, { headers: { 'CF-Connecting-IP': ip } }));
    expect(statuses.at(-1)).toBe(429);
  }, 60_000);
});
