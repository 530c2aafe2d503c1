/**
 * Advice on request and a forced wait, condition keys (issue #58, element 2): with
 * `adviceOnRequest` a case may be stored without the AI (no AI columns, no questions about it) and
 * the AI is served only when asked for; with `adviceWaitSeconds` the Worker serves it no sooner
 * than that long after the kept initial judgement, by its own clock. Each trial records whether the
 * AI was asked for and how long after the initial judgement it was first served; the request rate
 * is each participant's share.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { explanationResponseSchema, mainStartResponseSchema, trialProgressResultSchema } from '../../worker/schemas/main-experiment';
import { conditionSchema, studyConfig, studyConfigSchema } from '../../worker/schemas/study';
import { adminCookie, adminCsvRows, postJson } from '../helpers/api';
import { REVEAL_INITIAL, startedIn } from '../helpers/study-factories';
import { runWithConditions, shippedConditions } from '../helpers/study-conditions';
import { seedCompasStudy } from '../helpers/study-factories';

const CONDITIONS = [
  { name: 'on_request', shows: 'explanation', aiTiming: 'after_initial', adviceOnRequest: true, share: 1 },
  { name: 'waiting', shows: 'ai_prediction', aiTiming: 'after_initial', adviceWaitSeconds: 30, share: 1 },
  { name: 'prediction_only', shows: 'ai_prediction', aiTiming: 'after_initial', share: 1 },
].map((c) => conditionSchema.parse(c));
runWithConditions(CONDITIONS);
beforeAll(() => seedCompasStudy());

const one = <T>(sql: string, ...binds: unknown[]) => env.DB.prepare(sql).bind(...binds).first<T>();
const count = async (sql: string, ...binds: unknown[]) => (await one<{ n: number }>(sql, ...binds))!.n;
async function refused(res: Response, status: number, code: string) {
  expect(res.status, await res.clone().text()).toBe(status);
  const body = errorBodySchema.parse(await res.json());
  expect(body.code).toBe(code);
  return JSON.stringify(body.detail);
}
const keepInitial = (id: string, caseId: string) =>
  postJson('/api/experiments/main/trial-progress', { step: 'initial', session_id: id, case_id: caseId, ...REVEAL_INITIAL, initial_reasoning: null });
const reveal = (id: string, caseId: string) => postJson('/api/human-aligned-explanation', { session_id: id, case_id: caseId, ...REVEAL_INITIAL });
const FINAL = { final_prediction: 0, final_confidence: 4, final_response_time_ms: 2300 } as const;
const store = (id: string, caseId: string, fields: object = {}) =>
  postJson('/api/experiments/main/integrated-response', { session_id: id, case_id: caseId, ...REVEAL_INITIAL, ...FINAL, total_task_time_ms: 20000, ...fields });
const trialOf = (id: string, caseId: string) =>
  one<{ ai_prediction: number | null; served_explanation_id: number | null; advice_requested: number | null; advice_delay_ms: number | null; trust: number | null }>(
    'select ai_prediction, served_explanation_id, advice_requested, advice_delay_ms, trust from main_experiment_responses where session_id = ? and case_id = ?',
    id,
    caseId,
  );
const SURVEY = { comprehensibility: 3, transparency: 3, satisfaction: 3, trust: 4, alignment: 3 };

describe('advice on request and a forced wait, condition keys', () => {
  it('are checked when the study is read: a boolean, whole seconds 1–600, only where the AI follows an initial judgement', () => {
    const parse = (c: object) => studyConfigSchema.safeParse({ ...studyConfig, conditions: [{ name: 'x', shows: 'ai_prediction', share: 1, ...c }] });
    expect(parse({ aiTiming: 'after_initial', adviceOnRequest: true, adviceWaitSeconds: 10 }).success).toBe(true);
    expect(parse({ aiTiming: 'after_initial', adviceOnRequest: 'yes' }).error!.issues[0]!.message).toContain('adviceOnRequest is true');
    expect(parse({ aiTiming: 'after_initial', adviceWaitSeconds: 0 }).error!.issues[0]!.message).toContain('at least 1');
    expect(parse({ aiTiming: 'after_initial', adviceWaitSeconds: 2.5 }).error!.issues[0]!.message).toContain('whole number');
    const withCase = parse({ aiTiming: 'with_case', adviceOnRequest: true });
    expect(withCase.error!.issues[0]!.message).toContain('adviceOnRequest needs aiTiming "after_initial"');
    expect(withCase.error!.issues[0]!.path).toEqual(['conditions', 0, 'adviceOnRequest']);
    expect(conditionSchema.safeParse({ name: 'x', shows: 'none', judgements: 2, adviceOnRequest: true, share: 1 }).success).toBe(false);
    expect(shippedConditions.every((c) => c.shows === 'none' || (c.adviceOnRequest === undefined && c.adviceWaitSeconds === undefined))).toBe(true);
  });

  it('without them nothing changes: the AI before the final judgement, and a case without it refused', async () => {
    const p = await startedIn('prediction_only');
    const caseId = p.set[0]!.case_id;
    const start = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).json());
    expect(start.condition).toMatchObject({ advice_on_request: false, advice_wait_seconds: null });
    expect((await keepInitial(p.id, caseId)).status).toBe(200);
    await refused(await postJson('/api/experiments/main/trial-progress', { step: 'final', session_id: p.id, case_id: caseId, ...FINAL }), 409, 'ai_not_served');
    await refused(await store(p.id, caseId, { trust: 4 }), 409, 'ai_not_served');
    expect((await reveal(p.id, caseId)).status).toBe(200);
    expect((await store(p.id, caseId, { trust: 4 })).status).toBe(201);
    expect(await trialOf(p.id, caseId)).toMatchObject({ advice_requested: null });
    expect((await trialOf(p.id, caseId))!.advice_delay_ms).toBeGreaterThanOrEqual(0);
  });

  it('on request, not asked for: the case is stored without the AI and without its questions; a claim of it is refused', async () => {
    const p = await startedIn('on_request');
    const caseId = p.set[0]!.case_id;
    const start = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).json());
    expect(start.condition).toMatchObject({ name: 'on_request', advice_on_request: true, advice_wait_seconds: null });
    const kept = trialProgressResultSchema.parse(await (await keepInitial(p.id, caseId)).json()).kept;
    expect(kept).toMatchObject({ advice_served: false, advice_wait_left_ms: null });
    const resumed = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).json());
    expect(resumed.cases_in_progress).toEqual([expect.objectContaining({ case_id: caseId, advice_served: false })]);
    // The final judgement may be kept without the AI here.
    expect((await postJson('/api/experiments/main/trial-progress', { step: 'final', session_id: p.id, case_id: caseId, ...FINAL })).status).toBe(200);
    // The questions are about an AI not seen, and a page cannot say it showed one.
    expect(await refused(await store(p.id, caseId, SURVEY), 400, 'answer_does_not_fit_condition')).toContain('comprehensibility is not asked in this condition (the AI was not asked for on this case)');
    expect(await refused(await store(p.id, caseId, { ai_prediction: 1 }), 400, 'ai_record_mismatch')).toContain('nothing of the AI was served');
    await refused(await store(p.id, caseId, { served_explanation_id: 999999 }), 400, 'served_explanation_unknown');
    expect(await count('select count(*) as n from main_experiment_responses where session_id = ?', p.id)).toBe(0);
    expect((await store(p.id, caseId)).status).toBe(201);
    expect(await trialOf(p.id, caseId)).toEqual({ ai_prediction: null, served_explanation_id: null, advice_requested: 0, advice_delay_ms: null, trust: null });
    expect(await count('select count(*) as n from served_explanations where session_id = ?', p.id)).toBe(0);
  });

  it('on request, asked for: served when asked, with its questions, the request and its time recorded', async () => {
    const p = await startedIn('on_request');
    const caseId = p.set[1]!.case_id;
    expect((await keepInitial(p.id, caseId)).status).toBe(200);
    const shown = explanationResponseSchema.parse(await (await reveal(p.id, caseId)).json());
    // A reload is told the AI was asked for, and fetches the same serve.
    const again = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).json());
    expect(again.cases_in_progress.find((c) => c.case_id === caseId)).toMatchObject({ advice_served: true });
    // Without the questions the AI was seen with, refused.
    await refused(await store(p.id, caseId, { served_explanation_id: shown.served_explanation_id }), 400, 'answer_does_not_fit_condition');
    expect((await store(p.id, caseId, { ...SURVEY, served_explanation_id: shown.served_explanation_id })).status).toBe(201);
    const trial = (await trialOf(p.id, caseId))!;
    expect(trial).toMatchObject({ ai_prediction: shown.prediction, served_explanation_id: shown.served_explanation_id, advice_requested: 1, trust: 4 });
    expect(trial.advice_delay_ms).toBeGreaterThanOrEqual(0);
    expect(trial.advice_delay_ms).toBeLessThan(60_000);
  });

  it('a forced wait: the AI is refused until the wait has run from the kept initial judgement by the Worker’s clock', async () => {
    const p = await startedIn('waiting');
    const caseId = p.set[0]!.case_id;
    // The reveal may carry the initial judgement: kept, the wait starts, and nothing is served.
    expect(await refused(await reveal(p.id, caseId), 409, 'advice_not_yet')).toContain('given 30 s after the initial judgement');
    expect(await count('select count(*) as n from served_explanations where session_id = ?', p.id)).toBe(0);
    const kept = trialProgressResultSchema.parse(await (await keepInitial(p.id, caseId)).json()).kept;
    expect(kept.advice_wait_left_ms).toBeGreaterThan(25_000);
    expect(kept.advice_wait_left_ms).toBeLessThanOrEqual(30_000);
    const start = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, debug: true })).json());
    expect(start.condition.advice_wait_seconds).toBe(30);
    expect(start.cases_in_progress[0]!.advice_wait_left_ms).toBeGreaterThan(25_000);
    // 31 s later by the Worker's clock (the kept time moved back), the AI is served.
    const keptAt = (await one<{ t: string }>('select initial_kept_at as t from main_trial_progress where session_id = ?', p.id))!.t;
    await env.DB.prepare('update main_trial_progress set initial_kept_at = ? where session_id = ?').bind(new Date(Date.parse(keptAt) - 31_000).toISOString(), p.id).run();
    const shown = explanationResponseSchema.parse(await (await reveal(p.id, caseId)).json());
    expect((await store(p.id, caseId, { trust: 4, served_explanation_id: shown.served_explanation_id })).status).toBe(201);
    const trial = (await trialOf(p.id, caseId))!;
    expect(trial.advice_requested).toBeNull();
    expect(trial.advice_delay_ms).toBeGreaterThanOrEqual(30_000);
  });

  it('exports the request and its delay per trial, and the request rate per participant', async () => {
    const p = await startedIn('on_request');
    const [first, second] = [p.set[0]!.case_id, p.set[1]!.case_id];
    expect((await store(p.id, first)).status).toBe(201);
    expect((await keepInitial(p.id, second)).status).toBe(200);
    const shown = explanationResponseSchema.parse(await (await reveal(p.id, second)).json());
    expect((await store(p.id, second, { ...SURVEY, served_explanation_id: shown.served_explanation_id })).status).toBe(201);
    const cookie = await adminCookie();
    const table = (path: string) => adminCsvRows(path, cookie);
    const records = await table(`/api/enhanced-export/main-experiment?format=csv&user_name=${p.id}`);
    expect(records.map((r) => r('advice_requested')).sort()).toEqual(['false', 'true']);
    const trials = await table(`/api/enhanced-export/trials?format=csv&user_name=${p.id}`);
    expect(trials.map((r) => r('advice_requested')).sort()).toEqual(['0', '1']);
    expect(trials.find((r) => r('advice_requested') === '0')!('advice_delay_ms')).toBe('');
    const [measure] = await table(`/api/enhanced-export/reliance-participants?format=csv&include_synthetic=true&user_name=${p.id}`);
    expect(measure!('advice_request_rate')).toBe('0.5');
    expect(measure!('advice_request_rate_trials')).toBe('2');
    // The reliance measures rest on the trial where the advice was seen.
    expect(measure!('agreement_trials')).toBe('1');
  });
});
