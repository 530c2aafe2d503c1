/**
 * Between-subject conditions (issue #35): the configuration's rules, the draw at the main start
 * (balanced within the dataset by share under concurrency, stable across resume), and the main
 * experiment following each condition: its set's alphas, what the explanation call returns, which
 * answers are stored or refused, and the condition column of the exports.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { explanationResponseSchema, mainStartResponseSchema } from '../../worker/schemas/main-experiment';
import { conditionSchema, studyConfig, studyConfigSchema, type Condition } from '../../worker/schemas/study';
import { adminCookie, api, postJson } from '../helpers/api';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { consentedParticipant, seedCompasStudy } from '../helpers/study-factories';
import { runWithConditions, shippedConditions, useConditions } from '../helpers/study-conditions';

/** The worked example of docs/running-a-study.md: four conditions between subjects. */
const FOUR: Condition[] = [
  { name: 'no_ai', shows: 'none', judgements: 2, share: 1 },
  { name: 'prediction_only', shows: 'ai_prediction', aiTiming: 'after_initial', share: 1 },
  { name: 'ai_explanation', shows: 'explanation', aiTiming: 'after_initial', alphaLevels: [1], share: 1 },
  { name: 'human_aligned', shows: 'explanation', aiTiming: 'after_initial', share: 1 },
].map((c) => conditionSchema.parse(c));

let cookie: string;
runWithConditions(FOUR);
beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
});

/** A consented COMPAS participant whose main experiment starts through the debug bypass (the pre-experiment is not what is tested here). */
async function started(condition?: string) {
  const p = await consentedParticipant('compas');
  if (condition) await env.DB.prepare('update sessions set condition = ? where session_id = ?').bind(condition, p.id).run();
  const res = await postJson('/api/experiments/main/start', { session_id: p.id, debug: true });
  expect(res.status, await res.clone().text()).toBe(201);
  return { ...p, start: mainStartResponseSchema.parse(await res.json()) };
}

const countsOf = async (dataset: string) =>
  Object.fromEntries(
    (await env.DB.prepare('select condition, count(*) as n from sessions where dataset_type = ? and condition is not null group by condition').bind(dataset).all<{ condition: string; n: number }>()).results.map(
      (r) => [r.condition, r.n],
    ),
  );

/** The initial judgement of this file's cases; the request revealing the AI carries it. */
const INITIAL = { initial_prediction: 1, initial_confidence: 3, initial_response_time_ms: 3000 } as const;

/** An answer of each shape a condition may ask for. */
function answer(sessionId: string, caseId: string, e: { prediction: 0 | 1; ai_feature_importance: unknown[]; shown_feature_importance: unknown[] } | null, parts: { initial: boolean; ratings: string[] }) {
  return {
    session_id: sessionId,
    case_id: caseId,
    ...(parts.initial ? INITIAL : {}),
    final_prediction: 0,
    final_confidence: 4,
    final_response_time_ms: 2000,
    ...(e ? { ai_prediction: e.prediction, ai_feature_importance: e.ai_feature_importance, shown_feature_importance: e.shown_feature_importance, explanation_viewing_time_ms: 4000 } : {}),
    ...Object.fromEntries(parts.ratings.map((r) => [r, 4])),
    total_task_time_ms: 12000,
  };
}
const ALL_RATINGS = ['comprehensibility', 'transparency', 'satisfaction', 'trust', 'alignment'];

describe('conditions in the study configuration', () => {
  it("ships the spec's design as its single condition", () => {
    expect(shippedConditions).toEqual([{ name: 'human_aligned', shows: 'explanation', aiTiming: 'after_initial', share: 1 }]);
  });

  it('refuses an inconsistent design with the rule it breaks', () => {
    const check = (conditions: unknown[]) => {
      const result = studyConfigSchema.safeParse({ ...studyConfig, conditions });
      return result.success ? 'ok' : result.error.issues.map((i) => i.message).join('; ');
    };
    expect(check(FOUR)).toBe('ok');
    expect(check([...FOUR, FOUR[0]])).toContain('name of its own');
    expect(check([{ ...FOUR[3], alphaLevels: [0, 0.3, 0.6] }])).toContain('split evenly');
    expect(check([{ ...FOUR[0], share: 0 }])).toContain('share must be above 0');
    expect(check([{ ...FOUR[1], alphaLevels: [1] }])).toMatch(/alphaLevels/);
    expect(check([{ name: 'Bad Name', shows: 'none', judgements: 1, share: 1 }])).toContain('lower-case');
    expect(check([])).toMatch(/>=1|at least/);
  });
});

