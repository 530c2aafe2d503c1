/**
 * The server writes the trial record (issue #41): what a trial says of the AI is what the Worker
 * served and recorded, from the session's pinned model and as its condition shows it; the main
 * experiment never starts without the participant's own model; a session's phases only move
 * forward and a closed session takes no write; a refused request stores nothing; and a
 * condition's slots go to the participants the figures count.
 */
import { env } from 'cloudflare:workers';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { caseSetResponseSchema } from '../../worker/schemas/experiment';
import { aiExplanationResponseSchema, explanationResponseSchema, mainStartResponseSchema } from '../../worker/schemas/main-experiment';
import { conditionSchema, type Condition } from '../../worker/schemas/study';
import { adminCookie, api, postJson } from '../helpers/api';
import { userModelListSchema } from '../../worker/schemas/model-verification';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { allConsentItems, answerWholePre, consentedParticipant, newParticipantId, priorsRule, seedCompasAiModel, seedCompasStudy, startedIn } from '../helpers/study-factories';
import { runWithConditions, useConditions } from '../helpers/study-conditions';

const CONDITIONS: Condition[] = [
  { name: 'no_ai', shows: 'none', judgements: 2, share: 1 },
  { name: 'prediction_only', shows: 'ai_prediction', aiTiming: 'after_initial', share: 1 },
  { name: 'human_aligned', shows: 'explanation', aiTiming: 'after_initial', share: 1 },
].map((c) => conditionSchema.parse(c));

runWithConditions(CONDITIONS);
beforeAll(async () => {
  await seedCompasStudy();
});

const one = <T>(sql: string, ...binds: unknown[]) => env.DB.prepare(sql).bind(...binds).first<T>();
const count = async (sql: string, ...binds: unknown[]) => (await one<{ n: number }>(sql, ...binds))!.n;
const trials = (id: string) => count('select count(*) as n from main_experiment_responses where session_id = ?', id);
const save = (body: unknown) => postJson('/api/experiments/main/integrated-response', body);
/** The initial judgement of this file's trials; the request revealing the AI carries it. */
const INITIAL = { initial_prediction: 0, initial_confidence: 3, initial_response_time_ms: 3000 } as const;
const explain = (id: string, caseId: string) => postJson('/api/human-aligned-explanation', { session_id: id, case_id: caseId, ...INITIAL });

/** A participant in `condition` whose main experiment has started after the whole pre-experiment (answered by a rule their model can learn, or `rule`). */
const inMain = (condition: string, rule: (f: Record<string, unknown>) => number = priorsRule) => startedIn(condition, { preRule: rule });

const judged = (id: string, caseId: string, extra: Record<string, unknown> = {}) => ({
  session_id: id,
  case_id: caseId,
  ...INITIAL,
  final_prediction: 1,
  final_confidence: 4,
  final_response_time_ms: 2000,
  total_task_time_ms: 9000,
  ...extra,
});
const ALL_RATINGS = { comprehensibility: 3, transparency: 3, satisfaction: 3, trust: 3, alignment: 3 };

