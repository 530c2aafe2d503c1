import { env } from 'cloudflare:workers';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { caseSetResponseSchema, checkExistingResponseSchema, prolificStatusSchema, resumeDataSchema, withdrawalResultSchema } from '../../worker/schemas/experiment';
import { understandingAttemptResultSchema } from '../../worker/schemas/main-experiment';
import { studyConfig } from '../../worker/schemas/study';
import { studyCodes } from '../../worker/study-codes';
import { drawUnderstandingQuestions } from '../../worker/schemas/understanding-test';
import { adminCookie, api, postJson } from '../helpers/api';
import { allConsentItems, newParticipantId, seedCompasStudy } from '../helpers/study-factories';

let cookie: string;
beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
});

const PROLIFIC = { prolific_pid: '5f8e2c1a9b3d4e0012345678', prolific_study_id: '64a1b2c3d4e5f60012345678', prolific_session_id: 'sess_abc-123' };
const rows = async (sql: string, ...binds: unknown[]) => (await env.DB.prepare(sql).bind(...binds).all<Record<string, unknown>>()).results;

async function participant(extra: Record<string, string> = {}) {
  const id = newParticipantId();
  const created = await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true, ...extra });
  expect(created.status, await created.clone().text()).toBe(201);
  const { user_id: userId } = (await created.json()) as { user_id: number };
  expect((await postJson('/api/consent/submit', { session_id: id, user_id: userId, consent_items: allConsentItems() })).status).toBe(201);
  return { id, userId };
}
const prolificStatus = async (id: string) => prolificStatusSchema.parse(await (await api(`/api/experiments/sessions/${id}/prolific`)).json());
const attempt = (sessionId: string, passed: boolean) => {
  const drawn = drawUnderstandingQuestions();
  return postJson('/api/experiments/main/understanding-test', {
    session_id: sessionId,
    attempt_id: crypto.randomUUID(),
    answers: drawn.map((q, i) => ({ question_id: q.id, answer: passed || i > 0 ? q.correct : q.options.find((o) => o !== q.correct)! })),
  });
};
const completionUrl = (code: string) => studyConfig.prolific.completionUrl.replace('{code}', code);

describe('Prolific loop', () => {
  it("keeps PROLIFIC_PID, STUDY_ID and SESSION_ID with the participant and exports them, never in the participant's own status", async () => {
    const p = await participant(PROLIFIC);
    const [stored] = await rows('select prolific_pid, prolific_study_id, prolific_session_id from participants where id = ?', p.userId);
    expect(stored).toEqual(PROLIFIC);
    const res = await api(`/api/enhanced-export/all-data?format=csv&user_name=${p.id}`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const [row] = Papa.parse<Record<string, string>>(strFromU8(files['participants.csv']!), { header: true, skipEmptyLines: true }).data;
    expect(row).toMatchObject(PROLIFIC);
    const status = await api(`/api/experiments/sessions/${p.id}/prolific`);
    expect(await status.text()).not.toContain(PROLIFIC.prolific_pid);
  });

  it('refuses Prolific parameters that are not IDs with 400 and detail, storing nothing', async () => {
    const id = newParticipantId();
    const res = await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true, prolific_pid: '<script>alert(1)</script>' });
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    expect(await rows('select id from participants where participant_code = ?', id)).toEqual([]);
  });

  it('gives the completion link only once the study is complete, the return link to Prolific participants, and nothing to others', async () => {
    const plain = await participant();
    expect(await prolificStatus(plain.id)).toEqual({ recruited_via_prolific: false, completed: false, screened_out: false, completion_url: null, screen_out_url: null, return_url: null });
    const p = await participant(PROLIFIC);
    expect(await prolificStatus(p.id)).toMatchObject({ recruited_via_prolific: true, completed: false, completion_url: null, return_url: completionUrl(studyCodes.prolificReturnCode!) });
    await env.DB.prepare("update sessions set post_survey_completed_at = ?, current_phase = 'completed' where session_id = ?").bind(new Date().toISOString(), p.id).run();
    const done = await prolificStatus(p.id);
    expect(done.completion_url).toBe(`https://app.prolific.com/submissions/complete?cc=${studyCodes.completionCode}`);
    expect((await api('/api/experiments/sessions/ZZZZZZZZ/prolific')).status).toBe(404);
  });

  it('screens a Prolific participant out after the configured failed understanding tests, and closes the main experiment to them', async () => {
    const limit = studyConfig.prolific.screenOutAfterFailedUnderstandingTests!;
    const p = await participant(PROLIFIC);
    for (let i = 1; i <= limit; i++) {
      const result = understandingAttemptResultSchema.parse(await (await attempt(p.id, false)).json());
      expect(result.screened_out).toBe(i === limit);
    }
    const [session] = await rows('select screened_out_at from sessions where session_id = ?', p.id);
    expect(session!.screened_out_at).toBeTruthy();
    expect(await prolificStatus(p.id)).toMatchObject({ screened_out: true, screen_out_url: completionUrl(studyCodes.prolificScreenOutCode!) });
    const start = await api(`/api/experiments/main/start?session_id=${p.id}&debug=true`, { method: 'POST' });
    expect(start.status).toBe(409);
    expect(await start.json()).toMatchObject({ code: 'screened_out' });
    const explain = await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: 'compas_main_a_001' });
    expect(explain.status).toBe(409);
    // Resuming tells them the participation is over and leads to the screen-out page.
    const check = checkExistingResponseSchema.parse(await (await postJson('/api/experiments/check-existing', { participant_name: p.id })).json());
    expect(check).toMatchObject({ exists: true, canResume: false, isScreenedOut: true, isCompleted: false });
    const resume = resumeDataSchema.parse(await (await postJson('/api/experiments/resume', { participant_name: p.id })).json());
    expect(resume).toMatchObject({ action: 'screened_out', resume_url: '/experiment/screened-out' });
  });

  it('never screens out a participant who came without Prolific, nor one who passed', async () => {
    const limit = studyConfig.prolific.screenOutAfterFailedUnderstandingTests!;
    const plain = await participant();
    for (let i = 0; i <= limit; i++) expect(understandingAttemptResultSchema.parse(await (await attempt(plain.id, false)).json()).screened_out).toBe(false);
    const passer = await participant(PROLIFIC);
    expect(understandingAttemptResultSchema.parse(await (await attempt(passer.id, true)).json()).passed).toBe(true);
    for (let i = 0; i < limit; i++) expect(understandingAttemptResultSchema.parse(await (await attempt(passer.id, false)).json()).screened_out).toBe(false);
    expect((await api(`/api/experiments/main/start?session_id=${plain.id}&debug=true`, { method: 'POST' })).status).toBe(201);
  });
});

