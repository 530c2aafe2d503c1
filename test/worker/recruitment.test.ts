/**
 * Opening, pausing and closing a study: newcomers refused with nothing stored, everyone already in
 * continuing (or, closed without letting them finish, refused with withdrawal still open), the
 * change recorded in the audit log and shown on /status.
 */
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusResponseSchema } from '../../worker/schemas/api';
import { publicRecruitmentSchema, recruitmentStateSchema } from '../../worker/schemas/recruitment';
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
    expect(state).toEqual({ status: 'open', in_progress_may_finish: true, changed_at: null });
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
