/**
 * Outcome feedback after each main case, a condition key (issue #58, element 4): once a case is
 * stored, its true outcome from the case table and whether the stored final judgement and the AI
 * were right; never before it is stored, never for a condition without the key. Giving it is
 * recorded once, its viewing time kept as first reported and bounded by the server's clock, and
 * both are in the exports; the measure `feedback_viewing_time` is each participant's mean.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { mainStartResponseSchema, outcomeFeedbackSchema } from '../../worker/schemas/main-experiment';
import { conditionSchema } from '../../worker/schemas/study';
import { adminCookie, api, postJson } from '../helpers/api';
import { consentedParticipant, revealedIn, seedCompasStudy, storeRevealed } from '../helpers/study-factories';
import { runWithConditions, shippedConditions } from '../helpers/study-conditions';

const CONDITIONS = [
  { name: 'prediction_feedback', shows: 'ai_prediction', aiTiming: 'after_initial', outcomeFeedback: true, share: 1 },
  { name: 'alone_feedback', shows: 'none', judgements: 1, outcomeFeedback: true, share: 1 },
  { name: 'prediction_only', shows: 'ai_prediction', aiTiming: 'after_initial', share: 1 },
].map((c) => conditionSchema.parse(c));
runWithConditions(CONDITIONS);
beforeAll(() => seedCompasStudy());

const one = <T>(sql: string, ...binds: unknown[]) => env.DB.prepare(sql).bind(...binds).first<T>();
const feedback = (sessionId: string, caseId: string) => api(`/api/experiments/main/feedback?session_id=${sessionId}&case_id=${caseId}`);
const viewed = (sessionId: string, caseId: string, ms: number) => postJson('/api/experiments/main/feedback-viewed', { session_id: sessionId, case_id: caseId, feedback_viewing_time_ms: ms });
async function refused(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = errorBodySchema.parse(await res.json());
  expect(body.code).toBe(code);
  return JSON.stringify(body.detail);
}
const trialOf = (sessionId: string, caseId: string) =>
  one<{ ground_truth: number; final_prediction: number; ai_prediction: number | null; feedback_served_at: string | null; feedback_viewing_time_ms: number | null }>(
    'select ground_truth, final_prediction, ai_prediction, feedback_served_at, feedback_viewing_time_ms from main_experiment_responses where session_id = ? and case_id = ?',
    sessionId,
    caseId,
  );

describe('outcome feedback, a condition key', () => {
  it('is true or false, on any condition; left out there is none, and the start says which', async () => {
    const bad = conditionSchema.safeParse({ name: 'x', shows: 'none', judgements: 2, outcomeFeedback: 'yes', share: 1 });
    expect(bad.error!.issues[0]!.message).toContain('outcomeFeedback is true');
    expect(shippedConditions.every((c) => c.outcomeFeedback === undefined)).toBe(true);
    const p = await revealedIn('prediction_only');
    const again = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.p.id, debug: true })).json());
    expect(again.condition).toMatchObject({ name: 'prediction_only', outcome_feedback: false });
    // Not given to a condition without it, even for a stored case.
    expect((await storeRevealed(p, { trust: 4 })).status).toBe(201);
    await refused(await feedback(p.p.id, p.caseId), 409, 'no_feedback_in_condition');
    await refused(await viewed(p.p.id, p.caseId, 1000), 409, 'no_feedback_in_condition');
  });

  it('is given only once the case is stored, from the server\'s record, the first giving recorded', async () => {
    const r = await revealedIn('prediction_feedback');
    expect(r.shown.served_explanation_id).not.toBeNull();
    expect(await refused(await feedback(r.p.id, r.caseId), 409, 'case_not_stored')).toContain('once its final judgement is stored');
    expect((await storeRevealed(r, { trust: 4 })).status).toBe(201);
    const trial = (await trialOf(r.p.id, r.caseId))!;
    expect(trial.feedback_served_at).toBeNull();
    const res = await feedback(r.p.id, r.caseId);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const given = outcomeFeedbackSchema.parse(await res.json());
    const truth = (await one<{ ground_truth: number }>('select ground_truth from cases where case_id = ?', r.caseId))!.ground_truth;
    expect(given).toMatchObject({
      ground_truth: truth,
      final_prediction: 0,
      final_correct: truth === 0,
      ai_prediction: r.shown.prediction,
      ai_correct: r.shown.prediction === truth,
      viewing_time_ms: null,
    });
    expect((await trialOf(r.p.id, r.caseId))!.feedback_served_at).toBe(given.served_at);
    // Asked again (a retry, another tab): the same, from the same time.
    expect(outcomeFeedbackSchema.parse(await (await feedback(r.p.id, r.caseId)).json())).toEqual(given);
    // Another participant's case is not theirs to see.
    const other = await consentedParticipant();
    await env.DB.prepare("update sessions set condition = 'prediction_feedback' where session_id = ?").bind(other.id).run();
    await refused(await feedback(other.id, r.caseId), 409, 'case_not_stored');
  });

  it('says, without AI, only whether the participant was right', async () => {
    const p = await consentedParticipant();
    await env.DB.prepare("update sessions set condition = 'alone_feedback' where session_id = ?").bind(p.id).run();
    const start = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).json());
    expect(start.condition.outcome_feedback).toBe(true);
    const caseId = start.case_set[0]!.case_id;
    const stored = await postJson('/api/experiments/main/integrated-response', { session_id: p.id, case_id: caseId, final_prediction: 1, final_confidence: 3, final_response_time_ms: 1500, total_task_time_ms: 4000 });
    expect(stored.status, await stored.clone().text()).toBe(201);
    const given = outcomeFeedbackSchema.parse(await (await feedback(p.id, caseId)).json());
    expect(given.ai_prediction).toBeNull();
    expect(given.ai_correct).toBeNull();
    expect(given.final_correct).toBe(given.ground_truth === 1);
  });

  it('keeps the first viewing time reported, never one longer than the server has known the feedback, and never before it was given', async () => {
    const r = await revealedIn('prediction_feedback');
    expect((await storeRevealed(r, { trust: 4 })).status).toBe(201);
    await refused(await viewed(r.p.id, r.caseId, 10), 409, 'feedback_not_served');
    const given = outcomeFeedbackSchema.parse(await (await feedback(r.p.id, r.caseId)).json());
    expect(await refused(await viewed(r.p.id, r.caseId, 60 * 60 * 1000), 400, 'feedback_time_impossible')).toContain('feedback_viewing_time_ms 3600000 is longer than');
    expect((await trialOf(r.p.id, r.caseId))!.feedback_viewing_time_ms).toBeNull();
    // Set when it was given a minute ago, so a 45 s view is possible.
    const minuteAgo = new Date(Date.parse(given.served_at) - 60_000).toISOString();
    await env.DB.prepare('update main_experiment_responses set feedback_served_at = ? where session_id = ? and case_id = ?').bind(minuteAgo, r.p.id, r.caseId).run();
    const first = await viewed(r.p.id, r.caseId, 45_000);
    expect(first.status).toBe(200);
    expect(outcomeFeedbackSchema.parse(await first.json()).viewing_time_ms).toBe(45_000);
    expect(outcomeFeedbackSchema.parse(await (await viewed(r.p.id, r.caseId, 30_000)).json()).viewing_time_ms).toBe(45_000);
    expect((await trialOf(r.p.id, r.caseId))!.feedback_viewing_time_ms).toBe(45_000);

    // The exports: the trial's record, the trials table and the participant's measure.
    const cookie = await adminCookie();
    const cells = async (path: string) => {
      const [header, row] = (await (await api(path, { headers: { cookie } })).text()).trim().split('\n').map((line) => line.split(','));
      return (name: string) => row![header!.indexOf(name)];
    };
    const record = await cells(`/api/enhanced-export/main-experiment?format=csv&user_name=${r.p.id}`);
    expect(record('outcome_feedback_served_at')).toBe(minuteAgo);
    expect(record('outcome_feedback_viewing_time_ms')).toBe('45000');
    expect((await cells(`/api/enhanced-export/trials?format=csv&user_name=${r.p.id}`))('feedback_viewing_time_ms')).toBe('45000');
    const measure = await cells(`/api/enhanced-export/reliance-participants?format=csv&include_synthetic=true&user_name=${r.p.id}`);
    expect(measure('feedback_viewing_time')).toBe('45');
    expect(measure('feedback_viewing_time_trials')).toBe('1');
  });

  it('answers an unknown participant 404 and a malformed request 400, changing nothing', async () => {
    expect((await feedback('ZZZZZZZ9', 'case_1')).status).toBe(404);
    expect((await feedback('bad id!', 'case_1')).status).toBe(400);
    expect((await viewed('ZZZZZZZ9', 'case_1', -1)).status).toBe(400);
  });
});