describe('the AI side of a trial is the serve the Worker recorded', () => {
  it('prediction only: the page is sent the prediction and nothing it does not show, and a forged prediction or model is refused, naming each field', async () => {
    const p = await inMain('prediction_only');
    const item = p.set[0]!;
    const e = explanationResponseSchema.parse(await (await explain(p.id, item.case_id)).json());
    expect(e).toMatchObject({ explanation_kind: 'prediction_only', ai_probability: null, ai_base_probability: null, alignment_alpha: null, user_model_prediction: null, user_model_probability: null, user_model_identifier: null });
    expect([e.ai_feature_importance, e.user_feature_importance, e.shown_feature_importance]).toEqual([[], [], []]);
    const forged = 1 - e.prediction;
    const res = await save(judged(p.id, item.case_id, { final_prediction: forged, ai_prediction: forged, ai_model_identifier: 'made_up_model', trust: 4 }));
    expect(res.status).toBe(400);
    const body = errorBodySchema.parse(await res.json());
    expect(body.code).toBe('ai_record_mismatch');
    expect((body.detail as { loc: string[] }[]).map((d) => d.loc[1]).sort()).toEqual(['ai_model_identifier', 'ai_prediction']);
    // An explanation's kind or bars claimed for a case that showed the prediction alone.
    const asExplanation = await save(judged(p.id, item.case_id, { explanation_kind: 'human_aligned', shown_feature_importance: [{ feature: 'age', importance: 1, abs_importance: 1, raw_shap: 1 }], trust: 4 }));
    expect(asExplanation.status).toBe(400);
    expect(await trials(p.id)).toBe(0);
    // What was served is stored, with the AI's probability the Worker computed (kept, never sent).
    expect((await save(judged(p.id, item.case_id, { ai_prediction: e.prediction, trust: 4 }))).status).toBe(201);
    const row = (await one<Record<string, unknown>>('select * from main_experiment_responses where session_id = ?', p.id))!;
    expect(row).toMatchObject({ ai_prediction: e.prediction, ai_model_identifier: e.model_identifier, explanation_kind: 'prediction_only', served_explanation_id: e.served_explanation_id });
    expect(row.ai_probability).toBeGreaterThan(0);
  });

  it('an explanation case sent as prediction_only is refused', async () => {
    const p = await inMain('human_aligned');
    const item = p.set[0]!;
    const e = explanationResponseSchema.parse(await (await explain(p.id, item.case_id)).json());
    const res = await save(judged(p.id, item.case_id, { ...ALL_RATINGS, explanation_kind: 'prediction_only', ai_prediction: e.prediction }));
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).code).toBe('ai_record_mismatch');
    expect(await trials(p.id)).toBe(0);
  });

  it('records each serve once, counting a repeat on its row', async () => {
    const p = await inMain('human_aligned');
    const item = p.set[3]!;
    const first = explanationResponseSchema.parse(await (await explain(p.id, item.case_id)).json());
    const again = explanationResponseSchema.parse(await (await explain(p.id, item.case_id)).json());
    expect(again).toEqual(first);
    const served = await env.DB.prepare('select * from served_explanations where session_id = ?').bind(p.id).all<Record<string, unknown>>();
    expect(served.results).toHaveLength(1);
    expect(served.results[0]).toMatchObject({ id: first.served_explanation_id, case_id: item.case_id, kind: 'human_aligned', serve_count: 2, alignment_alpha: item.alignment_alpha, ai_prediction: first.prediction });
    // The researcher gets the record in the all-data export, next to the cases stored from it.
    const zip = await api('/api/enhanced-export/all-data?format=csv', { headers: { Cookie: await adminCookie() } });
    expect(zip.status).toBe(200);
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const rows = Papa.parse<Record<string, string>>(strFromU8(files['served-explanations.csv']!), { header: true, skipEmptyLines: true }).data;
    expect(rows.find((r) => r.session_id === p.id)).toMatchObject({ id: String(first.served_explanation_id), user_name: p.id, case_id: item.case_id, kind: 'human_aligned', serve_count: '2' });
  });
});

