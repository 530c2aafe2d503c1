/**
 * Nothing of the AI reaches a participant except through a recorded serve their condition allows
 * (issue #56, points 1 and 2): every route that answers with the AI's output, asked by a session in
 * each condition about each kind of case, and without a session; and a serve's kind decided by the
 * server alone, whichever route asks first.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { aiExplanationResponseSchema, explanationResponseSchema, type ExplanationResponse } from '../../worker/schemas/main-experiment';
import { adminCookie, api, postJson } from '../helpers/api';
import { consentedParticipant, priorsRule, seedCompasStudy, startedIn } from '../helpers/study-factories';
import { runWithConditions } from '../helpers/study-conditions';
import { DESIGN_WITHOUT_WAITS } from '../conditions/design';

/**
 * The design's conditions this file's synthetic pools can give: the synthetic AI is right on every
 * synthetic case, so a condition setting its accuracy cannot start here (test/worker/ai-accuracy.test.ts draws one).
 * A forced wait is left out (its serves wait by the Worker's clock: test/worker/advice-on-request.test.ts).
 */
const CONDITIONS = DESIGN_WITHOUT_WAITS.filter((c) => c.shows === 'none' || c.aiAccuracy === undefined);
runWithConditions(CONDITIONS);
beforeAll(async () => {
  await seedCompasStudy();
  await env.DB.prepare(
    "insert or ignore into cases (case_id, dataset_type, pool, case_number, features, ground_truth, created_at) values ('adult_income_main_a_001', 'adult_income', 'main_experiment', 1, '{}', 0, '2026-01-01T00:00:00Z')",
  ).run();
});

const INITIAL = { initial_prediction: 1, initial_confidence: 3, initial_response_time_ms: 4000 } as const;
const asQuery = (o: object) => new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)])).toString();
const one = <T>(sql: string, ...binds: unknown[]) => env.DB.prepare(sql).bind(...binds).first<T>();

const started = (condition: string) => startedIn(condition);

type CaseKind = 'tutorial' | 'own_pre' | 'own_main' | 'others_main' | 'other_dataset';
const CASE_KINDS: CaseKind[] = ['tutorial', 'own_pre', 'own_main', 'others_main', 'other_dataset'];

/** The case of each kind for a session: the practice case, its own pre and main cases (every session judges the whole pre pool), a main case of another set, another dataset's case. */
async function caseOf(kind: CaseKind, p: { set: { case_id: string }[] }): Promise<string> {
  switch (kind) {
    case 'tutorial':
      return 'tutorial_compas';
    case 'own_pre':
      return 'compas_pre_041';
    case 'own_main':
      return p.set[0]!.case_id;
    case 'others_main': {
      const ids = JSON.stringify(p.set.map((c) => c.case_id));
      return (await one<{ case_id: string }>("select case_id from cases where pool = 'main_experiment' and dataset_type = 'compas' and case_id not in (select value from json_each(?)) limit 1", ids))!.case_id;
    }
    case 'other_dataset':
      return 'adult_income_main_a_001';
  }
}

type Route = 'human_aligned_post' | 'ai_only_get' | 'main_predict';
/** Each route that answers with the AI, for a session and a case (main/predict names a case by its place in the set, so only the own main case). */
async function ask(route: Route, sessionId: string, caseId: string, set: { case_id: string }[]): Promise<{ status: number; code: string | null; explanation: ExplanationResponse | null }> {
  let res: Response;
  if (route === 'human_aligned_post') res = await postJson('/api/human-aligned-explanation', { session_id: sessionId, case_id: caseId, ...INITIAL });
  else if (route === 'ai_only_get') res = await api(`/api/experiments/explanations/${caseId}?session_id=${sessionId}&${asQuery(INITIAL)}`);
  else res = await postJson(`/api/experiments/main/predict?session_id=${sessionId}&case_index=${set.findIndex((c) => c.case_id === caseId)}`, INITIAL);
  const body = await res.json();
  if (res.status !== 200) return { status: res.status, code: errorBodySchema.parse(body).code ?? null, explanation: null };
  const explanation = route === 'human_aligned_post' ? explanationResponseSchema.parse(body) : aiExplanationResponseSchema.parse(body).explanation;
  return { status: 200, code: null, explanation };
}

