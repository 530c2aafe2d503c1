/**
 * Incentives, a condition key (issue #58, element 6): a base payment and a bonus per correct final
 * (and pre-experiment) judgement, at most a cap, in a currency. The Worker works the bonus out from
 * the stored trials when the participant finishes, never from the page; the completion page gets
 * it; the dashboard lists every bonus and gives Prolific's bulk-bonus text and a CSV (each download
 * audited), and a batch marked paid is left out of the next.
 */
import { env } from 'cloudflare:workers';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { bonusListSchema, markPaidResultSchema } from '../../worker/schemas/bonuses';
import { completionSchema } from '../../worker/schemas/post-survey-schemas';
import { conditionSchema, studyConfig, studyConfigSchema } from '../../worker/schemas/study';
import { adminCookie, api, postJson } from '../helpers/api';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { seedCompasStudy } from '../helpers/study-factories';
import { runWithConditions, shippedConditions } from '../helpers/study-conditions';
import { audienceOf, conditionView } from '../../worker/services/conditions';

const PAID = { base: 2, bonusPerCorrect: 0.05, bonusPerCorrectPre: 0.01, cap: 2.5, currency: 'GBP' };
const CONDITIONS = [
  { name: 'paid', shows: 'ai_prediction', aiTiming: 'after_initial', incentive: PAID, share: 1 },
  { name: 'capped', shows: 'none', judgements: 2, incentive: { base: 1, bonusPerCorrect: 0.1, cap: 0.3, currency: 'GBP' }, share: 1 },
  { name: 'unpaid', shows: 'ai_prediction', aiTiming: 'after_initial', share: 1 },
].map((c) => conditionSchema.parse(c));
runWithConditions(CONDITIONS);

let cookie: string;
beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
});
const asAdmin = (path: string, init: RequestInit = {}) => api(path, { ...init, headers: { ...init.headers, Cookie: cookie } });
const one = <T>(sql: string, ...binds: unknown[]) => env.DB.prepare(sql).bind(...binds).first<T>();

/** A synthetic participant of `condition` through the whole study: pre-experiment, 50 main cases, the post-survey. */
async function finished(name: string, condition: string, prolificPid: string | null = null) {
  expect((await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&accuracy_rate=0.7`, { method: 'POST' })).status).toBe(200);
  expect((await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=50&accuracy_rate=0.7&condition=${condition}`, { method: 'POST' })).status).toBe(200);
  if (prolificPid) await env.DB.prepare('update participants set prolific_pid = ? where participant_code = ?').bind(prolificPid, name).run();
  const done = await postJson('/api/post-survey/', { session_id: name, ...completePostSurvey(() => undefined, audienceOf(CONDITIONS.find((c) => c.name === condition)!)) });
  expect(done.status, await done.clone().text()).toBe(201);
  return name;
}
const completion = async (name: string) => completionSchema.parse(await (await api(`/api/post-survey/completion/${name}`)).json());
/** The correct judgements counted from the stored rows, by hand. */
async function correctOf(name: string) {
  const final = (await one<{ n: number }>('select count(*) as n from main_experiment_responses where session_id = ? and final_prediction = ground_truth', name))!.n;
  const pre = (await one<{ n: number }>('select count(*) as n from pre_experiment_responses where session_id = ? and prediction = ground_truth', name))!.n;
  return { final, pre };
}
const bonusDownloads = async () => (await one<{ n: number }>("select count(*) as n from audit_log where action = 'bonus_download'"))!.n;