describe('every AI answer comes from the session pinned model and follows its condition', () => {
  it("the AI-only fallback and main/predict explain with the session's pinned model after another is activated", async () => {
    const p = await inMain('human_aligned');
    const item = p.set[1]!;
    const pinned = (await one<{ id: string }>('select ai_model_identifier as id from sessions where session_id = ?', p.id))!.id;
    // The fallback reveals the AI as well: its query carries the initial judgement.
    const given = new URLSearchParams(Object.entries(INITIAL).map(([k, v]) => [k, String(v)]));
    const before = aiExplanationResponseSchema.parse(await (await api(`/api/experiments/explanations/${item.case_id}?session_id=${p.id}&${given}`)).json());
    const other = await seedCompasAiModel(99);
    try {
      const active = aiExplanationResponseSchema.parse(await (await api(`/api/experiments/explanations/${item.case_id}`, { headers: { Cookie: await adminCookie() } })).json());
      expect(active.model_identifier).toBe(other);
      const fallback = aiExplanationResponseSchema.parse(await (await api(`/api/experiments/explanations/${item.case_id}?session_id=${p.id}`)).json());
      expect(fallback).toMatchObject({ model_identifier: pinned, probability: before.probability });
      // Asked again by either route, the case's serve is the one first served: the route does not make it an AI-only one.
      expect(fallback.served_explanation_id).toBe(before.served_explanation_id);
      expect(fallback.explanation).toMatchObject({ explanation_kind: 'human_aligned', model_identifier: pinned });
      const predicted = aiExplanationResponseSchema.parse(await (await api(`/api/experiments/main/predict?session_id=${p.id}&case_index=1`, { method: 'POST' })).json());
      expect(predicted).toMatchObject({ model_identifier: pinned, probability: before.probability, case_id: item.case_id, served_explanation_id: before.served_explanation_id });
      const served = (await one<Record<string, unknown>>('select kind, ai_only_reason, ai_model_identifier, serve_count from served_explanations where id = ?', fallback.served_explanation_id))!;
      expect(served).toEqual({ kind: 'human_aligned', ai_only_reason: null, ai_model_identifier: pinned, serve_count: 3 });
      expect(await count('select count(*) as n from served_explanations where session_id = ?', p.id)).toBe(1);
      const e = fallback.explanation!;
      const res = await save(judged(p.id, item.case_id, { ...ALL_RATINGS, served_explanation_id: e.served_explanation_id, explanation_kind: e.explanation_kind, ai_prediction: e.prediction, shown_feature_importance: e.shown_feature_importance }));
      expect(res.status, await res.clone().text()).toBe(201);
      expect(await one('select explanation_kind, ai_only_reason, ai_model_identifier from main_experiment_responses where session_id = ?', p.id)).toEqual({
        explanation_kind: 'human_aligned',
        ai_only_reason: null,
        ai_model_identifier: pinned,
      });
    } finally {
      await seedCompasAiModel();
    }
  });

  it('answers no AI for a no-AI session, and the prediction alone for a prediction-only one', async () => {
    const none = await inMain('no_ai');
    for (const res of [
      await api(`/api/experiments/main/predict?session_id=${none.id}&case_index=0`, { method: 'POST' }),
      await api(`/api/experiments/explanations/${none.set[0]!.case_id}?session_id=${none.id}`),
      await explain(none.id, none.set[0]!.case_id),
    ]) {
      expect(res.status).toBe(409);
      expect(errorBodySchema.parse(await res.json()).code).toBe('no_ai_in_condition');
    }
    expect(await count('select count(*) as n from served_explanations where session_id = ?', none.id)).toBe(0);
    const alone = await inMain('prediction_only');
    const predicted = aiExplanationResponseSchema.parse(await (await postJson(`/api/experiments/main/predict?session_id=${alone.id}&case_index=0`, INITIAL)).json());
    expect(predicted).toMatchObject({ feature_importance: [], probability: null, base_probability: null });
  });
});

