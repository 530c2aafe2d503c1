/**
 * The accuracy the panel states, a condition key (issue #58, element 1): `measured` (the pinned
 * model's test accuracy, as before the key existed), `none`, or a stated figure that comes with
 * the researcher's debrief. The server serves and records the figure, never sends the measured one
 * to a page that states another, refuses a page's contrary claim, exports it per trial, and gives
 * the debrief at completion, recording when.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { explanationResponseSchema } from '../../worker/schemas/main-experiment';
import { completionSchema } from '../../worker/schemas/post-survey-schemas';
import { conditionSchema, studyConfigSchema, studyConfig } from '../../worker/schemas/study';
import { adminCookie, api, postJson } from '../helpers/api';
import { revealedIn, seedCompasStudy, storeRevealed } from '../helpers/study-factories';
import { runWithConditions, shippedConditions } from '../helpers/study-conditions';

const DEBRIEF = { ja: '表示したAIの正解率90%は研究のために設定した値で、実際の正解率は約70%でした。', en: 'The 90% accuracy shown was set for the study; the AI was right about 70% of the time.' };
const CONDITIONS = [
  { name: 'measured', shows: 'ai_prediction', aiTiming: 'after_initial', share: 1 },
  { name: 'no_accuracy', shows: 'ai_prediction', aiTiming: 'after_initial', statedAccuracy: 'none', share: 1 },
  { name: 'stated', shows: 'explanation', aiTiming: 'after_initial', alphaLevels: [1], statedAccuracy: { figure: 0.9, debrief: DEBRIEF }, share: 1 },
].map((c) => conditionSchema.parse(c));
runWithConditions(CONDITIONS);
let model: string;
beforeAll(async () => {
  model = await seedCompasStudy();
});

const one = <T>(sql: string, ...binds: unknown[]) => env.DB.prepare(sql).bind(...binds).first<T>();

async function revealed(condition: string) {
  const r = await revealedIn(condition);
  const serve = (await one<{ stated_accuracy: number | null }>('select stated_accuracy from served_explanations where id = ?', r.shown.served_explanation_id))!;
  return { ...r, serve };
}

const RATINGS = { trust: 4, comprehensibility: 4, transparency: 4, satisfaction: 4, alignment: 4 };
const store = (p: { id: string }, caseId: string, shown: { served_explanation_id: number | null }, claim: object) => storeRevealed({ p, caseId, shown }, { ...RATINGS, ...claim });

/** The participant as having finished the post-survey (its own tests reach this through the API). */
async function completed(p: { id: string }) {
  await env.DB.prepare("update sessions set post_survey_completed_at = ?, completion_verification_code = 'V1234567', current_phase = 'completed' where session_id = ?").bind(new Date().toISOString(), p.id).run();
  const res = await api(`/api/post-survey/completion/${p.id}`);
  expect(res.status).toBe(200);
  return completionSchema.parse(await res.json());
}