describe('drawing a condition when the main experiment starts', () => {
  it('balances 300 concurrent starts within their dataset, by share, and keeps each one across resume', async () => {
    // Another dataset's sessions do not count toward compas's balance.
    await env.DB.prepare("update sessions set condition = null where dataset_type = 'compas'").run();
    const participants = await Promise.all(Array.from({ length: 300 }, () => consentedParticipant('compas')));
    const starts = await Promise.all(participants.map((p) => postJson('/api/experiments/main/start', { session_id: p.id, debug: true })));
    const texts = await Promise.all(starts.map((r) => r.text()));
    expect(starts.filter((r) => r.status !== 201).map((r, i) => `${r.status} ${texts[i]}`)).toEqual([]);
    const bodies = texts.map((t) => mainStartResponseSchema.parse(JSON.parse(t)));
    const counts = await countsOf('compas');
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(300);
    expect(Object.keys(counts).sort()).toEqual(FOUR.map((c) => c.name).sort());
    expect(Math.max(...Object.values(counts)) - Math.min(...Object.values(counts))).toBeLessThanOrEqual(1);
    // Each start's answer names the condition stored; a resume answers it again.
    for (const [i, p] of participants.slice(0, 20).entries()) {
      const stored = await env.DB.prepare('select condition from sessions where session_id = ?').bind(p.id).first<{ condition: string }>();
      expect(bodies[i]!.condition.name).toBe(stored!.condition);
      const again = mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id, num_cases: 100, debug: true })).json());
      expect(again.condition.name).toBe(stored!.condition);
    }
  });

  it('gives a condition with twice the share twice the sessions', async () => {
    useConditions([conditionSchema.parse({ ...FOUR[0], share: 2 }), FOUR[3]!]);
    try {
      await env.DB.prepare("update sessions set condition = null where dataset_type = 'compas'").run();
      await Promise.all(Array.from({ length: 60 }, async () => started()));
      expect(await countsOf('compas')).toEqual({ no_ai: 40, human_aligned: 20 });
    } finally {
      useConditions(FOUR);
    }
  });
});

