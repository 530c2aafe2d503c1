/**
 * A case under way is kept by the server (issue #46, point 8): the initial judgement from the
 * moment the AI is revealed (the revealing request carries it), the explanation's viewing time and
 * the final judgement at their checkpoints. No judgement can be given again once kept, the start
 * call gives back what was kept so a reload or another device resumes at the step it left, and
 * the stored trial's judgements are the kept ones. In every condition of the design the
 * `conditions` project runs (test/conditions/design.ts).
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { aiExplanationResponseSchema, explanationResponseSchema, mainStartResponseSchema, trialProgressResultSchema } from '../../worker/schemas/main-experiment';
import { adminCookie, api, postJson } from '../helpers/api';
import { seedCompasStudy, startedIn } from '../helpers/study-factories';
import { runWithConditions } from '../helpers/study-conditions';
import { DESIGN_WITHOUT_WAITS } from '../conditions/design';

let cookie: string;
runWithConditions(DESIGN_WITHOUT_WAITS);
beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
});

const started = (condition: string) => startedIn(condition);
const resumed = async (id: string) => mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: id, debug: true })).json());
const one = <T>(sql: string, ...binds: unknown[]) => env.DB.prepare(sql).bind(...binds).first<T>();
const count = async (sql: string, ...binds: unknown[]) => (await one<{ n: number }>(sql, ...binds))!.n;
const code = async (res: Response) => errorBodySchema.parse(await res.json()).code;

const FIRST = { initial_prediction: 1, initial_confidence: 2, initial_response_time_ms: 5100, initial_reasoning: 'many priors' } as const;
/** What a participant would give after seeing the AI, were it allowed. */
const SECOND = { initial_prediction: 0, initial_confidence: 5, initial_response_time_ms: 900 } as const;
const reveal = (id: string, caseId: string, initial: object = {}) => postJson('/api/human-aligned-explanation', { session_id: id, case_id: caseId, ...initial });
const checkpoint = (body: object) => postJson('/api/experiments/main/trial-progress', body);
const ratingsOf = (shows: string) =>
  shows === 'explanation' ? { comprehensibility: 4, transparency: 4, satisfaction: 4, trust: 4, alignment: 4 } : shows === 'ai_prediction' ? { trust: 4 } : {};
const FINAL = { final_prediction: 0, final_confidence: 4, final_response_time_ms: 2300, final_reasoning: null } as const;