describe('no main experiment without the participant model', () => {
  it('fits the model in the start request when the page never asked, on the whole pre-experiment', async () => {
    const p = await inMain('human_aligned');
    expect(await one('select status, training_samples from user_models where session_id = ?', p.id)).toEqual({ status: 'trained', training_samples: 200 });
    const e = explanationResponseSchema.parse(await (await explain(p.id, p.set[0]!.case_id)).json());
    expect(e.explanation_kind).toBe('human_aligned');
  });

  it('records a model that cannot be fitted (one answer to every case) and serves the AI bars saying why', async () => {
    const p = await inMain('human_aligned', () => 1);
    const model = (await one<{ status: string; failure_reason: string }>('select status, failure_reason from user_models where session_id = ?', p.id))!;
    expect(model.status).toBe('training_failed');
    expect(model.failure_reason).toContain('every one of the 200');
    const e = explanationResponseSchema.parse(await (await explain(p.id, p.set[0]!.case_id)).json());
    expect(e.explanation_kind).toBe('ai_only');
    expect((await save(judged(p.id, p.set[0]!.case_id, ALL_RATINGS))).status).toBe(201);
    expect(await one('select explanation_kind, ai_only_reason from main_experiment_responses where session_id = ?', p.id)).toEqual({ explanation_kind: 'ai_only', ai_only_reason: 'user_model_failed' });
    // The researcher sees it on the model-verification page, with why.
    const cookie = await adminCookie();
    const list = userModelListSchema.parse(
      await (await api('/api/model-verification/user-models/list?dataset_type=compas&include_unlearned=true&limit=1000', { headers: { Cookie: cookie } })).json(),
    );
    expect(list.user_models.find((u) => u.username === p.id)).toMatchObject({ training_status: 'training_failed', failure_reason: expect.stringContaining('every one of the 200') });
  });
});

/** A participant who finished everything through the debug bypass (no pre-experiment). */
async function completedAfterBypass() {
  const p = await consentedParticipant('compas');
  await env.DB.prepare("update sessions set condition = 'no_ai' where session_id = ?").bind(p.id).run();
  const start = await postJson('/api/experiments/main/start', { session_id: p.id, debug: true });
  const set = mainStartResponseSchema.parse(await start.json()).case_set;
  for (const item of set) expect((await save(judged(p.id, item.case_id))).status).toBe(201);
  const survey = await postJson('/api/post-survey/', { session_id: p.id, ...completePostSurvey(undefined, { ai: false, explanations: false, adjusted: false }) });
  expect(survey.status, await survey.clone().text()).toBe(201);
  return { ...p, set };
}

describe('phases only move forward; after completion nothing is written', () => {
  it('a completed session takes no write, counts no resume and keeps its phase', async () => {
    const p = await completedAfterBypass();
    const before = (await one<Record<string, unknown>>('select * from sessions where session_id = ?', p.id))!;
    for (let i = 0; i < 3; i++) expect((await postJson('/api/experiments/resume', { participant_name: p.id })).status).toBe(200);
    const pool = caseSetResponseSchema.parse(await (await api(`/api/experiments/case-sets/fixed?participant_id=${p.id}&num_cases=200&experiment_type=pre_experiment`)).json());
    const writes = [
      postJson('/api/experiments/pre-experiment/responses', { session_id: p.id, case_id: pool.case_set[0]!.case_id, prediction: 1, confidence: 3, response_time_ms: 900 }),
      save(judged(p.id, p.set[0]!.case_id)),
      postJson('/api/consent/submit', { session_id: p.id, consent_items: allConsentItems() }),
      postJson('/api/user-model/train', { session_id: p.id }),
      postJson('/api/experiments/main/start', { session_id: p.id }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status, await res.clone().text()).toBe(409);
      expect(errorBodySchema.parse(await res.json()).code).toBe('study_completed');
    }
    const after = (await one<Record<string, unknown>>('select * from sessions where session_id = ?', p.id))!;
    expect(after).toEqual(before);
    expect(after).toMatchObject({ current_phase: 'completed', resume_count: 0 });
    expect(await count('select count(*) as n from pre_experiment_responses where session_id = ?', p.id)).toBe(0);
  });

  it('a consent resend changes nothing, not even updated_at', async () => {
    const p = await consentedParticipant('compas');
    const before = (await one<Record<string, unknown>>('select * from sessions where session_id = ?', p.id))!;
    const res = await postJson('/api/consent/submit', { session_id: p.id, user_id: p.userId, consent_items: allConsentItems() });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { duplicate: boolean }).duplicate).toBe(true);
    expect(await one('select * from sessions where session_id = ?', p.id)).toEqual(before);
  });

  it('closes the pre-experiment and the participant model once the main experiment started; a resend of a stored answer is still a duplicate', async () => {
    const p = await inMain('human_aligned');
    const pool = caseSetResponseSchema.parse(await (await api(`/api/experiments/case-sets/fixed?participant_id=${p.id}&num_cases=200&experiment_type=pre_experiment`)).json());
    const stored = (await one<Record<string, unknown>>('select case_id, prediction, confidence, response_time_ms from pre_experiment_responses where session_id = ?', p.id))!;
    const resend = await postJson('/api/experiments/pre-experiment/responses', { session_id: p.id, ...stored });
    expect(resend.status).toBe(200);
    expect(((await resend.json()) as { duplicate: boolean }).duplicate).toBe(true);
    expect(pool.case_set).toHaveLength(200);
    const retrain = await postJson('/api/user-model/train', { session_id: p.id, force_retrain: true });
    expect(retrain.status).toBe(409);
    expect(errorBodySchema.parse(await retrain.json()).code).toBe('phase_closed');
    expect(await count('select count(*) as n from user_model_versions where session_id = ?', p.id)).toBe(0);
  });
});

