/**
 * Opening, pausing and closing a study: newcomers refused with nothing stored, everyone already in
 * continuing (or, closed without letting them finish, refused with withdrawal still open), the
 * change recorded in the audit log and shown on /status.
 */
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usersResponseSchema } from '../../worker/schemas/admin';
import { statusResponseSchema } from '../../worker/schemas/api';
import { publicRecruitmentSchema, recruitmentProgressSchema, recruitmentStateSchema } from '../../worker/schemas/recruitment';
import { adminCookie, api, postJson } from '../helpers/api';
import { allConsentItems, newParticipantId, seedCompasStudy } from '../helpers/study-factories';

let cookie: string;
const setStatus = (status: string, extra: Record<string, unknown> = {}) =>
  api('/api/admin/recruitment', { method: 'PUT', headers: { Cookie: cookie, 'Content-Type': 'application/json' }, body: JSON.stringify({ status, ...extra }) });
const count = async (sql: string, ...binds: unknown[]) => (await env.DB.prepare(sql).bind(...binds).first<{ n: number }>())!.n;
/** Each way a newcomer's browser starts, each with its own new ID. */
const newcomer = async () => {
  const ids = [newParticipantId(), newParticipantId(), newParticipantId()];
  return {
    ids,
    balanced: await postJson('/api/experiments/dataset-assignment/balanced', { session_id: ids[0] }),
    explicit: await postJson('/api/experiments/dataset-assignment/explicit', { session_id: ids[1], dataset_type: 'compas', created_by: 'system' }),
    session: await postJson('/api/experiments/sessions', { participant_name: ids[2], dataset_type: 'compas', new_participant: true }),
  };
};
/** Rows anywhere for these IDs. */
const stored = async (ids: string[]) => {
  let n = 0;
  for (const id of ids) {
    n += await count('select count(*) as n from participants where participant_code = ?', id);
    n += await count('select count(*) as n from sessions where session_id = ?', id);
    n += await count('select count(*) as n from dataset_assignments where session_id = ?', id);
  }
  return n;
};

beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
});
afterAll(async () => {
  // The state lives in this Worker's memory for a few seconds: leave it open for whatever runs next.
  await setStatus('open');
});