describe('the main experiment follows the condition', () => {
  it('explanation conditions: their own alphas on the set, the explanation with them, all five questions', async () => {
    const own = await started('ai_explanation');
    expect(own.start.condition).toEqual({ name: 'ai_explanation', shows: 'explanation', ai_timing: 'after_initial', judgements: 2, outcome_feedback: false, advice_on_request: false, advice_wait_seconds: null, time_limit: null, incentive: null });
    expect(new Set(own.start.case_set.map((c) => c.alignment_alpha))).toEqual(new Set([1]));
    const aligned = await started('human_aligned');
    expect(new Set(aligned.start.case_set.map((c) => c.alignment_alpha))).toEqual(new Set(studyConfig.mainExperiment.alphaLevels));

    const caseId = own.start.case_set[0]!.case_id;
    const e = explanationResponseSchema.parse(await (await postJson('/api/human-aligned-explanation', { session_id: own.id, case_id: caseId, ...INITIAL })).json());
    expect(e.alignment_alpha).toBe(1);
    expect(e.shown_feature_importance.length).toBeGreaterThan(0);
    const fewer = await postJson('/api/experiments/main/integrated-response', answer(own.id, caseId, e, { initial: true, ratings: ['trust'] }));
    expect(fewer.status).toBe(400);
    expect(await fewer.text()).toContain('ai_explanation: comprehensibility is required');
    expect((await postJson('/api/experiments/main/integrated-response', answer(own.id, caseId, e, { initial: true, ratings: ALL_RATINGS }))).status).toBe(201);
  });

  it("the AI's prediction alone: no bars sent, trust the only question", async () => {
    const p = await started('prediction_only');
    expect(p.start.condition.shows).toBe('ai_prediction');
    expect(p.start.case_set.every((c) => c.alignment_alpha === null)).toBe(true);
    const caseId = p.start.case_set[0]!.case_id;
    const e = explanationResponseSchema.parse(await (await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: caseId, ...INITIAL })).json());
    expect(e).toMatchObject({ explanation_kind: 'prediction_only', alignment_alpha: null, ai_feature_importance: [], user_feature_importance: [], shown_feature_importance: [] });
    const withAll = await postJson('/api/experiments/main/integrated-response', answer(p.id, caseId, e, { initial: true, ratings: ALL_RATINGS }));
    expect(withAll.status).toBe(400);
    expect(await withAll.text()).toContain('comprehensibility is not asked in this condition');
    expect((await postJson('/api/experiments/main/integrated-response', answer(p.id, caseId, e, { initial: true, ratings: ['trust'] }))).status).toBe(201);
    const row = await env.DB.prepare('select explanation_kind, alignment_alpha, comprehensibility, trust, ai_prediction from main_experiment_responses where session_id = ?').bind(p.id).first();
    expect(row).toEqual({ explanation_kind: 'prediction_only', alignment_alpha: null, comprehensibility: null, trust: 4, ai_prediction: e.prediction });
  });

  it('no AI: the explanation call is refused, the case holds two judgements and no AI', async () => {
    const p = await started('no_ai');
    const caseId = p.start.case_set[0]!.case_id;
    const refused = await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: caseId });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { code: string }).code).toBe('no_ai_in_condition');
    const alpha = await api(`/api/experiments/alignment-alpha/${p.id}/0/50`);
    expect(alpha.status).toBe(409);
    const before = (await env.DB.prepare('select count(*) as n from main_experiment_responses').first<{ n: number }>())!.n;
    const withAi = await postJson('/api/experiments/main/integrated-response', answer(p.id, caseId, { prediction: 1, ai_feature_importance: [], shown_feature_importance: [] }, { initial: true, ratings: [] }));
    expect(withAi.status).toBe(400);
    expect(await withAi.text()).toContain('this condition shows no AI prediction');
    expect((await env.DB.prepare('select count(*) as n from main_experiment_responses').first<{ n: number }>())!.n).toBe(before);
    expect((await postJson('/api/experiments/main/integrated-response', answer(p.id, caseId, null, { initial: true, ratings: [] }))).status).toBe(201);
    const summary = (await (await api(`/api/experiments/main/summary/${p.id}`)).json()) as { judgement_changes: number; final_agrees_with_ai: number };
    expect(summary).toMatchObject({ judgement_changes: 1, final_agrees_with_ai: 0 });
  });

  it('judging once without AI: one judgement stored, none counted as changed', async () => {
    useConditions([...FOUR, conditionSchema.parse({ name: 'once', shows: 'none', judgements: 1, share: 1 })]);
    try {
      const p = await started('once');
      expect(p.start.condition).toEqual({ name: 'once', shows: 'none', ai_timing: null, judgements: 1, outcome_feedback: false, advice_on_request: false, advice_wait_seconds: null, time_limit: null, incentive: null });
      const caseId = p.start.case_set[0]!.case_id;
      const twice = await postJson('/api/experiments/main/integrated-response', answer(p.id, caseId, null, { initial: true, ratings: [] }));
      expect(await twice.text()).toContain('once: there is no initial judgement in this condition');
      expect((await postJson('/api/experiments/main/integrated-response', answer(p.id, caseId, null, { initial: false, ratings: [] }))).status).toBe(201);
      const summary = (await (await api(`/api/experiments/main/summary/${p.id}`)).json()) as { completed_cases: number; judgement_changes: number };
      expect(summary).toMatchObject({ completed_cases: 1, judgement_changes: 0 });
    } finally {
      useConditions(FOUR);
    }
  });

  it('exports carry the condition', async () => {
    const p = await started('prediction_only');
    const caseId = p.start.case_set[0]!.case_id;
    const e = explanationResponseSchema.parse(await (await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: caseId, ...INITIAL })).json());
    await postJson('/api/experiments/main/integrated-response', answer(p.id, caseId, e, { initial: true, ratings: ['trust'] }));
    const exported = await (await api(`/api/enhanced-export/main-experiment?user_name=${p.id}`, { headers: { Cookie: cookie } })).text();
    const [header, line] = exported.trim().split(/\r?\n/);
    const column = header!.split(',').indexOf('condition');
    expect(column).toBeGreaterThan(0);
    expect(line!.split(',')[column]).toBe('prediction_only');
  });

  it('registration tools register under a chosen condition; the figures come by condition, and by alpha within one', async () => {
    const asAdmin = (path: string) => api(path, { method: 'POST', headers: { Cookie: cookie } });
    for (const [name, condition] of [
      ['test_cond_pred', 'prediction_only'],
      ['test_cond_none', 'no_ai'],
      ['test_cond_own', 'ai_explanation'],
    ] as const) {
      expect((await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`)).status).toBe(200);
      const res = await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=6&condition=${condition}`);
      expect(res.status, await res.clone().text()).toBe(200);
      const body = (await res.json()) as { condition: string; registered_cases: number; case_details: { initial_prediction: number | null; avg_subjective_rating: number | null }[] };
      expect(body).toMatchObject({ condition, registered_cases: 6 });
      if (condition === 'no_ai') expect(body.case_details.every((d) => d.avg_subjective_rating === null)).toBe(true);
    }
    const refused = await asAdmin('/api/admin/register-main-experiment-responses?participant_name=test_cond_x&dataset_type=compas&condition=nonsense');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('unknown condition');

    const report = (await (await api('/api/admin/analytics/reliance?include_synthetic=true', { headers: { Cookie: cookie } })).json()) as {
      by_condition: { condition: string; trials: number; metrics: Record<string, { pooled: number | null }> }[];
      by_alpha: { condition: string; explanation_kind: string; alignment_alpha: number | null }[];
    };
    const of = (name: string) => report.by_condition.find((g) => g.condition === name)!;
    expect(of('prediction_only').trials).toBeGreaterThanOrEqual(6);
    // Without the AI, agreement with it is undefined; final accuracy is not.
    expect(of('no_ai').metrics.agreement!.pooled).toBeNull();
    expect(of('no_ai').metrics.final_accuracy!.pooled).not.toBeNull();
    expect(of('prediction_only').metrics.agreement!.pooled).not.toBeNull();
    expect(report.by_alpha).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ condition: 'no_ai', explanation_kind: 'no_ai', alignment_alpha: null }),
        expect.objectContaining({ condition: 'prediction_only', explanation_kind: 'prediction_only', alignment_alpha: null }),
        // The AI's own explanation by design is coded as such, not as alpha 1 of the human-aligned mix.
        expect.objectContaining({ condition: 'ai_explanation', explanation_kind: 'ai_explanation', alignment_alpha: null }),
      ]),
    );
    const stats = (await (await api('/api/admin/stats?include_synthetic=true', { headers: { Cookie: cookie } })).json()) as { condition_balance: { condition: string; sessions: number }[] };
    expect(stats.condition_balance.map((b) => b.condition)).toEqual(expect.arrayContaining(['no_ai', 'prediction_only', 'ai_explanation']));
    const byCondition = await (await api('/api/enhanced-export/reliance-by-condition?include_synthetic=true', { headers: { Cookie: cookie } })).text();
    expect(byCondition.split(/\r?\n/)[0]).toMatch(/^condition,participants,trials/);
    expect(byCondition).toContain('prediction_only');
  });

  it('the post-survey asks only about what the condition showed, and the debrief says what was true', async () => {
    const withoutAi = completePostSurvey();
    for (const name of ['ai_trust_before_disclosure', 'ai_understanding_before_disclosure', 'ai_explanation_helpfulness_before']) delete withoutAi.demographics[name];
    const done = async (condition: string) => {
      const p = await started(condition);
      await env.DB.prepare("update sessions set main_completed_at = ?, current_phase = 'post_survey' where session_id = ?").bind(new Date().toISOString(), p.id).run();
      return p;
    };
    const alone = await done('no_ai');
    const check = (await (await api(`/api/post-survey/check/${alone.id}`)).json()) as { audience: unknown };
    expect(check.audience).toEqual({ ai: false, explanations: false, adjusted: false });
    expect((await postJson('/api/post-survey/', { session_id: alone.id, ...withoutAi })).status).toBe(201);
    // Where the AI's explanations were shown and adjusted, the same answers miss its questions.
    const aligned = await done('human_aligned');
    expect(((await (await api(`/api/post-survey/check/${aligned.id}`)).json()) as { audience: unknown }).audience).toEqual({ ai: true, explanations: true, adjusted: true });
    const missing = await postJson('/api/post-survey/', { session_id: aligned.id, ...withoutAi });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('ai_explanation_helpfulness_before');
    // The AI's own explanation (alpha 1) was never adjusted.
    const own = await done('ai_explanation');
    expect(((await (await api(`/api/post-survey/check/${own.id}`)).json()) as { audience: unknown }).audience).toEqual({ ai: true, explanations: true, adjusted: false });
  });
});
