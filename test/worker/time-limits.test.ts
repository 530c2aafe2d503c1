/**
 * A time limit per judgement step, a condition key (issue #58, element 5): the Worker times each
 * step from when it opened (the page's `opened` checkpoint, the kept initial judgement, or the move
 * on from the AI's own step), tells a reload how much of it is left, refuses a page's word that a
 * step ran out where its own clock counted less, and records both clocks on the trial; the
 * timeout rate is each participant's share of trials with a step run out.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { explanationResponseSchema, mainStartResponseSchema, trialProgressResultSchema } from '../../worker/schemas/main-experiment';
import { conditionSchema, studyConfig, studyConfigSchema } from '../../worker/schemas/study';
import { adminCookie, adminCsvRows, postJson } from '../helpers/api';
import { REVEAL_INITIAL, seedCompasStudy, startedIn } from '../helpers/study-factories';
import { runWithConditions, shippedConditions } from '../helpers/study-conditions';

const CONDITIONS = [
  { name: 'timed_alone', shows: 'none', judgements: 2, timeLimit: { seconds: 20 }, share: 1 },
  { name: 'timed_with_case', shows: 'ai_prediction', aiTiming: 'with_case', aiConfidence: true, timeLimit: { seconds: 20, onTimeout: 'overrun' }, share: 1 },
  { name: 'timed_explained', shows: 'explanation', aiTiming: 'after_initial', timeLimit: { seconds: 30 }, share: 1 },
  { name: 'untimed', shows: 'none', judgements: 2, share: 1 },
].map((c) => conditionSchema.parse(c));
runWithConditions(CONDITIONS);
beforeAll(() => seedCompasStudy());

const one = <T>(sql: string, ...binds: unknown[]) => env.DB.prepare(sql).bind(...binds).first<T>();
async function refused(res: Response, status: number, code: string) {
  expect(res.status, await res.clone().text()).toBe(status);
  const body = errorBodySchema.parse(await res.json());
  expect(body.code).toBe(code);
  return JSON.stringify(body.detail);
}
const step = (id: string, caseId: string, fields: object) => postJson('/api/experiments/main/trial-progress', { session_id: id, case_id: caseId, ...fields });
const opened = (id: string, caseId: string) => step(id, caseId, { step: 'opened' });
const keepInitial = (id: string, caseId: string, fields: object = {}) => step(id, caseId, { step: 'initial', ...REVEAL_INITIAL, initial_reasoning: null, ...fields });
const FINAL = { final_prediction: 0, final_confidence: 4, final_response_time_ms: 2300 } as const;
const store = (id: string, caseId: string, fields: object = {}) =>
  postJson('/api/experiments/main/integrated-response', { session_id: id, case_id: caseId, ...FINAL, total_task_time_ms: 20000, ...fields });
/** Moves a progress time back by `ms`, as if the step had opened that long ago by the Worker's clock. */
const backdate = (id: string, caseId: string, column: 'opened_at' | 'initial_kept_at' | 'explanation_viewed_at', ms: number) =>
  env.DB.prepare(`update main_trial_progress set ${column} = strftime('%Y-%m-%dT%H:%M:%fZ', julianday(${column}) - ? / 86400000.0) where session_id = ? and case_id = ?`)
    .bind(ms, id, caseId)
    .run();
type Timing = { time_limit_ms: number | null; initial_timed_out: number | null; final_timed_out: number | null; initial_step_ms: number | null; final_step_ms: number | null };
const timingOf = (id: string, caseId: string) =>
  one<Timing>('select time_limit_ms, initial_timed_out, final_timed_out, initial_step_ms, final_step_ms from main_experiment_responses where session_id = ? and case_id = ?', id, caseId);

