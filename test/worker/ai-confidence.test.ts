/**
 * The AI's confidence as a condition key (issue #58, element 3): a condition with `aiConfidence`
 * is served the AI's probability for the class it predicts beside its prediction, with or without
 * bars; the serve and the stored trial record that it was shown; a page saying otherwise is
 * refused; the trials export counts its probability as shown advice (weight of advice). A
 * condition without the key is served, stored and exported as before.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { explanationResponseSchema } from '../../worker/schemas/main-experiment';
import { conditionSchema } from '../../worker/schemas/study';
import { describeCondition } from '../../worker/services/conditions';
import { adminCookie, api, postJson } from '../helpers/api';
import { revealedIn, seedCompasStudy, storeRevealed } from '../helpers/study-factories';
import { runWithConditions, shippedConditions } from '../helpers/study-conditions';

const CONDITIONS = [
  { name: 'prediction_only', shows: 'ai_prediction', aiTiming: 'after_initial', share: 1 },
  { name: 'prediction_confidence', shows: 'ai_prediction', aiTiming: 'after_initial', aiConfidence: true, share: 1 },
  { name: 'explanation_confidence', shows: 'explanation', aiTiming: 'after_initial', alphaLevels: [1], aiConfidence: true, share: 1 },
].map((c) => conditionSchema.parse(c));
runWithConditions(CONDITIONS);
beforeAll(() => seedCompasStudy());

const one = <T>(sql: string, ...binds: unknown[]) => env.DB.prepare(sql).bind(...binds).first<T>();
const asAdmin = async (path: string) => api(path, { headers: { Cookie: await adminCookie() } });

async function revealed(condition: string) {
  const r = await revealedIn(condition);
  const serve = (await one<{ ai_probability: number; ai_confidence_shown: number }>('select ai_probability, ai_confidence_shown from served_explanations where id = ?', r.shown.served_explanation_id))!;
  return { ...r, serve };
}

const stored = (p: { id: string }, caseId: string, shown: { served_explanation_id: number | null }, claim: object) => storeRevealed({ p, caseId, shown }, { trust: 4, ...claim });

describe("the AI's confidence, a condition key", () => {
  it('is refused unless true or false, and left out it is not shown (a configuration without it is as before)', () => {
    const bad = conditionSchema.safeParse({ name: 'x', shows: 'ai_prediction', aiTiming: 'after_initial', aiConfidence: 'yes', share: 1 });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.message).toContain('aiConfidence is true');
    // The key has no meaning where nothing of the AI is shown.
    expect(conditionSchema.safeParse({ name: 'x', shows: 'none', judgements: 2, aiConfidence: true, share: 1 }).success).toBe(false);
    expect(shippedConditions.every((c) => c.shows === 'none' || c.aiConfidence === undefined)).toBe(true);
    expect(describeCondition(CONDITIONS[0]!)).toBe("the AI's prediction alone, after the initial judgement");
    expect(describeCondition(CONDITIONS[1]!)).toBe("the AI's prediction with its confidence, after the initial judgement");
  });

  it('is served with the prediction alone: its probability for the class it predicts, recorded on the serve, the same when served again', async () => {
    const { p, caseId, shown, serve } = await revealed('prediction_confidence');
    expect(shown.explanation_kind).toBe('prediction_only');
    expect(shown.ai_probability).toBeNull();
    expect(shown.shown_feature_importance).toEqual([]);
    expect(shown.ai_confidence).toBe(Math.max(serve.ai_probability, 1 - serve.ai_probability));
    expect(shown.prediction).toBe(serve.ai_probability >= 0.5 ? 1 : 0);
    expect(serve.ai_confidence_shown).toBe(1);
    const again = explanationResponseSchema.parse(await (await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: caseId })).json());
    expect(again.ai_confidence).toBe(shown.ai_confidence);
    expect(again.served_explanation_id).toBe(shown.served_explanation_id);
  });

  it('is served with bars too, and never where the condition leaves it out', async () => {
    const explained = await revealed('explanation_confidence');
    expect(explained.shown.explanation_kind).toBe('ai_explanation');
    expect(explained.shown.shown_feature_importance.length).toBeGreaterThan(0);
    expect(explained.shown.ai_confidence).toBe(Math.max(explained.serve.ai_probability, 1 - explained.serve.ai_probability));
    const plain = await revealed('prediction_only');
    expect(plain.shown.ai_confidence).toBeNull();
    expect(plain.serve.ai_confidence_shown).toBe(0);
  });

  it('is stored with the trial from the serve; a page claiming otherwise is refused and nothing is stored', async () => {
    const { p, caseId, shown } = await revealed('prediction_confidence');
    const refused = await stored(p, caseId, shown, { ai_confidence_shown: false });
    expect(refused.status).toBe(400);
    expect(errorBodySchema.parse(await refused.json()).code).toBe('ai_record_mismatch');
    expect((await one<{ n: number }>('select count(*) as n from main_experiment_responses where session_id = ?', p.id))!.n).toBe(0);
    expect((await stored(p, caseId, shown, { ai_confidence_shown: true })).status).toBe(201);
    expect(await one('select ai_confidence_shown, ai_baseline_shown from main_experiment_responses where session_id = ?', p.id)).toEqual({ ai_confidence_shown: 1, ai_baseline_shown: 0 });

    const plain = await revealed('prediction_only');
    expect((await stored(plain.p, plain.caseId, plain.shown, {})).status).toBe(201);
    expect(await one('select ai_confidence_shown from main_experiment_responses where session_id = ?', plain.p.id)).toEqual({ ai_confidence_shown: 0 });

    // The trials export: its probability counts as advice shown (weight of advice reads it), the prediction alone's does not.
    for (const [who, confidence] of [[p, 1], [plain.p, 0]] as const) {
      const csv = await (await asAdmin(`/api/enhanced-export/trials?format=csv&user_name=${who.id}`)).text();
      const [header, row] = csv.trim().split('\n').map((line: string) => line.split(','));
      const cell = (name: string) => row![header!.indexOf(name)];
      expect(cell('ai_confidence_shown')).toBe(String(confidence));
      expect(cell('ai_probability_shown')).toBe(String(confidence));
    }
  });
});
