/**
 * One limit for every call that tells a known participant ID from an unknown one (issue #63,
 * point 1): each route of worker/middleware/id-lookups.ts walked past the limit from one address,
 * after which the address learns nothing more from any of them; every participant route either
 * in that table or listed here as taking no ID, so a new route cannot slip by.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ID_LOOKUPS, lookupKey } from '../../worker/middleware/id-lookups';
import { isAdminPath } from '../../worker/middleware/admin-auth';
import { api, appRoutes, callUntilLimited, uniqueClientIp } from '../helpers/api';
import { allConsentItems, newParticipantId, seedCompasStudy, startedIn } from '../helpers/study-factories';

/** The lookup limit per address and minute (wrangler.toml's ID_LOOKUP_LIMITER). */
const LIMIT = 120;

/** Participant routes that take no participant ID, so they cannot tell one from another. */
const NO_PARTICIPANT_ID = [
  'GET /api/status',
  'GET /api/status/environment',
  'GET /api/recruitment',
  'GET /api/datasets',
  'GET /api/experiments/cases/:caseId',
  'GET /api/experiments/case-sets/random',
  'GET /api/experiments/dataset-assignment/balanced',
  'POST /api/experiments/dataset-assignment/balanced',
  'GET /api/experiments/dataset-assignment/statistics',
  'POST /api/admin/login',
  'POST /api/admin/logout',
  'GET /api/admin/session',
];

type Call = { method: 'GET' | 'POST'; path: string; body?: unknown };
let known: Awaited<ReturnType<typeof startedIn>>;
/** A participant assigned to adult income: an explicit assignment to COMPAS is refused for them, and says so. */
let elsewhere: string;

/** A call to each route that a guess mostly makes: about an ID nobody has (or, where that answers nothing, one assigned elsewhere). */
function missOf(route: string, id: string): Call {
  const caseId = known.set[0]!.case_id;
  const calls: Record<string, Call> = {
    'POST /api/experiments/sessions': { method: 'POST', path: '/api/experiments/sessions', body: { participant_name: id, dataset_type: 'compas', new_participant: true } },
    'POST /api/experiments/start': { method: 'POST', path: `/api/experiments/start?participant_name=${id}` },
    'POST /api/experiments/withdraw': { method: 'POST', path: '/api/experiments/withdraw', body: { participant_id: id, confirm: true } },
    'GET /api/experiments/sessions/:sessionId': { method: 'GET', path: `/api/experiments/sessions/${id}` },
    'GET /api/experiments/sessions/:sessionId/prolific': { method: 'GET', path: `/api/experiments/sessions/${id}/prolific` },
    'GET /api/experiments/sessions/:sessionId/details': { method: 'GET', path: `/api/experiments/sessions/${id}/details` },
    'GET /api/experiments/sessions/:sessionId/dataset-type': { method: 'GET', path: `/api/experiments/sessions/${id}/dataset-type` },
    'POST /api/experiments/check-existing': { method: 'POST', path: '/api/experiments/check-existing', body: { participant_name: id } },
    'POST /api/experiments/resume': { method: 'POST', path: '/api/experiments/resume', body: { participant_name: id } },
    'POST /api/experiments/dataset-assignment/explicit': {
      method: 'POST',
      path: '/api/experiments/dataset-assignment/explicit',
      body: { session_id: elsewhere, dataset_type: 'compas', created_by: 'system' },
    },
    'GET /api/experiments/case-sets/fixed': { method: 'GET', path: `/api/experiments/case-sets/fixed?participant_id=${id}&num_cases=5&experiment_type=pre_experiment` },
    'POST /api/consent/submit': { method: 'POST', path: '/api/consent/submit', body: { session_id: id, consent_items: allConsentItems() } },
    'POST /api/experiments/pre-experiment/responses': {
      method: 'POST',
      path: '/api/experiments/pre-experiment/responses',
      body: { session_id: id, case_id: 'compas_pre_001', prediction: 1, confidence: 3, response_time_ms: 1000 },
    },
    'POST /api/experiments/pre-experiment/responses/batch': {
      method: 'POST',
      path: '/api/experiments/pre-experiment/responses/batch',
      body: { session_id: id, responses: [{ case_id: 'compas_pre_001', prediction: 1, confidence: 3, response_time_ms: 1000 }] },
    },
    'POST /api/user-model/train': { method: 'POST', path: '/api/user-model/train', body: { session_id: id, dataset_type: 'compas' } },
    'POST /api/experiments/main/start': { method: 'POST', path: '/api/experiments/main/start', body: { session_id: id } },
    'GET /api/experiments/alignment-alpha/:sessionId/:caseIndex/:total': { method: 'GET', path: `/api/experiments/alignment-alpha/${id}/0/50` },
    'POST /api/experiments/main/predict': { method: 'POST', path: `/api/experiments/main/predict?session_id=${id}&case_index=0` },
    'POST /api/experiments/main/trial-progress': {
      method: 'POST',
      path: '/api/experiments/main/trial-progress',
      body: { step: 'explanation_viewed', session_id: id, case_id: caseId, explanation_viewing_time_ms: 1000 },
    },
    'POST /api/experiments/main/integrated-response': {
      method: 'POST',
      path: '/api/experiments/main/integrated-response',
      body: { session_id: id, case_id: caseId, final_prediction: 1, final_confidence: 3, final_response_time_ms: 1000, total_task_time_ms: 2000 },
    },
    'POST /api/experiments/main/understanding-test': {
      method: 'POST',
      path: '/api/experiments/main/understanding-test',
      body: { session_id: id, attempt_id: crypto.randomUUID(), answers: [] },
    },
    'GET /api/experiments/main/summary/:sessionId': { method: 'GET', path: `/api/experiments/main/summary/${id}` },
    'GET /api/experiments/main/feedback': { method: 'GET', path: `/api/experiments/main/feedback?session_id=${id}&case_id=${caseId}` },
    'POST /api/experiments/main/feedback-viewed': {
      method: 'POST',
      path: '/api/experiments/main/feedback-viewed',
      body: { session_id: id, case_id: caseId, feedback_viewing_time_ms: 1000 },
    },
    'POST /api/human-aligned-explanation': { method: 'POST', path: '/api/human-aligned-explanation', body: { session_id: id, case_id: caseId } },
    'GET /api/experiments/explanations/:caseId': { method: 'GET', path: `/api/experiments/explanations/${caseId}?session_id=${id}` },
    'POST /api/post-survey': { method: 'POST', path: '/api/post-survey/', body: { session_id: id } },
    'GET /api/post-survey/:sessionId': { method: 'GET', path: `/api/post-survey/${id}` },
    'GET /api/post-survey/check/:sessionId': { method: 'GET', path: `/api/post-survey/check/${id}` },
    'GET /api/post-survey/completion/:sessionId': { method: 'GET', path: `/api/post-survey/completion/${id}` },
    'GET /api/post-survey/example/:sessionId': { method: 'GET', path: `/api/post-survey/example/${id}` },
  };
  return calls[route]!;
}