describe('the initial judgement is kept from the moment the AI is revealed', () => {
  it.each(['prediction_only', 'ai_explanation', 'human_aligned'])('%s: nothing of the AI without it, and never a second one after it', async (condition) => {
    const p = await started(condition);
    const caseId = p.set[0]!.case_id;
    const served = () => count('select count(*) as n from served_explanations where session_id = ?', p.id);

    // Asked for without the initial judgement: refused, and nothing of the AI was served or kept.
    const bare = await reveal(p.id, caseId);
    expect(bare.status).toBe(409);
    expect(await code(bare)).toBe('initial_judgement_required');
    const bareFallback = await api(`/api/experiments/explanations/${caseId}?session_id=${p.id}`);
    expect(bareFallback.status).toBe(409);
    const barePredict = await postJson(`/api/experiments/main/predict?session_id=${p.id}&case_index=0`, {});
    expect(barePredict.status).toBe(409);
    expect(await served()).toBe(0);
    // A partial judgement is bad input.
    expect((await reveal(p.id, caseId, { initial_prediction: 1 })).status).toBe(400);

    // Carried by the request that reveals the AI: kept, and the AI shown.
    explanationResponseSchema.parse(await (await reveal(p.id, caseId, FIRST)).json());
    expect(await served()).toBe(1);
    // A reload asks again, carrying the same judgement (or none): the same serve, the judgement unchanged.
    expect((await reveal(p.id, caseId, FIRST)).status).toBe(200);
    expect((await reveal(p.id, caseId)).status).toBe(200);
    // Another "initial" judgement after the AI appeared, by any of the three routes: 409, nothing changed.
    for (const res of [
      await reveal(p.id, caseId, SECOND),
      await api(`/api/experiments/explanations/${caseId}?session_id=${p.id}&${new URLSearchParams(Object.entries(SECOND).map(([k, v]) => [k, String(v)]))}`),
      await postJson(`/api/experiments/main/predict?session_id=${p.id}&case_index=0`, SECOND),
    ]) {
      expect(res.status).toBe(409);
      const body = errorBodySchema.parse(await res.json());
      expect(body.code).toBe('judgement_already_given');
      expect(JSON.stringify(body.detail)).toContain('initial_prediction');
    }
    // The start call (a reload, another device) gives back the case with its kept judgement.
    const again = await resumed(p.id);
    expect(again.cases_in_progress).toEqual([
      {
        case_id: caseId,
        initial: { prediction: 1, confidence: 2, response_time_ms: 5100, reasoning: 'many priors', timed_out: false },
        explanation_viewing_time_ms: null,
        final: null,
        advice_served: true,
        advice_wait_left_ms: null,
        step_time_left_ms: null,
      },
    ]);

    // The trial says otherwise: 409 naming the field, nothing stored.
    const trial = (initial: object) => ({ session_id: p.id, case_id: caseId, ...initial, ...FINAL, total_task_time_ms: 20000, ...ratingsOf(condition === 'prediction_only' ? 'ai_prediction' : 'explanation') });
    const forged = await postJson('/api/experiments/main/integrated-response', trial(SECOND));
    expect(forged.status).toBe(409);
    expect(await count('select count(*) as n from main_experiment_responses where session_id = ?', p.id)).toBe(0);
    // It leaves the judgement out (a page that reloaded knows it only from the server) or repeats it: stored as kept.
    const saved = await postJson('/api/experiments/main/integrated-response', trial({}));
    expect(saved.status, await saved.clone().text()).toBe(201);
    expect(await one('select initial_prediction, initial_confidence, initial_response_time_ms, initial_reasoning from main_experiment_responses where session_id = ?', p.id)).toEqual({
      initial_prediction: 1,
      initial_confidence: 2,
      initial_response_time_ms: 5100,
      initial_reasoning: 'many priors',
    });
    // A stored case is no longer under way, and is not shown again: a page asking for it (an old tab) is told the study moved on.
    expect((await resumed(p.id)).cases_in_progress).toEqual([]);
    const old = await reveal(p.id, caseId, FIRST);
    expect(old.status).toBe(409);
    expect(await code(old)).toBe('case_already_stored');
    expect(await count('select count(*) as n from main_trial_progress where session_id = ?', p.id)).toBe(0);
    // The AI-only fallback, asked with the judgement first, keeps it the same way.
    const second = p.set[1]!.case_id;
    const fallback = aiExplanationResponseSchema.parse(
      await (await api(`/api/experiments/explanations/${second}?session_id=${p.id}&${new URLSearchParams(Object.entries(FIRST).map(([k, v]) => [k, String(v)]))}`)).json(),
    );
    expect(fallback.served_explanation_id).toBeGreaterThan(0);
    expect((await resumed(p.id)).cases_in_progress[0]!.initial).toMatchObject({ prediction: 1, confidence: 2 });
  });

  it('the AI shown with the case needs no initial judgement, and its condition has no initial step to keep', async () => {
    const p = await started('explanation_with_case');
    const caseId = p.set[0]!.case_id;
    expect((await reveal(p.id, caseId)).status).toBe(200);
    const initial = await checkpoint({ step: 'initial', session_id: p.id, case_id: caseId, ...FIRST });
    expect(initial.status).toBe(400);
    expect(await code(initial)).toBe('answer_does_not_fit_condition');
    const viewed = await checkpoint({ step: 'explanation_viewed', session_id: p.id, case_id: caseId, explanation_viewing_time_ms: 3000 });
    expect(viewed.status).toBe(400);
    // The one judgement, given beside the AI, is kept before the questions.
    const final = trialProgressResultSchema.parse(await (await checkpoint({ step: 'final', session_id: p.id, case_id: caseId, ...FINAL, explanation_viewing_time_ms: 2300 })).json());
    expect(final.kept).toMatchObject({ initial: null, explanation_viewing_time_ms: 2300, final: { prediction: 0, confidence: 4, response_time_ms: 2300, reasoning: null } });
  });
});