describe('a refused request stores nothing', () => {
  it('a pre-experiment answer for an unknown case, before the set was drawn, draws no set', async () => {
    const p = await consentedParticipant('compas');
    const res = await postJson('/api/experiments/pre-experiment/responses', { session_id: p.id, case_id: 'compas_pre_999999', prediction: 1, confidence: 3, response_time_ms: 900 });
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).code).toBe('case_not_in_set');
    expect(await count('select count(*) as n from case_set_items where session_id = ?', p.id)).toBe(0);
  });
});

describe("who takes a condition's slot", () => {
  it('synthetic, test_ and bypass sessions take none: the balance counts the participants the figures count', async () => {
    // Set-aside sessions all in one condition, as a registration run or debug sessions make them.
    for (let i = 0; i < 4; i++) {
      const p = await consentedParticipant('compas');
      await env.DB.prepare("update sessions set condition = 'prediction_only', main_start_bypass = 'debug' where session_id = ?").bind(p.id).run();
      await env.DB.prepare("update participants set origin = 'admin_synthetic' where id = ?").bind(p.userId).run();
    }
    const gaps = async () => {
      const n = await Promise.all(CONDITIONS.map((c) => countedIn(c.name)));
      return Math.max(...n) - Math.min(...n);
    };
    // Newcomers level the counted sessions; then three more take one condition each.
    for (let i = 0; i < 30 && (await gaps()) > 0; i++) await newcomer();
    expect(await gaps()).toBe(0);
    const drawn = [await newcomer(), await newcomer(), await newcomer()];
    expect(drawn.sort()).toEqual(CONDITIONS.map((c) => c.name).sort());
  });

  it('a condition added mid-study draws every newcomer until it catches up (docs/running-a-study.md: adding a condition)', async () => {
    const added = conditionSchema.parse({ name: 'ai_explanation', shows: 'explanation', aiTiming: 'after_initial', alphaLevels: [1], share: 1 });
    useConditions([...CONDITIONS, added]);
    try {
      const least = Math.min(...(await Promise.all(CONDITIONS.map((c) => countedIn(c.name)))));
      expect(least).toBeGreaterThanOrEqual(2);
      const drawn = [];
      for (let i = 0; i < least; i++) drawn.push(await newcomer());
      expect(drawn).toEqual(Array.from({ length: least }, () => 'ai_explanation'));
    } finally {
      useConditions(CONDITIONS);
    }
  });
});