describe('the accuracy the panel states, a condition key', () => {
  it('is "measured", "none" or a figure with its debrief in both languages; anything else is refused saying what to write', () => {
    const parse = (statedAccuracy: unknown) => conditionSchema.safeParse({ name: 'x', shows: 'ai_prediction', aiTiming: 'after_initial', statedAccuracy, share: 1 });
    expect(parse('measured').success).toBe(true);
    expect(parse('none').success).toBe(true);
    expect(parse({ figure: 0.9, debrief: DEBRIEF }).success).toBe(true);
    expect(JSON.stringify(parse('stated').error!.issues)).toContain('statedAccuracy is \\"measured\\"');
    expect(JSON.stringify(parse({ figure: 0.9 }).error!.issues)).toContain('a stated figure needs statedAccuracy.debrief');
    expect(JSON.stringify(parse({ figure: 0.9, debrief: { ja: DEBRIEF.ja, en: ' ' } }).error!.issues)).toContain('a debrief text says');
    expect(JSON.stringify(parse({ figure: 1.2, debrief: DEBRIEF }).error!.issues)).toContain('statedAccuracy.figure is at most 1');
    expect(conditionSchema.safeParse({ name: 'x', shows: 'none', judgements: 2, statedAccuracy: 'none', share: 1 }).success).toBe(false);
    // The shipped design says nothing of it: every panel states the measured accuracy, as before.
    expect(shippedConditions.every((c) => c.shows === 'none' || c.statedAccuracy === undefined)).toBe(true);
    expect(studyConfigSchema.safeParse({ ...studyConfig, conditions: CONDITIONS }).success).toBe(true);
  });

  it('states the pinned model\'s measured accuracy by default, recorded on the serve', async () => {
    const { shown, serve } = await revealed('measured');
    expect(shown).toMatchObject({ accuracy_statement: 'measured', model_test_accuracy: 0.7, stated_accuracy: 0.7 });
    expect(serve.stated_accuracy).toBe(0.7);
  });

  it('states none where the condition says so, sending nothing of the measured figure', async () => {
    const { shown, serve } = await revealed('no_accuracy');
    expect(shown).toMatchObject({ accuracy_statement: 'none', model_test_accuracy: null, stated_accuracy: null });
    expect(serve.stated_accuracy).toBeNull();
  });

  it('states the figure the condition gives, the same when served again; a page claiming another is refused, and the export has it per trial', async () => {
    const { p, caseId, shown, serve } = await revealed('stated');
    expect(shown).toMatchObject({ accuracy_statement: 'stated', model_test_accuracy: null, stated_accuracy: 0.9 });
    expect(serve.stated_accuracy).toBe(0.9);
    const again = explanationResponseSchema.parse(await (await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: caseId })).json());
    expect(again).toMatchObject({ accuracy_statement: 'stated', model_test_accuracy: null, stated_accuracy: 0.9, served_explanation_id: shown.served_explanation_id });

    for (const claim of [0.7, null]) {
      const refused = await store(p, caseId, shown, { ai_accuracy_stated: claim });
      expect(refused.status).toBe(400);
      const body = errorBodySchema.parse(await refused.json());
      expect(body.code).toBe('ai_record_mismatch');
      expect(JSON.stringify(body.detail)).toContain('ai_accuracy_stated');
    }
    expect((await one<{ n: number }>('select count(*) as n from main_experiment_responses where session_id = ?', p.id))!.n).toBe(0);
    const res = await store(p, caseId, shown, { ai_accuracy_stated: 0.9 });
    expect(res.status, await res.clone().text()).toBe(201);

    const csv = await (await api(`/api/enhanced-export/main-experiment?format=csv&user_name=${p.id}`, { headers: { Cookie: await adminCookie() } })).text();
    const [header, row] = csv.trim().split('\n').map((line) => line.split(','));
    expect(row![header!.indexOf('ai_accuracy_stated')]).toBe('0.9');
  });

  it("states the study's fixed figure for the dataset where the pinned model has none recorded (part 1 §8)", async () => {
    await env.DB.prepare("update ai_models set metrics = '{}' where model_identifier = ?").bind(model).run();
    try {
      const { shown, serve } = await revealed('measured');
      expect(shown).toMatchObject({ accuracy_statement: 'measured', model_test_accuracy: null, stated_accuracy: 0.693 });
      expect(serve.stated_accuracy).toBe(0.693);
    } finally {
      await env.DB.prepare("update ai_models set metrics = '{\"test_accuracy\":0.7}' where model_identifier = ?").bind(model).run();
    }
  });

  it('gives the debrief at completion to the stated figure\'s participants only, recording when it was first given', async () => {
    const { p } = await revealed('stated');
    const first = await completed(p);
    expect(first.debrief).toEqual(DEBRIEF);
    const at = (await one<{ debrief_served_at: string | null }>('select debrief_served_at from sessions where session_id = ?', p.id))!.debrief_served_at;
    expect(at).not.toBeNull();
    expect((await completed(p)).debrief).toEqual(DEBRIEF);
    expect((await one<{ debrief_served_at: string }>('select debrief_served_at from sessions where session_id = ?', p.id))!.debrief_served_at).toBe(at);

    const measured = await revealed('measured');
    expect((await completed(measured.p)).debrief).toBeNull();
    expect((await one<{ debrief_served_at: string | null }>('select debrief_served_at from sessions where session_id = ?', measured.p.id))!.debrief_served_at).toBeNull();
  });
});