const send = (call: Call, address: string) =>
  api(call.path, {
    method: call.method,
    headers: { 'CF-Connecting-IP': address, ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });

beforeAll(async () => {
  await seedCompasStudy();
  known = await startedIn('human_aligned');
  elsewhere = newParticipantId();
  const assigned = await api('/api/experiments/dataset-assignment/explicit', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ session_id: elsewhere, dataset_type: 'adult_income', created_by: 'system' }),
  });
  expect(assigned.status).toBe(200);
});

describe('every call that tells IDs apart is in one table', () => {
  it('lists each participant route in the lookup table or as taking no ID', () => {
    const participantRoutes = appRoutes()
      .map((r) => lookupKey(r.method, r.path))
      .filter((key) => !isAdminPath(key.split(' ')[1]!));
    const unlisted = participantRoutes.filter((key) => !(key in ID_LOOKUPS) && !NO_PARTICIPANT_ID.includes(key));
    expect(unlisted).toEqual([]);
    expect(Object.keys(ID_LOOKUPS).filter((key) => !participantRoutes.includes(key))).toEqual([]);
  });
});

describe('one lookup limit for every route', () => {
  it.each(Object.keys(ID_LOOKUPS))('%s: its misses count, and past the limit the address learns nothing more', async (route) => {
    const address = uniqueClientIp();
    const statuses = await callUntilLimited(LIMIT, () => send(missOf(route, newParticipantId()), address));
    expect(statuses.at(-1), statuses.slice(-3).join(',')).toBe(429);
    expect(statuses.slice(0, -1)).not.toContain(429);
    // Over the limit, a call about the known participant is turned away too: nothing more is learnt.
    // (The explanation routes still answer a session about a case of its own set: that is its own flow.)
    const knownCall = missOf(route, known.id);
    const answer = await send(knownCall, address);
    if (ID_LOOKUPS[route] === 'misses_own_case_free') expect(answer.status, route).not.toBe(429);
    else expect(answer.status, route).toBe(429);
  });

  it('is one limit shared by every route: misses of one turn the address away from all the others', async () => {
    const address = uniqueClientIp();
    const statuses = await callUntilLimited(LIMIT, () => send(missOf('POST /api/experiments/start', newParticipantId()), address));
    expect(statuses.at(-1)).toBe(429);
    for (const route of Object.keys(ID_LOOKUPS).filter((r) => ID_LOOKUPS[r] !== 'misses_own_case_free')) {
      expect((await send(missOf(route, known.id), address)).status, route).toBe(429);
    }
    // Nothing was written for the known participant by the calls turned away.
    expect(await env.DB.prepare('select count(*) as n from sessions where session_id = ?').bind(known.id).first()).toEqual({ n: 1 });
  });
});