/** The sessions of a condition that the research figures count (not synthetic, `test_` or bypass). */
const countedIn = (condition: string) =>
  count(
    `select count(*) as n from sessions s join participants p on p.id = s.participant_id
     where s.dataset_type = 'compas' and s.condition = ? and s.main_start_bypass is null
       and p.origin != 'admin_synthetic' and substr(p.participant_code, 1, 5) != 'test_'`,
    condition,
  );

/** A newcomer through the whole pre-experiment to the main start; returns the condition drawn. */
async function newcomer() {
  const p = await consentedParticipant('compas');
  await answerWholePre(p.id);
  return mainStartResponseSchema.parse(await (await postJson('/api/experiments/main/start', { session_id: p.id })).json()).condition.name;
}

describe('a lab enters together', () => {
  it('60 newcomers behind one address go from entry to the completion summary with no 429, while ID guesses from there still meet the limit', async () => {
    const lab = `203.0.113.9-${crypto.randomUUID()}`;
    const headers = { 'CF-Connecting-IP': lab };
    const statuses = new Map<number, number>();
    const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
      const res = await api(path, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 400) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    };
    const newcomer = async () => {
      const id = newParticipantId();
      // Entry: the dataset, the session and its look-up, then consent.
      await call('/api/experiments/dataset-assignment/explicit', { body: { session_id: id, dataset_type: 'compas', created_by: 'system' } });
      const session = await call('/api/experiments/sessions', { body: { participant_name: id, dataset_type: 'compas', new_participant: true } });
      await call(`/api/experiments/sessions/${id}`);
      await call('/api/consent/submit', { body: { session_id: id, user_id: session.user_id, consent_items: allConsentItems() } });
      // The pre-experiment, the participant's model, the main start.
      const pre = caseSetResponseSchema.parse(await call(`/api/experiments/case-sets/fixed?participant_id=${id}&num_cases=200&experiment_type=pre_experiment`));
      await call('/api/experiments/pre-experiment/responses/batch', {
        body: { session_id: id, responses: pre.case_set.map((c, k) => ({ case_id: c.case_id, prediction: Number(c.features.priors_count) > 3 || k % 7 === 0 ? 1 : 0, confidence: 3, response_time_ms: 900 })) },
      });
      await call('/api/user-model/train', { body: { session_id: id, dataset_type: 'compas' } });
      const start = mainStartResponseSchema.parse(await call('/api/experiments/main/start', { body: { session_id: id } }));
      const shows = start.condition.shows;
      // The practice case where explanations are shown, then all 50 cases.
      if (shows === 'explanation') await call('/api/human-aligned-explanation', { body: { session_id: id, case_id: 'tutorial_compas', alignment_alpha: 0.5 } });
      for (const item of start.case_set) {
        const e = shows === 'none' ? null : explanationResponseSchema.parse(await call('/api/human-aligned-explanation', { body: { session_id: id, case_id: item.case_id, ...INITIAL } }));
        const ratings = shows === 'explanation' ? ALL_RATINGS : shows === 'ai_prediction' ? { trust: 3 } : {};
        await call('/api/experiments/main/integrated-response', { body: judged(id, item.case_id, { ...ratings, ...(e ? { served_explanation_id: e.served_explanation_id } : {}) }) });
      }
      const summary = await call(`/api/experiments/main/summary/${id}`);
      expect(summary.complete).toBe(true);
    };
    await Promise.all(Array.from({ length: 60 }, () => newcomer()));
    expect(statuses.get(429) ?? 0).toBe(0);
    expect([...statuses.keys()].every((s) => s < 300)).toBe(true);

    // Guessing IDs from the same address still meets the lookup limit (120 a minute).
    const guesses: number[] = [];
    while (guesses.length < 241 && guesses.at(-1) !== 429) {
      guesses.push((await api(`/api/experiments/sessions/${newParticipantId()}`, { headers })).status);
    }
    expect(guesses.at(-1)).toBe(429);
    expect(guesses.filter((s) => s === 404).length).toBeGreaterThanOrEqual(1);
  }, 300_000);
});