/** What each condition's session gets for each kind of case: status and code. */
const SHOWS_AI = { tutorial: [200, null], own_pre: [400, 'case_not_in_set'], own_main: [200, null], others_main: [400, 'case_not_in_set'], other_dataset: [400, 'dataset_mismatch'] } as const;
const NO_AI = { tutorial: [409, 'no_ai_in_condition'], own_pre: [409, 'no_ai_in_condition'], own_main: [409, 'no_ai_in_condition'], others_main: [409, 'no_ai_in_condition'], other_dataset: [400, 'dataset_mismatch'] } as const;
/** The kind served in each condition (the debug start fits no participant model, so an explanation condition's mix falls back to the AI's own bars). */
const KIND: Record<string, string | null> = {
  no_ai: null,
  no_ai_once: null,
  prediction_only: 'prediction_only',
  prediction_confidence: 'prediction_only',
  ai_explanation: 'ai_explanation',
  human_aligned: 'ai_only',
  explanation_with_case: 'ai_only',
};

describe('every AI answer to a participant is a recorded serve their condition allows', () => {
  it.each(CONDITIONS.map((c) => c.name))('%s: each route × each kind of case', async (condition) => {
    const p = await started(condition);
    const expected = KIND[condition] === null ? NO_AI : SHOWS_AI;
    for (const kind of CASE_KINDS) {
      const caseId = await caseOf(kind, p);
      const routes: Route[] = kind === 'own_main' ? ['human_aligned_post', 'ai_only_get', 'main_predict'] : ['human_aligned_post', 'ai_only_get'];
      for (const route of routes) {
        const got = await ask(route, p.id, caseId, p.set);
        const [status, code] = expected[kind];
        expect(got.status, `${condition} ${kind} ${route}`).toBe(status);
        expect(got.code, `${condition} ${kind} ${route}`).toBe(code);
        if (!got.explanation) continue;
        // Only in the condition's shape: its kind, bars only where it shows an explanation, nothing of the participant's model beyond it.
        expect(got.explanation.explanation_kind).toBe(KIND[condition]);
        expect(got.explanation.served_explanation_id).toBeGreaterThan(0);
        if (KIND[condition] === 'prediction_only') {
          expect(got.explanation).toMatchObject({ ai_probability: null, ai_base_probability: null, shown_feature_importance: [], ai_feature_importance: [], user_feature_importance: [], alignment_alpha: null });
          // The AI's confidence only where the condition shows it (its probability for the class it predicts).
          expect(got.explanation.ai_confidence === null).toBe(condition === 'prediction_only');
        } else {
          expect(got.explanation.shown_feature_importance.length).toBeGreaterThan(0);
        }
      }
    }
    // Every answer was a serve: one row for the practice case (asked twice), one for the own main case (asked three times).
    const serves = await env.DB.prepare('select case_id, kind, serve_count from served_explanations where session_id = ? order by case_id').bind(p.id).all<Record<string, unknown>>();
    if (KIND[condition] === null) expect(serves.results).toEqual([]);
    else {
      expect(serves.results).toEqual(
        [
          { case_id: p.set[0]!.case_id, kind: KIND[condition], serve_count: 3 },
          { case_id: 'tutorial_compas', kind: KIND[condition], serve_count: 2 },
        ].sort((a, b) => a.case_id.localeCompare(b.case_id)),
      );
    }
  });

  it('gives nothing of the AI to a session whose main experiment has not started, by any route, for any case', async () => {
    const p = await consentedParticipant('compas');
    for (const kind of CASE_KINDS) {
      const caseId = await caseOf(kind, { set: [{ case_id: 'compas_main_a_001' }] });
      for (const route of ['human_aligned_post', 'ai_only_get'] as const) {
        const got = await ask(route, p.id, caseId, []);
        expect([got.status, got.code], `${kind} ${route}`).toEqual([409, 'main_experiment_not_started']);
      }
    }
    expect((await postJson(`/api/experiments/main/predict?session_id=${p.id}&case_index=0`, INITIAL)).status).toBe(404);
    expect(await one('select count(*) as n from served_explanations where session_id = ?', p.id)).toEqual({ n: 0 });
    expect(await one('select ai_model_identifier as id from sessions where session_id = ?', p.id)).toEqual({ id: null });
  });

  it('without a session explains only the practice cases (nobody judges them), any case only for an administrator, and records nothing', async () => {
    const before = await one<{ n: number }>('select count(*) as n from served_explanations');
    const cookie = await adminCookie();
    for (const [caseId, anyone, admin] of [
      ['tutorial_compas', 200, 200],
      ['compas_pre_041', 403, 200],
      ['compas_main_a_001', 403, 200],
      ['no_such_case', 404, 404],
    ] as const) {
      expect((await api(`/api/experiments/explanations/${caseId}`)).status, caseId).toBe(anyone);
      expect((await api(`/api/experiments/explanations/${caseId}`, { headers: { cookie } })).status, caseId).toBe(admin);
    }
    expect(await one('select count(*) as n from served_explanations')).toEqual(before);
  });
});