describe('study status', () => {
  it('is open until set otherwise, and admits a newcomer', async () => {
    const state = recruitmentStateSchema.parse(await (await api('/api/admin/recruitment', { headers: { Cookie: cookie } })).json());
    expect(state).toMatchObject({ status: 'open', in_progress_may_finish: true, changed_at: null, targets: null });
    expect(state.targets_in_force).toEqual({ overallTarget: null, cellTarget: null, cellTargets: {} });
    const n = await newcomer();
    expect(n.balanced.status).toBe(200);
    expect(n.explicit.status).toBe(200);
    expect(n.session.status).toBe(201);
  });

  it('paused: refuses newcomers with nothing stored, lets everyone in continue, says so on /status and in the audit log', async () => {
    // Someone already in, before the pause.
    const inside = newParticipantId();
    expect((await postJson('/api/experiments/sessions', { participant_name: inside, dataset_type: 'compas', new_participant: true })).status).toBe(201);

    const res = await setStatus('paused');
    expect(res.status).toBe(200);
    expect(recruitmentStateSchema.parse(await res.json())).toMatchObject({ status: 'paused', in_progress_may_finish: true });
    const [audit] = (await env.DB.prepare("select action, details from audit_log where action = 'recruitment_status' order by id desc limit 1").all<{ action: string; details: string }>()).results;
    expect(JSON.parse(audit!.details)).toMatchObject({ from: 'open', to: 'paused' });

    const n = await newcomer();
    for (const refused of [n.balanced, n.explicit, n.session]) {
      expect(refused.status).toBe(409);
      const body = (await refused.json()) as { code: string; detail: string };
      expect(body.code).toBe('study_paused');
      expect(body.detail).toContain('paused');
    }
    expect(await stored(n.ids)).toBe(0);

    // Those already in go on: consent, and their dataset assignment call is answered.
    expect((await postJson('/api/consent/submit', { session_id: inside, consent_items: allConsentItems() })).status).toBe(201);
    expect((await postJson('/api/experiments/dataset-assignment/explicit', { session_id: inside, dataset_type: 'compas', created_by: 'system' })).status).toBe(200);

    const pub = publicRecruitmentSchema.parse(await (await api('/api/recruitment')).json());
    expect(pub).toMatchObject({ status: 'paused', accepting_newcomers: false });
    expect(pub.prolific_return_url).toMatch(/^https:\/\/app\.prolific\.com\/submissions\/complete\?cc=/);
    expect(statusResponseSchema.parse(await (await api('/api/status')).json()).recruitment).toBe('paused');

    // The registration tools' synthetic participants are not newcomers.
    const synthetic = await api('/api/admin/register-user-responses?participant_name=test_rec_paused&dataset_type=compas&num_responses=5&accuracy_rate=0.7', {
      method: 'POST',
      headers: { Cookie: cookie },
    });
    expect(synthetic.status).toBe(200);
  });

  it('closed: nobody new; those in progress finish by default, or stop (withdrawal still open) when told', async () => {
    await setStatus('open');
    const inside = newParticipantId();
    expect((await postJson('/api/experiments/sessions', { participant_name: inside, dataset_type: 'compas', new_participant: true })).status).toBe(201);

    expect((await setStatus('closed', { in_progress_may_finish: false })).status).toBe(200);
    const n = await newcomer();
    expect(n.session.status).toBe(409);
    expect(((await n.session.json()) as { code: string }).code).toBe('study_closed');
    expect(await stored(n.ids)).toBe(0);
    const consent = await postJson('/api/consent/submit', { session_id: inside, consent_items: allConsentItems() });
    expect(consent.status).toBe(409);
    expect(((await consent.json()) as { code: string }).code).toBe('study_closed');
    expect(await count('select count(*) as n from consent_records where session_id = ?', inside)).toBe(0);
    expect(publicRecruitmentSchema.parse(await (await api('/api/recruitment')).json())).toMatchObject({ status: 'closed', in_progress_may_finish: false });

    // Letting them finish: the same call goes through.
    expect((await setStatus('closed', { in_progress_may_finish: true })).status).toBe(200);
    expect((await postJson('/api/consent/submit', { session_id: inside, consent_items: allConsentItems() })).status).toBe(201);
    expect((await newcomer()).session.status).toBe(409);

    // Withdrawal is open whatever the state.
    await setStatus('closed', { in_progress_may_finish: false });
    const withdrawn = await postJson('/api/experiments/withdraw', { participant_id: inside, confirm: true });
    expect(withdrawn.status, await withdrawn.clone().text()).toBeLessThan(300);

    await setStatus('open');
    expect((await newcomer()).session.status).toBe(201);
  });

  it('refuses a state it does not know, and anyone but an administrator', async () => {
    const bad = await setStatus('stopped');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: unknown }).detail).toBeTruthy();
    const anonymous = await api('/api/admin/recruitment', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ status: 'paused' }) });
    expect(anonymous.status).toBe(401);
    expect(publicRecruitmentSchema.parse(await (await api('/api/recruitment')).json()).status).toBe('open');
  });
});