describe('a time limit per judgement step, a condition key', () => {
  it('is checked when the study is read: whole seconds 5–600, onTimeout submit (the default) or overrun', () => {
    const parse = (c: object) => studyConfigSchema.safeParse({ ...studyConfig, conditions: [{ name: 'x', shows: 'none', judgements: 1, share: 1, ...c }] });
    expect(parse({ timeLimit: { seconds: 20 } }).data!.conditions[0]!.timeLimit).toEqual({ seconds: 20, onTimeout: 'submit' });
    expect(parse({ timeLimit: { seconds: 4 } }).error!.issues[0]!.message).toContain('at least 5');
    expect(parse({ timeLimit: { seconds: 20.5 } }).error!.issues[0]!.message).toContain('whole number');
    expect(parse({ timeLimit: { seconds: 20, onTimeout: 'skip' } }).error!.issues[0]!.message).toContain('"submit" or "overrun"');
    expect(parse({ timeLimit: 20 }).error!.issues[0]!.message).toContain('timeLimit is { "seconds": 20');
    expect(shippedConditions.every((c) => c.timeLimit === undefined)).toBe(true);
  });

  it('without one nothing changes: an opened case has no time left to tell, no timed-out word, the trial has no time columns', async () => {
    const p = await startedIn('untimed');
    const caseId = p.set[0]!.case_id;
    const start = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).json());
    expect(start.condition.time_limit).toBeNull();
    // The opening is kept (a reload comes back to the case), with no time to count.
    expect(trialProgressResultSchema.parse(await (await opened(p.id, caseId)).json()).kept.step_time_left_ms).toBeNull();
    const resumed = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).json());
    expect(resumed.cases_in_progress).toEqual([expect.objectContaining({ case_id: caseId, initial: null, final: null, step_time_left_ms: null })]);
    expect(await refused(await keepInitial(p.id, caseId, { initial_timed_out: true }), 400, 'answer_does_not_fit_condition')).toContain('has none');
    const kept = trialProgressResultSchema.parse(await (await keepInitial(p.id, caseId)).json()).kept;
    expect(kept.step_time_left_ms).toBeNull();
    expect((await store(p.id, caseId)).status).toBe(201);
    expect(await timingOf(p.id, caseId)).toEqual({ time_limit_ms: null, initial_timed_out: null, final_timed_out: null, initial_step_ms: null, final_step_ms: null });
  });

  it('times each step by the Worker’s clock, tells a reload what is left, and refuses a timeout its clock did not reach', async () => {
    const p = await startedIn('timed_alone');
    const caseId = p.set[0]!.case_id;
    const start = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).json());
    expect(start.condition.time_limit).toEqual({ seconds: 20, on_timeout: 'submit' });
    const first = trialProgressResultSchema.parse(await (await opened(p.id, caseId)).json()).kept;
    expect(first.step_time_left_ms).toBeGreaterThan(18_000);
    expect(first.step_time_left_ms).toBeLessThanOrEqual(20_000);
    // Opened again (a reload): the step keeps its first opening, and the start call says what is left.
    await backdate(p.id, caseId, 'opened_at', 12_000);
    expect(trialProgressResultSchema.parse(await (await opened(p.id, caseId)).json()).kept.step_time_left_ms).toBeLessThanOrEqual(8_000);
    const resumed = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).json());
    expect(resumed.cases_in_progress[0]!.step_time_left_ms).toBeLessThanOrEqual(8_000);
    // 12 s of 20 by the Worker's clock: a page saying the time ran out is refused, and nothing is kept.
    expect(await refused(await keepInitial(p.id, caseId, { initial_timed_out: true }), 409, 'timeout_not_reached')).toContain('20 s ran out');
    expect((await one<{ t: string | null }>('select initial_kept_at as t from main_trial_progress where session_id = ?', p.id))!.t).toBeNull();
    await backdate(p.id, caseId, 'opened_at', 9_000);
    const kept = trialProgressResultSchema.parse(await (await keepInitial(p.id, caseId, { initial_timed_out: true })).json()).kept;
    expect(kept.initial).toMatchObject({ timed_out: true });
    // The final step opened with the kept initial judgement: its time runs from there.
    expect(kept.step_time_left_ms).toBeGreaterThan(18_000);
    // The kept word stands: sent again otherwise, refused.
    expect(await refused(await keepInitial(p.id, caseId, { initial_timed_out: false }), 409, 'judgement_already_given')).toContain('initial_timed_out');
    await backdate(p.id, caseId, 'initial_kept_at', 5_000);
    expect(await refused(await store(p.id, caseId, { final_timed_out: true }), 409, 'timeout_not_reached')).toContain('final judgement');
    expect((await store(p.id, caseId)).status).toBe(201);
    const timing = (await timingOf(p.id, caseId))!;
    expect(timing).toMatchObject({ time_limit_ms: 20_000, initial_timed_out: 1, final_timed_out: 0 });
    // Opened 21 s before the kept judgement's time, which was moved back 5 s.
    expect(timing.initial_step_ms).toBeGreaterThanOrEqual(16_000);
    expect(timing.initial_step_ms).toBeLessThan(17_000);
    expect(timing.final_step_ms).toBeGreaterThanOrEqual(5_000);
    expect(timing.final_step_ms).toBeLessThan(20_000);
  });

  it('the one judgement with the AI is timed from the opening; the final after the AI’s own step from moving on', async () => {
    const p = await startedIn('timed_with_case');
    const caseId = p.set[0]!.case_id;
    const shown = explanationResponseSchema.parse(await (await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: caseId })).json());
    expect((await opened(p.id, caseId)).status).toBe(200);
    await backdate(p.id, caseId, 'opened_at', 25_000);
    expect((await store(p.id, caseId, { final_timed_out: true, trust: 3, served_explanation_id: shown.served_explanation_id })).status).toBe(201);
    const timing = (await timingOf(p.id, caseId))!;
    expect(timing).toMatchObject({ time_limit_ms: 20_000, initial_timed_out: null, final_timed_out: 1, initial_step_ms: null });
    expect(timing.final_step_ms).toBeGreaterThanOrEqual(25_000);

    const q = await startedIn('timed_explained');
    const next = q.set[0]!.case_id;
    expect((await opened(q.id, next)).status).toBe(200);
    await backdate(q.id, next, 'opened_at', 4_000);
    const revealed = explanationResponseSchema.parse(await (await postJson('/api/human-aligned-explanation', { session_id: q.id, case_id: next, ...REVEAL_INITIAL })).json());
    const moved = trialProgressResultSchema.parse(await (await step(q.id, next, { step: 'explanation_viewed', explanation_viewing_time_ms: 9000 })).json()).kept;
    expect(moved.step_time_left_ms).toBeGreaterThan(28_000);
    await backdate(q.id, next, 'explanation_viewed_at', 31_000);
    const survey = { comprehensibility: 3, transparency: 3, satisfaction: 3, trust: 4, alignment: 3 };
    expect((await step(q.id, next, { step: 'final', ...FINAL, final_timed_out: true })).status).toBe(200);
    expect((await store(q.id, next, { ...survey, served_explanation_id: revealed.served_explanation_id })).status).toBe(201);
    const explained = (await timingOf(q.id, next))!;
    expect(explained).toMatchObject({ time_limit_ms: 30_000, initial_timed_out: 0, final_timed_out: 1 });
    expect(explained.initial_step_ms).toBeGreaterThanOrEqual(4_000);
    expect(explained.final_step_ms).toBeGreaterThanOrEqual(31_000);
  });

  it('exports both clocks per trial and the timeout rate per participant', async () => {
    const p = await startedIn('timed_alone');
    const [first, second] = [p.set[0]!.case_id, p.set[1]!.case_id];
    expect((await opened(p.id, first)).status).toBe(200);
    await backdate(p.id, first, 'opened_at', 21_000);
    expect((await keepInitial(p.id, first, { initial_timed_out: true })).status).toBe(200);
    expect((await store(p.id, first)).status).toBe(201);
    expect((await opened(p.id, second)).status).toBe(200);
    expect((await store(p.id, second, REVEAL_INITIAL)).status).toBe(201);
    const cookie = await adminCookie();
    const table = (path: string) => adminCsvRows(path, cookie);
    const records = await table(`/api/enhanced-export/main-experiment?format=csv&user_name=${p.id}`);
    expect(records.map((r) => r('initial_timed_out')).sort()).toEqual(['false', 'true']);
    expect(records.map((r) => r('time_limit_ms'))).toEqual(['20000', '20000']);
    const trials = await table(`/api/enhanced-export/trials?format=csv&user_name=${p.id}`);
    expect(trials.map((r) => r('initial_timed_out')).sort()).toEqual(['0', '1']);
    expect(Number(trials.find((r) => r('initial_timed_out') === '1')!('initial_step_ms'))).toBeGreaterThanOrEqual(21_000);
    const [measure] = await table(`/api/enhanced-export/reliance-participants?format=csv&include_synthetic=true&user_name=${p.id}`);
    expect(measure!('timeout_rate')).toBe('0.5');
    expect(measure!('timeout_rate_trials')).toBe('2');
    // Timed-out trials count in the other measures with the judgement kept.
    expect(measure!('final_accuracy_trials')).toBe('2');
  });
});