describe('incentives, a condition key', () => {
  it('are checked when the study is read: amounts in whole cents, a three-letter currency, a bonus above 0', () => {
    const parse = (incentive: object) => studyConfigSchema.safeParse({ ...studyConfig, conditions: [{ name: 'x', shows: 'none', judgements: 2, incentive, share: 1 }] });
    expect(parse(PAID).success).toBe(true);
    expect(parse({ ...PAID, bonusPerCorrect: 0.055 }).error!.issues[0]!.message).toContain('whole number of cents');
    expect(parse({ ...PAID, currency: 'gbp' }).error!.issues[0]!.message).toContain('three-letter ISO 4217');
    expect(parse({ ...PAID, bonusPerCorrect: 0, bonusPerCorrectPre: 0 }).error!.issues[0]!.message).toContain('bonusPerCorrect or bonusPerCorrectPre above 0');
    expect(parse({ ...PAID, tip: 1 }).success).toBe(false);
    expect(shippedConditions.every((c) => c.incentive === undefined)).toBe(true);
  });

  it('works the bonus out from the stored trials when the participant finishes, and the completion page gets it', async () => {
    const name = await finished('test_inc_paid', 'paid');
    // The main experiment's instructions are given the scheme with the condition.
    expect(conditionView(CONDITIONS[0]!).incentive).toEqual({ base: 2, bonus_per_correct: 0.05, bonus_per_correct_pre: 0.01, cap: 2.5, currency: 'GBP' });
    expect(conditionView(CONDITIONS[2]!).incentive).toBeNull();
    const correct = await correctOf(name);
    expect(correct.final).toBeGreaterThan(0);
    const cents = Math.min(250, correct.final * 5 + correct.pre * 1);
    const stored = (await one<Record<string, number | string | null>>(
      'select bonus_currency, bonus_base_cents, bonus_cents, bonus_correct_final, bonus_correct_pre, bonus_paid_at from sessions where session_id = ?',
      name,
    ))!;
    expect(stored).toEqual({ bonus_currency: 'GBP', bonus_base_cents: 200, bonus_cents: cents, bonus_correct_final: correct.final, bonus_correct_pre: correct.pre, bonus_paid_at: null });
    expect((await completion(name)).payment).toEqual({ currency: 'GBP', base: 2, bonus: cents / 100, total: (200 + cents) / 100, correct_final: correct.final, correct_pre: correct.pre, paid: false });
  });

  it('stops at the cap, and pays nothing in a condition without an incentive', async () => {
    const capped = await finished('test_inc_capped', 'capped');
    expect((await correctOf(capped)).final).toBeGreaterThan(3);
    // Its pre-experiment pays nothing, so its correct judgements there are not counted.
    expect((await completion(capped)).payment).toMatchObject({ base: 1, bonus: 0.3, total: 1.3, correct_pre: 0 });
    expect(await one('select bonus_correct_pre from sessions where session_id = ?', capped)).toEqual({ bonus_correct_pre: null });
    const none = await finished('test_inc_none', 'unpaid');
    expect((await completion(none)).payment).toBeNull();
    expect(await one('select bonus_cents, bonus_currency from sessions where session_id = ?', none)).toEqual({ bonus_cents: null, bonus_currency: null });
  });

  it('lists every bonus for the dashboard, gives Prolific’s text and a CSV, each download audited, and a batch marked paid is left out of the next', async () => {
    const a = await finished('test_inc_pa', 'paid', '5f1a2b3c4d5e6f7a8b9c0d1e');
    const b = await finished('test_inc_pb', 'paid', '6a1a2b3c4d5e6f7a8b9c0d1f');
    const list = bonusListSchema.parse(await (await asAdmin('/api/admin/bonuses')).json());
    const mine = list.participants.filter((r) => [a, b].includes(r.session_id));
    expect(mine).toHaveLength(2);
    expect(list.unpaid.find((u) => u.currency === 'GBP')!.participants).toBeGreaterThanOrEqual(2);
    // Only admins.
    expect((await api('/api/admin/bonuses')).status).toBe(401);

    const before = await bonusDownloads();
    const text = await (await asAdmin('/api/admin/bonuses/prolific')).text();
    const lines = text.split('\n');
    for (const line of lines) expect(line).toMatch(/^[0-9a-f]{24},\d+\.\d{2}$/);
    const bonusOf = (r: (typeof mine)[number]) => r.bonus.toFixed(2);
    expect(lines).toEqual(expect.arrayContaining(mine.map((r) => `${r.prolific_pid},${bonusOf(r)}`)));
    // Participants without a Prolific ID are paid another way: in the CSV, not in Prolific's text.
    expect(text).not.toContain('test_inc_paid');
    const csv = await asAdmin('/api/admin/bonuses/csv');
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const parsed = Papa.parse<Record<string, string>>(await csv.text(), { header: true }).data;
    expect(parsed.find((r) => r.session_id === a)).toMatchObject({ prolific_pid: '5f1a2b3c4d5e6f7a8b9c0d1e', currency: 'GBP', base: '2.00', bonus: bonusOf(mine[0]!), paid_at: '' });
    expect(await bonusDownloads()).toBe(before + 2);

    // The batch paid; refused as a whole when one ID has no bonus.
    const refused = await asAdmin('/api/admin/bonuses/mark-paid', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ session_ids: [a, 'test_inc_none'] }) });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(errorBodySchema.parse(await refused.json()).detail)).toContain('test_inc_none has no bonus');
    expect(await one('select bonus_paid_at from sessions where session_id = ?', a)).toEqual({ bonus_paid_at: null });
    const mark = (ids: string[]) => asAdmin('/api/admin/bonuses/mark-paid', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ session_ids: ids }) });
    const paid = markPaidResultSchema.parse(await (await mark([a, b])).json());
    expect(paid).toMatchObject({ marked: 2, already_paid: [] });
    const again = markPaidResultSchema.parse(await (await mark([a])).json());
    expect(again).toMatchObject({ marked: 0, already_paid: [a] });
    expect((await one<{ t: string }>('select bonus_paid_at as t from sessions where session_id = ?', a))!.t).toBe(paid.paid_at);
    const next = await (await asAdmin('/api/admin/bonuses/prolific')).text();
    expect(next).not.toContain('5f1a2b3c4d5e6f7a8b9c0d1e');
    expect(await (await asAdmin('/api/admin/bonuses/prolific?include_paid=true')).text()).toContain('5f1a2b3c4d5e6f7a8b9c0d1e');
    expect((await completion(a)).payment!.paid).toBe(true);
    const marks = await env.DB.prepare("select details from audit_log where action = 'bonus_mark_paid' order by id").all<{ details: string }>();
    expect(marks.results.map((r) => JSON.parse(r.details))).toEqual([
      expect.objectContaining({ marked: 2, already_paid: 0, session_ids: [a, b] }),
      expect.objectContaining({ marked: 0, already_paid: 1, session_ids: [a] }),
    ]);
  });
});