const withOwnModel = (condition: string) => startedIn(condition, { preRule: priorsRule });

describe("a serve's kind is the server's decision, never the page's", () => {
  it('serves the human-aligned mix when the AI-only route asks first, the same serve to every route after, and stores the trial with it', async () => {
    const p = await withOwnModel('human_aligned');
    const caseId = p.set.find((c) => c.alignment_alpha! < 1)!.case_id;
    const fallback = aiExplanationResponseSchema.parse(await (await api(`/api/experiments/explanations/${caseId}?session_id=${p.id}&${asQuery(INITIAL)}`)).json());
    expect(fallback.explanation).toMatchObject({ explanation_kind: 'human_aligned', human_aligned_used: true });
    // The AI-only shape carries the bars shown: the mix.
    expect(fallback.feature_importance).toEqual(fallback.explanation!.shown_feature_importance);
    const post = explanationResponseSchema.parse(await (await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: caseId })).json());
    expect(post).toEqual(fallback.explanation);
    const index = p.set.findIndex((c) => c.case_id === caseId);
    const predicted = aiExplanationResponseSchema.parse(await (await postJson(`/api/experiments/main/predict?session_id=${p.id}&case_index=${index}`, {})).json());
    expect(predicted.explanation).toEqual(post);
    expect((await env.DB.prepare('select kind, ai_only_reason, serve_count from served_explanations where session_id = ?').bind(p.id).all()).results).toEqual([
      { kind: 'human_aligned', ai_only_reason: null, serve_count: 3 },
    ]);
    const saved = await postJson('/api/experiments/main/integrated-response', {
      session_id: p.id,
      case_id: caseId,
      final_prediction: 0,
      final_confidence: 4,
      final_response_time_ms: 2000,
      served_explanation_id: post.served_explanation_id,
      explanation_kind: post.explanation_kind,
      ai_prediction: post.prediction,
      shown_feature_importance: post.shown_feature_importance,
      comprehensibility: 4,
      transparency: 4,
      satisfaction: 4,
      trust: 4,
      alignment: 4,
      explanation_viewing_time_ms: 3000,
      total_task_time_ms: 9000,
    });
    expect(saved.status, await saved.clone().text()).toBe(201);
    expect(await one('select explanation_kind, ai_only_reason from main_experiment_responses where session_id = ?', p.id)).toEqual({ explanation_kind: 'human_aligned', ai_only_reason: null });
  });

  it('records a real fallback with its reason, and no alpha with bars that are no mix', async () => {
    const p = await started('human_aligned');
    const e = explanationResponseSchema.parse(await (await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: p.set[0]!.case_id, ...INITIAL })).json());
    expect(e).toMatchObject({ explanation_kind: 'ai_only', alignment_alpha: null, human_aligned_used: false });
    expect(await one('select kind, ai_only_reason, alignment_alpha from served_explanations where session_id = ?', p.id)).toEqual({
      kind: 'ai_only',
      ai_only_reason: 'no_user_model',
      alignment_alpha: null,
    });
  });
});