const PARTICIPANT_TABLES = ['pre_experiment_responses', 'main_experiment_responses', 'understanding_test_attempts', 'post_surveys', 'user_models', 'consent_records', 'sessions'];

describe('POST /api/experiments/withdraw', () => {
  it('deletes everything of the participant in D1 and R2, keeps only the fact and time in the audit log, and stops counting them in the balance', async () => {
    const p = await participant(PROLIFIC);
    const set = caseSetResponseSchema.parse(await (await api(`/api/experiments/case-sets/fixed?participant_id=${p.id}&num_cases=200&experiment_type=pre_experiment`)).json());
    const responses = set.case_set.map((c, i) => ({ case_id: c.case_id, prediction: i % 2, confidence: 3, response_time_ms: 900 }));
    expect((await postJson('/api/experiments/pre-experiment/responses/batch', { session_id: p.id, responses })).status).toBe(200);
    expect((await postJson('/api/user-model/train', { session_id: p.id, dataset_type: 'compas' })).status).toBe(200);
    expect((await attempt(p.id, true)).status).toBe(201);
    const [model] = await rows('select r2_key from user_models where session_id = ?', p.id);
    expect(await env.MODELS.head(model!.r2_key as string)).not.toBeNull();
    const exported = await api(`/api/enhanced-export/pre-experiment?format=csv&user_name=${p.id}`, { headers: { Cookie: cookie } });
    expect(exported.status).toBe(200);
    const copies = (await env.EXPORTS.list({ prefix: 'exports/' })).objects.filter((o) => o.key.includes(p.id));
    expect(copies.length).toBeGreaterThan(0);
    const balanceBefore = await rows("select count(*) as n from dataset_assignments where dataset_type = 'compas'");

    // Without the confirmation nothing happens.
    const unconfirmed = await postJson('/api/experiments/withdraw', { participant_id: p.id });
    expect(unconfirmed.status).toBe(400);
    expect(errorBodySchema.parse(await unconfirmed.json()).detail).toBeTruthy();
    expect(await rows('select id from participants where id = ?', p.userId)).toHaveLength(1);

    const res = await postJson('/api/experiments/withdraw', { participant_id: p.id, confirm: true });
    expect(res.status).toBe(200);
    expect(withdrawalResultSchema.parse(await res.json())).toEqual({ success: true, withdrawn: true, return_url: completionUrl(studyCodes.prolificReturnCode!) });

    for (const table of PARTICIPANT_TABLES) expect(await rows(`select * from ${table} where session_id = ?`, p.id), table).toEqual([]);
    expect(await rows('select * from participants where id = ?', p.userId)).toEqual([]);
    expect(await rows('select * from case_set_items where session_id = ?', p.id)).toEqual([]);
    expect(await rows('select * from dataset_assignments where session_id = ?', p.id)).toEqual([]);
    expect(await env.MODELS.head(model!.r2_key as string)).toBeNull();
    for (const copy of copies) expect(await env.EXPORTS.head(copy.key)).toBeNull();
    const balanceAfter = await rows("select count(*) as n from dataset_assignments where dataset_type = 'compas'");
    expect(Number(balanceAfter[0]!.n)).toBe(Number(balanceBefore[0]!.n) - 1);

    const [entry] = await rows("select actor, action, target_type, target_id, details, ip_address, created_at from audit_log where action = 'participant_withdrawal' order by id desc limit 1");
    expect(entry).toMatchObject({ actor: 'participant', target_type: null, target_id: null, details: null, ip_address: null });
    expect(entry!.created_at).toBeTruthy();
    const everything = JSON.stringify(await rows('select * from audit_log'));
    expect(everything).not.toContain(p.id);

    // The dashboard counts the withdrawal, and the all-data zip lists its time (and nothing else).
    const stats = (await (await api('/api/admin/stats', { headers: { Cookie: cookie } })).json()) as { withdrawals: number };
    const [withdrawals] = await rows("select count(*) as n from audit_log where action = 'participant_withdrawal'");
    expect(stats.withdrawals).toBe(Number(withdrawals!.n));
    const zip = await api('/api/enhanced-export/all-data?format=csv', { headers: { Cookie: cookie } });
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const listed = Papa.parse<Record<string, string>>(strFromU8(files['withdrawals.csv']!), { header: true, skipEmptyLines: true }).data;
    expect(listed.map((r) => r.withdrawn_at)).toContain(entry!.created_at);
    expect(Object.keys(listed[0]!)).toEqual(['withdrawn_at']);

    // Sent again (its answer lost): nothing left to withdraw.
    const again = await postJson('/api/experiments/withdraw', { participant_id: p.id, confirm: true });
    expect(again.status).toBe(404);
  });

  it("deletes the export copies that hold the participant's rows and keeps every other copy", async () => {
    const exportKeys = async () => new Set((await env.EXPORTS.list({ prefix: 'exports/' })).objects.map((o) => o.key));
    const newCopy = async (path: string) => {
      const before = await exportKeys();
      const res = await api(path, { headers: { Cookie: cookie } });
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
      const added = [...(await exportKeys())].filter((key) => !before.has(key));
      expect(added, path).toHaveLength(1);
      return added[0]!;
    };
    // A copy from before copies were indexed (no export_copies row), written before the participant joined.
    const olderUnindexed = 'exports/2000-01-01/unindexed-before.csv';
    await env.EXPORTS.put(olderUnindexed, 'user_name\r\n');
    const leaves = await participant();
    const other = await participant();
    const othersOnly = await newCopy(`/api/enhanced-export/all-data?format=csv&user_name=${other.id}`);
    const groupFigures = await newCopy('/api/enhanced-export/reliance-by-alpha?format=csv');
    const everyone = await newCopy('/api/enhanced-export/all-data?format=csv');
    const theirs = await newCopy(`/api/enhanced-export/all-data?format=tsv&user_name=${leaves.id}`);
    const consent = await newCopy('/api/admin/consent-records/export?format=json');
    // Written after they joined and not indexed: it may hold their rows, so it goes too.
    const laterUnindexed = `exports/${new Date().toISOString().slice(0, 10)}/unindexed-after.csv`;
    await env.EXPORTS.put(laterUnindexed, 'user_name\r\n');

    const indexed = await rows('select object_key, participant_codes from export_copies where object_key in (?, ?, ?)', othersOnly, everyone, theirs);
    const holders = new Map(indexed.map((r) => [r.object_key, JSON.parse(r.participant_codes as string) as string[]]));
    expect(holders.get(othersOnly)).toEqual([other.id]);
    expect(holders.get(everyone)).toEqual(expect.arrayContaining([leaves.id, other.id]));
    expect(holders.get(theirs)).toEqual([leaves.id]);

    expect((await postJson('/api/experiments/withdraw', { participant_id: leaves.id, confirm: true })).status).toBe(200);
    const left = await exportKeys();
    for (const gone of [everyone, theirs, consent, laterUnindexed]) expect(left.has(gone), gone).toBe(false);
    for (const kept of [othersOnly, groupFigures, olderUnindexed]) expect(left.has(kept), kept).toBe(true);
    expect(await rows('select object_key from export_copies where object_key in (?, ?, ?)', everyone, theirs, consent)).toEqual([]);
    expect(await rows('select object_key from export_copies where object_key = ?', othersOnly)).toHaveLength(1);
  });

  it("leaves other participants' rows alone and gives no return link without Prolific", async () => {
    const stays = await participant();
    const leaves = await participant();
    const res = await postJson('/api/experiments/withdraw', { participant_id: leaves.id, confirm: true });
    expect(withdrawalResultSchema.parse(await res.json()).return_url).toBeNull();
    expect(await rows('select id from participants where id = ?', stays.userId)).toHaveLength(1);
    expect(await rows('select id from consent_records where session_id = ?', stays.id)).toHaveLength(1);
  });

  it('refuses an invalid ID with 400, never rewriting it', async () => {
    const res = await postJson('/api/experiments/withdraw', { participant_id: "'; DROP TABLE sessions;--", confirm: true });
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
  });
});