describe('quotas', () => {
  /**
   * People's sessions holding a place in the COMPAS cell now (every session here is minutes old).
   * Sessions admitted before a quota existed have no condition until their main start, so no cell.
   */
  const placesHeld = () =>
    count(
      "select count(*) as n from sessions s join participants p on p.id = s.participant_id where s.dataset_type = 'compas' and s.condition = 'human_aligned' and p.origin = 'participant' and s.screened_out_at is null",
    );
  const setTargets = (targets: unknown) => setStatus('open', { targets });

  it('admits exactly as many of 300 simultaneous newcomers as the cell has places left, each into its cell, and refuses the rest with nothing stored', async () => {
    const target = (await placesHeld()) + 5;
    expect((await setTargets({ overallTarget: null, cellTarget: null, cellTargets: { 'compas:human_aligned': target } })).status).toBe(200);
    const participantsBefore = await count('select count(*) as n from participants');
    const ids = Array.from({ length: 300 }, () => newParticipantId());
    const answers = await Promise.all(ids.map((id) => postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(295);
    const refusal = (await answers.find((r) => r.status === 409)!.json()) as { code: string; detail: string };
    expect(refusal).toMatchObject({ code: 'study_full' });
    expect(refusal.detail).toContain('compas');
    expect(await count('select count(*) as n from participants')).toBe(participantsBefore + 5);
    expect(await placesHeld()).toBe(target);
    const admitted = ids.filter((_, i) => statuses[i] === 201);
    for (const id of admitted) {
      expect((await env.DB.prepare('select condition from sessions where session_id = ?').bind(id).first<{ condition: string }>())!.condition).toBe('human_aligned');
    }
    const refused = ids.filter((_, i) => statuses[i] === 409);
    expect(await stored(refused)).toBe(0);

    // A dataset whose cells are full is refused before its assignment is stored; balanced assignment goes where there is room.
    const explicit = newParticipantId();
    const full = await postJson('/api/experiments/dataset-assignment/explicit', { session_id: explicit, dataset_type: 'compas', created_by: 'system' });
    expect(full.status).toBe(409);
    expect(await stored([explicit])).toBe(0);
    const balanced = await postJson('/api/experiments/dataset-assignment/balanced', { session_id: newParticipantId() });
    expect(balanced.status).toBe(200);
    expect(((await balanced.json()) as { dataset_type: string }).dataset_type).not.toBe('compas');
  });

  it("leaves nothing for a refused newcomer who came the entry page's way, their dataset assignment included (300 at once, 5 places left)", async () => {
    const holding = await count("select count(*) as n from sessions s join participants p on p.id = s.participant_id where p.origin = 'participant' and s.screened_out_at is null");
    expect((await setTargets({ overallTarget: holding + 5, cellTarget: null, cellTargets: {} })).status).toBe(200);
    const ids = Array.from({ length: 300 }, () => newParticipantId());
    // The entry page assigns a dataset (forced by the URL, or balanced), then opens the session.
    const statuses = await Promise.all(
      ids.map(async (id, i) => {
        const assigned =
          i % 2 === 0
            ? await postJson('/api/experiments/dataset-assignment/explicit', { session_id: id, dataset_type: 'compas', created_by: 'user_query_parameter' })
            : await postJson('/api/experiments/dataset-assignment/balanced', { session_id: id });
        if (assigned.status !== 200) return assigned.status;
        const { dataset_type } = (await assigned.json()) as { dataset_type: string };
        return (await postJson('/api/experiments/sessions', { participant_name: id, dataset_type, new_participant: true })).status;
      }),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(295);
    expect(await stored(ids.filter((_, i) => statuses[i] === 409))).toBe(0);
    expect(await stored(ids.filter((_, i) => statuses[i] === 201))).toBe(15);
    await setTargets(null);
  });

  it('draws a session admitted before the quotas into an open cell at its main start, counted as admission counts, and refuses it with nothing stored when every cell is full', async () => {
    await setTargets(null);
    const early = newParticipantId();
    expect((await postJson('/api/experiments/sessions', { participant_name: early, dataset_type: 'compas', new_participant: true })).status).toBe(201);
    expect((await postJson('/api/consent/submit', { session_id: early, consent_items: allConsentItems() })).status).toBe(201);
    const row = () => env.DB.prepare('select condition, main_started_at, ai_model_identifier from sessions where session_id = ?').bind(early).first();
    expect(await row()).toEqual({ condition: null, main_started_at: null, ai_model_identifier: null });
    // The cell is at its target: the start is refused and writes nothing.
    const held = await placesHeld();
    await setTargets({ overallTarget: null, cellTarget: null, cellTargets: { 'compas:human_aligned': held } });
    const refused = await postJson('/api/experiments/main/start', { session_id: early, debug: true });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { code: string }).code).toBe('study_full');
    expect(await row()).toEqual({ condition: null, main_started_at: null, ai_model_identifier: null });
    expect(await count("select count(*) as n from case_set_items where session_id = ? and phase = 'main'", early)).toBe(0);
    // One more place: it takes it, and the cell is exactly at its target.
    await setTargets({ overallTarget: null, cellTarget: null, cellTargets: { 'compas:human_aligned': held + 1 } });
    expect((await postJson('/api/experiments/main/start', { session_id: early, debug: true })).status).toBe(201);
    expect(await row()).toMatchObject({ condition: 'human_aligned' });
    expect(await placesHeld()).toBe(held + 1);
    await setTargets(null);
  });

  it('gives back the place of a session with no answer for longer than the time-out, and counts it again if it comes back', async () => {
    const target = await placesHeld();
    await setTargets({ overallTarget: null, cellTarget: null, cellTargets: { 'compas:human_aligned': target } });
    expect((await postJson('/api/experiments/sessions', { participant_name: newParticipantId(), dataset_type: 'compas', new_participant: true })).status).toBe(409);
    // One of them went quiet three hours ago (the time-out is 120 minutes).
    const quiet = (
      await env.DB.prepare(
        "select s.session_id from sessions s join participants p on p.id = s.participant_id where s.dataset_type = 'compas' and s.condition = 'human_aligned' and p.origin = 'participant' limit 1",
      ).first<{ session_id: string }>()
    )!.session_id;
    const long = new Date(Date.now() - 3 * 3600_000).toISOString();
    await env.DB.prepare('update sessions set created_at = ?, consented_at = null where session_id = ?').bind(long, quiet).run();
    await env.DB.prepare('update pre_experiment_responses set created_at = ? where session_id = ?').bind(long, quiet).run();
    await env.DB.prepare('update main_experiment_responses set updated_at = ? where session_id = ?').bind(long, quiet).run();
    expect((await postJson('/api/experiments/sessions', { participant_name: newParticipantId(), dataset_type: 'compas', new_participant: true })).status).toBe(201);
    // The dashboard and the export say what the time-out did.
    const listed = usersResponseSchema.parse(await (await api(`/api/admin/users?user_name=${quiet}`, { headers: { Cookie: cookie } })).json());
    expect(listed.users[0]).toMatchObject({ place: 'abandoned', last_activity_at: long });
    const csv = await (await api(`/api/enhanced-export/all-data?format=csv&user_name=${quiet}`, { headers: { Cookie: cookie } })).arrayBuffer();
    const { unzipSync, strFromU8 } = await import('fflate');
    const participantsCsv = strFromU8(unzipSync(new Uint8Array(csv))['participants.csv']!);
    expect(participantsCsv).toContain(',abandoned,');
    expect(participantsCsv).toContain(long);
    // It comes back and may finish: consent goes through (now above the target).
    expect((await postJson('/api/consent/submit', { session_id: quiet, consent_items: allConsentItems() })).status).toBeLessThan(300);
  });

  it('an overall target counts every dataset, and targets go back to the configuration’s when cleared', async () => {
    const everyone = await count("select count(*) as n from sessions s join participants p on p.id = s.participant_id where p.origin = 'participant' and s.screened_out_at is null");
    await setTargets({ overallTarget: everyone, cellTarget: null, cellTargets: {} });
    const refused = await postJson('/api/experiments/sessions', { participant_name: newParticipantId(), dataset_type: 'adult_income', new_participant: true });
    expect(refused.status).toBe(409);
    expect((await postJson('/api/experiments/dataset-assignment/balanced', { session_id: newParticipantId() })).status).toBe(409);
    // Every place taken: the study behaves as closed, and the entry page is told so.
    expect(publicRecruitmentSchema.parse(await (await api('/api/recruitment')).json())).toMatchObject({ status: 'open', full: true, accepting_newcomers: false });
    const cleared = recruitmentStateSchema.parse(await (await setTargets(null)).json());
    expect(cleared.targets).toBeNull();
    expect((await postJson('/api/experiments/sessions', { participant_name: newParticipantId(), dataset_type: 'adult_income', new_participant: true })).status).toBe(201);
  });

  it('refuses targets it cannot read', async () => {
    for (const targets of [{ overallTarget: -1, cellTarget: null, cellTargets: {} }, { overallTarget: null, cellTarget: null, cellTargets: { compas: 3 } }, { overall: 3 }]) {
      const res = await setTargets(targets);
      expect(res.status, JSON.stringify(targets)).toBe(400);
    }
  });
});

describe('the recruitment view', () => {
  /** A person's session in the crafted cell compas:progress_cell, with these phase times (minutes ago). */
  const crafted = async (times: { created: number; consented?: number; pre?: number; main?: number; survey?: number; screenedOut?: number }) => {
    const code = newParticipantId();
    // One clock reading for all of a session's times: a millisecond passing between two readings would move its medians.
    const now = Date.now();
    const at = (m?: number) => (m === undefined ? null : new Date(now - m * 60_000).toISOString());
    const p = await env.DB.prepare("insert into participants (participant_code, origin, language, is_active, created_at, updated_at) values (?, 'participant', 'en', 1, ?, ?) returning id")
      .bind(code, at(times.created), at(times.created))
      .first<{ id: number }>();
    await env.DB.prepare(
      `insert into sessions (session_id, participant_id, dataset_type, current_phase, language, created_at, updated_at, consented_at, pre_completed_at, main_completed_at,
         post_survey_completed_at, screened_out_at, condition) values (?, ?, 'compas', 'consent', 'en', ?, ?, ?, ?, ?, ?, ?, 'progress_cell')`,
    )
      .bind(code, p!.id, at(times.created), at(times.created), at(times.consented), at(times.pre), at(times.main), at(times.survey), at(times.screenedOut))
      .run();
  };

  it('counts each cell’s completed, in progress, abandoned and screened-out sessions, the funnel, the medians and the projected finish', async () => {
    await crafted({ created: 300, consented: 299, pre: 269, main: 229, survey: 219 });
    await crafted({ created: 120, consented: 118, pre: 78, main: 28, survey: 18 });
    await crafted({ created: 180 });
    await crafted({ created: 10 });
    await crafted({ created: 60, consented: 59, screenedOut: 30 });
    const completedBefore = await count('select count(*) as n from sessions where post_survey_completed_at is not null');
    expect(completedBefore).toBe(2);
    await setStatus('open', { targets: { overallTarget: 6, cellTarget: null, cellTargets: {} } });

    const progress = recruitmentProgressSchema.parse(await (await api('/api/admin/recruitment/progress', { headers: { Cookie: cookie } })).json());
    expect(progress.cells.find((c) => c.condition === 'progress_cell')).toEqual({
      dataset_type: 'compas',
      condition: 'progress_cell',
      target: null,
      completed: 2,
      in_progress: 1,
      abandoned: 1,
      screened_out: 1,
      over_target: 0,
    });
    expect(progress.median_minutes).toEqual({ total: 91.5, consent: 1.5, pre_experiment: 35, main_experiment: 45, post_survey: 10 });
    expect(progress.completions_last_24h).toBe(2);
    expect(progress.completions_per_hour).toBeCloseTo(2 / 24, 12);
    expect(progress.remaining).toBe(4);
    // Four more at one every 12 hours: two days from now.
    expect(Date.parse(progress.projected_finish!) - Date.parse(progress.computed_at)).toBeCloseTo(48 * 3_600_000, -3);
    const steps = progress.funnel.map((f) => f.sessions);
    expect(progress.funnel.map((f) => f.step)).toEqual(['entered', 'consented', 'pre_done', 'main_done', 'survey_done']);
    expect(steps.at(-1)).toBe(2);
    for (let i = 0; i + 1 < steps.length; i++) {
      expect(steps[i]!).toBeGreaterThanOrEqual(steps[i + 1]!);
      expect(progress.funnel[i]!.left_before_next).toBe(steps[i]! - steps[i + 1]!);
    }
    expect(progress.overall).toMatchObject({ target: 6, completed: 2 });
    expect(progress.overall.in_progress + progress.overall.abandoned + progress.overall.screened_out + progress.overall.completed).toBe(steps[0]);
  });
});