describe('every step of a case is kept once, and the start call resumes it there', () => {
  it('an explanation condition: initial → viewed → final, each given back and each refused when said otherwise', async () => {
    const p = await started('human_aligned');
    const caseId = p.set[0]!.case_id;
    const at = { session_id: p.id, case_id: caseId };
    // The final judgement before the AI was revealed: refused (the AI follows the initial judgement).
    const early = await checkpoint({ step: 'final', ...at, ...FINAL });
    expect(early.status).toBe(409);
    expect(await code(early)).toBe('ai_not_served');
    expect((await checkpoint({ step: 'explanation_viewed', ...at, explanation_viewing_time_ms: 3000 })).status).toBe(409);

    expect((await reveal(p.id, caseId, FIRST)).status).toBe(200);
    const viewed = trialProgressResultSchema.parse(await (await checkpoint({ step: 'explanation_viewed', ...at, explanation_viewing_time_ms: 7400 })).json());
    expect(viewed.kept.explanation_viewing_time_ms).toBe(7400);
    // The same checkpoint again (a retry) is the same; a different time is refused. Neither writes
    // anything: the row, its update time included, stays as the first word left it.
    const row = () => one('select * from main_trial_progress where session_id = ? and case_id = ?', p.id, caseId);
    const before = await row();
    await new Promise((r) => setTimeout(r, 5));
    expect((await checkpoint({ step: 'explanation_viewed', ...at, explanation_viewing_time_ms: 7400 })).status).toBe(200);
    expect((await checkpoint({ step: 'explanation_viewed', ...at, explanation_viewing_time_ms: 100 })).status).toBe(409);
    expect(await row()).toEqual(before);
    expect((await resumed(p.id)).cases_in_progress[0]).toMatchObject({ explanation_viewing_time_ms: 7400, final: null });

    expect((await checkpoint({ step: 'final', ...at, ...FINAL })).status).toBe(200);
    const changed = await checkpoint({ step: 'final', ...at, ...FINAL, final_prediction: 1 });
    expect(changed.status).toBe(409);
    expect(JSON.stringify(errorBodySchema.parse(await changed.json()).detail)).toContain('final_prediction');
    expect((await resumed(p.id)).cases_in_progress[0]).toMatchObject({ final: { prediction: 0, confidence: 4, response_time_ms: 2300, reasoning: null } });

    // The trial with only its ratings and total time (a page that reloaded knows the judgements only
    // from the server): everything else is what was kept, the final judgement too.
    const ratings = { comprehensibility: 4, transparency: 4, satisfaction: 4, trust: 4, alignment: 4 };
    const second = { session_id: p.id, case_id: p.set[1]!.case_id };
    expect((await reveal(p.id, second.case_id, FIRST)).status).toBe(200);
    // Where no final judgement was kept, leaving it out is bad input, and nothing is stored.
    const noFinal = await postJson('/api/experiments/main/integrated-response', { ...second, ...ratings, total_task_time_ms: 30000 });
    expect(noFinal.status).toBe(400);
    expect(JSON.stringify(errorBodySchema.parse(await noFinal.json()).detail)).toContain('no final judgement was kept');
    expect(await count('select count(*) as n from main_experiment_responses where session_id = ?', p.id)).toBe(0);
    const saved = await postJson('/api/experiments/main/integrated-response', {
      ...at,
      comprehensibility: 4,
      transparency: 4,
      satisfaction: 4,
      trust: 4,
      alignment: 4,
      total_task_time_ms: 30000,
    });
    expect(saved.status, await saved.clone().text()).toBe(201);
    expect(await one('select initial_prediction, explanation_viewing_time_ms, final_prediction, final_response_time_ms from main_experiment_responses where session_id = ?', p.id)).toEqual({
      initial_prediction: 1,
      explanation_viewing_time_ms: 7400,
      final_prediction: 0,
      final_response_time_ms: 2300,
    });
    // A checkpoint for a stored case (an old tab) is told the study moved on.
    const late = await checkpoint({ step: 'final', ...at, ...FINAL });
    expect(late.status).toBe(409);
    expect(await code(late)).toBe('case_already_stored');
  });

  it('no AI: the initial judgement is kept at its checkpoint, and there is no AI step', async () => {
    const p = await started('no_ai');
    const caseId = p.set[0]!.case_id;
    const at = { session_id: p.id, case_id: caseId };
    expect((await checkpoint({ step: 'explanation_viewed', ...at, explanation_viewing_time_ms: 3000 })).status).toBe(400);
    // The final judgement follows a kept initial one.
    expect((await checkpoint({ step: 'final', ...at, ...FINAL })).status).toBe(409);
    expect((await checkpoint({ step: 'initial', ...at, ...FIRST })).status).toBe(200);
    expect((await checkpoint({ step: 'initial', ...at, ...SECOND })).status).toBe(409);
    expect((await resumed(p.id)).cases_in_progress[0]).toMatchObject({ initial: { prediction: 1, confidence: 2 }, final: null });
    expect((await postJson('/api/experiments/main/integrated-response', { ...at, ...SECOND, ...FINAL, total_task_time_ms: 9000 })).status).toBe(409);
    expect((await postJson('/api/experiments/main/integrated-response', { ...at, ...FINAL, total_task_time_ms: 9000 })).status).toBe(201);
    expect(await one('select initial_prediction, initial_confidence from main_experiment_responses where session_id = ?', p.id)).toEqual({ initial_prediction: 1, initial_confidence: 2 });
  });

  it('judging once: no initial step to keep', async () => {
    const p = await started('no_ai_once');
    expect((await checkpoint({ step: 'initial', session_id: p.id, case_id: p.set[0]!.case_id, ...FIRST })).status).toBe(400);
  });

  it('refuses bad input with a 4xx and detail, keeping nothing', async () => {
    const p = await started('human_aligned');
    const caseId = p.set[0]!.case_id;
    for (const [body, status] of [
      [{ step: 'final', session_id: p.id, case_id: caseId }, 400],
      [{ step: 'sideways', session_id: p.id, case_id: caseId }, 400],
      [{ step: 'initial', session_id: p.id, case_id: caseId, ...FIRST, initial_confidence: 9 }, 400],
      [{ step: 'initial', session_id: p.id, case_id: 'compas_pre_001', ...FIRST }, 400],
      [{ step: 'initial', session_id: 'ZZZZZZZZ', case_id: caseId, ...FIRST }, 404],
    ] as const) {
      const res = await checkpoint(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    }
    expect(await count('select count(*) as n from main_trial_progress where session_id = ?', p.id)).toBe(0);
  });

  it("goes with the participant's other data when they are deleted", async () => {
    const p = await started('human_aligned');
    expect((await reveal(p.id, p.set[0]!.case_id, FIRST)).status).toBe(200);
    const userId = (await one<{ id: number }>('select participant_id as id from sessions where session_id = ?', p.id))!.id;
    const res = await api(`/api/admin/users/${userId}`, { method: 'DELETE', headers: { Cookie: cookie } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await count('select count(*) as n from main_trial_progress where session_id = ?', p.id)).toBe(0);
  });
});
