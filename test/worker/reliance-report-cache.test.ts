import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { INLINE_PARTICIPANTS } from '../../worker/services/analytics/report-cache';
import { adminCookie, api, postJson } from '../helpers/api';
import { consentedParticipant } from '../helpers/study-factories';

type Served = {
  computed: { at: string; compute_ms: number; data_revision: number; current_revision: number; stale: boolean; recomputing: boolean };
  trials: number;
  participants_total: number;
  participants_offset: number;
  participants: { user_id: number; user_name: string; trials: number; metrics: Record<string, number | null> }[];
};

let cookie: string;
const asAdmin = (path: string, init: RequestInit = {}) => api(path, { ...init, headers: { Cookie: cookie } });
const served = async (query = '') => {
  const res = await asAdmin(`/api/admin/analytics/reliance${query ? `?${query}` : ''}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Served;
};
const revision = async () => (await env.DB.prepare('select revision from data_revision where id = 1').first<{ revision: number }>())!.revision;
const erasures = async () => (await env.DB.prepare('select erasures from data_revision where id = 1').first<{ erasures: number }>())!.erasures;
const kept = async () => (await env.EXPORTS.list({ prefix: 'analytics/reliance/' })).objects.map((o) => o.key);

const now = new Date().toISOString();
/** A participant with a real ID, consented, with `trials` finished main trials written straight into D1. */
async function participantWithTrials(trials = 4) {
  const p = await consentedParticipant('compas');
  const session = (await env.DB.prepare('select session_id from sessions where participant_id = ?').bind(p.userId).first<{ session_id: string }>())!.session_id;
  await env.DB.batch(Array.from({ length: trials }, (_, t) => trialInsert(p.userId, session, t + 1)));
  return p;
}

/**
 * `count` participants, each with a session and `trials` finished main trials (agreeing with the
 * AI on odd trials), written straight into D1 as a finished study's rows; returns their ids.
 */
async function writeStudy(prefix: string, count: number, trials: number): Promise<number[]> {
  const ids: number[] = [];
  for (let from = 0; from < count; from += 50) {
    const codes = Array.from({ length: Math.min(50, count - from) }, (_, i) => `${prefix}${String(from + i).padStart(7, '0')}`);
    const people = await env.DB.batch(
      codes.map((code) => env.DB.prepare('insert into participants (participant_code, display_name, created_at, updated_at) values (?, ?, ?, ?) returning id').bind(code, code, now, now)),
    );
    const made = people.map((r, i) => ({ id: (r.results[0] as { id: number }).id, code: codes[i]! }));
    ids.push(...made.map((p) => p.id));
    await env.DB.batch(
      made.flatMap(({ id, code }) => [
        env.DB.prepare(
          `insert into sessions (session_id, participant_id, dataset_type, current_phase, consented_at, pre_completed_at, main_started_at, main_completed_at, created_at, updated_at)
           values (?, ?, 'compas', 'post_survey', ?, ?, ?, ?, ?, ?)`,
        ).bind(code, id, now, now, now, now, now, now),
        ...Array.from({ length: trials }, (_, t) => trialInsert(id, code, t + 1)),
      ]),
    );
  }
  return ids;
}
const trialInsert = (id: number, code: string, n: number, final = n % 2) =>
  env.DB.prepare(
    `insert into main_experiment_responses (participant_id, session_id, dataset_type, case_id, case_number, ground_truth, initial_prediction, initial_confidence, final_prediction, final_confidence,
       ai_prediction, alignment_alpha, created_at, updated_at, completed_at)
     values (?, ?, 'compas', ?, ?, 1, 0, 3, ?, 4, 1, 0.5, ?, ?, ?)`,
  ).bind(id, code, `compas_main_${n}`, n, final, now, now, now);

beforeAll(async () => {
  cookie = await adminCookie();
});

describe('the data revision', () => {
  it('moves with every write the reliance figures read, and not with a session’s activity', async () => {
    const [id] = await writeStudy('R', 1, 1);
    const code = 'R0000000';
    const moved = async (sql: string, ...binds: unknown[]) => {
      const before = await revision();
      await env.DB.prepare(sql).bind(...binds).run();
      return (await revision()) - before;
    };
    expect(await moved('update main_experiment_responses set final_prediction = 0 where participant_id = ?', id)).toBeGreaterThan(0);
    expect(await moved('update sessions set condition = ? where participant_id = ?', 'spec', id)).toBeGreaterThan(0);
    expect(await moved('update sessions set updated_at = ? where participant_id = ?', new Date().toISOString(), id)).toBe(0);
    expect(await moved('update participants set origin = origin where id = ?', id)).toBeGreaterThan(0);
    expect(
      await moved(
        `insert into pre_experiment_responses (participant_id, session_id, dataset_type, case_id, case_number, prediction, confidence, response_time_ms, ground_truth, created_at)
         values (?, ?, 'compas', 'compas_pre_1', 1, 1, 3, 4000, 1, ?)`,
        id,
        code,
        now,
      ),
    ).toBeGreaterThan(0);
    expect(await moved('delete from main_experiment_responses where participant_id = ?', id)).toBeGreaterThan(0);
  });
});

describe('the kept reliance report', () => {
  it('is served as kept while the data stand still, and recomputed before answering once they move (a lab-sized study)', async () => {
    const p = await participantWithTrials();
    const first = await served();
    expect(first.computed.stale).toBe(false);
    expect(first.computed.data_revision).toBe(await revision());
    expect(await kept()).toContain('analytics/reliance/all-without-synthetic.json');
    const again = await served();
    // Nothing written: the same report, not computed again.
    expect(again.computed.at).toBe(first.computed.at);
    expect(again.trials).toBe(first.trials);

    await env.DB.prepare('update main_experiment_responses set final_prediction = 1 - final_prediction where participant_id = ? and case_number = 1').bind(p.userId).run();
    const after = await served();
    expect(after.computed.stale).toBe(false);
    expect(after.computed.data_revision).toBe(await revision());
    expect(after.computed.data_revision).toBeGreaterThan(first.computed.data_revision);
    const before = first.participants.find((r) => r.user_id === p.userId)!;
    const now_ = after.participants.find((r) => r.user_id === p.userId)!;
    expect(now_.metrics.agreement).not.toBe(before.metrics.agreement);
  });

  it('a report kept by another version of the Worker is computed again', async () => {
    await participantWithTrials();
    await env.EXPORTS.put('analytics/reliance/all-without-synthetic.json', JSON.stringify({ participants: [], trials: -1 }), {
      customMetadata: { revision: String(await revision()), erasures: String(await erasures()), version: 'an-earlier-deploy', computed_at: now, compute_ms: '1' },
    });
    const r = await served();
    expect(r.trials).toBeGreaterThan(0);
    expect(r.participants_total).toBeGreaterThan(0);
  });

  it('pages and sorts the participant table on the server, undefined values last', async () => {
    const ids = await writeStudy('S', 30, 2);
    // One participant without an initial judgement that differs: switching undefined for them.
    await env.DB.prepare('update main_experiment_responses set initial_prediction = ai_prediction where participant_id = ?').bind(ids[0]).run();
    const all = await served('participants_limit=1000');
    expect(all.participants_total).toBeGreaterThanOrEqual(30);
    expect(all.participants.map((p) => p.user_id)).toEqual([...all.participants.map((p) => p.user_id)].sort((a, b) => a - b));
    const page = await served('participants_limit=10&participants_offset=10');
    expect(page.participants.map((p) => p.user_id)).toEqual(all.participants.slice(10, 20).map((p) => p.user_id));
    expect(page.participants_offset).toBe(10);
    for (const direction of ['ascending', 'descending']) {
      const sorted = await served(`participants_limit=1000&participants_sort=switch&participants_direction=${direction}`);
      const values = sorted.participants.map((p) => p.metrics.switch ?? null);
      const defined = values.filter((v): v is number => v !== null);
      expect(values.slice(0, defined.length)).toEqual(defined);
      expect(values.slice(defined.length).every((v) => v === null), JSON.stringify(values)).toBe(true);
      expect(defined).toEqual([...defined].sort((a, b) => (direction === 'ascending' ? a - b : b - a)));
      expect(sorted.participants.find((p) => p.user_id === ids[0])!.metrics.switch).toBeNull();
    }
    for (const bad of ['participants_sort=password', 'participants_limit=0', 'participants_limit=1001', 'participants_offset=-1', 'participants_direction=up']) {
      const res = await asAdmin(`/api/admin/analytics/reliance?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toBeTruthy();
    }
  });

  it('a withdrawal and an administrator’s deletion leave no kept report listing the participant', async () => {
    const leaving = await participantWithTrials();
    expect((await served()).participants.some((p) => p.user_id === leaving.userId)).toBe(true);
    expect(await kept()).not.toEqual([]);
    expect((await postJson('/api/experiments/withdraw', { participant_id: leaving.id, confirm: true })).status).toBe(200);
    expect(await kept()).toEqual([]);
    expect((await served()).participants.some((p) => p.user_id === leaving.userId)).toBe(false);

    const deleted = await participantWithTrials();
    await served();
    const keptBefore = await kept();
    expect(keptBefore).not.toEqual([]);
    // A refused deletion changes nothing, the kept reports included.
    const unknown = await asAdmin(`/api/admin/users/${deleted.userId + 1000}`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(await kept()).toEqual(keptBefore);
    expect((await asAdmin(`/api/admin/users/${deleted.userId}`, { method: 'DELETE' })).status).toBe(200);
    expect(await kept()).toEqual([]);
  });
});

describe('the kept report of a large study', () => {
  it('past INLINE_PARTICIPANTS, a moved revision serves the kept report marked stale while one Worker computes the next', async () => {
    const ids = await writeStudy('L', INLINE_PARTICIPANTS + 1, 1);
    const first = await served('participants_limit=5');
    expect(first.computed.stale).toBe(false);
    expect(first.participants_total).toBeGreaterThan(INLINE_PARTICIPANTS);
    const trialsBefore = first.trials;

    await trialInsert(ids[0]!, 'L0000000', 2).run();
    const stale = await served('participants_limit=5');
    expect(stale.computed).toMatchObject({ stale: true, recomputing: true, data_revision: first.computed.data_revision });
    expect(stale.computed.current_revision).toBe(await revision());
    // The figures shown are the kept ones, as their revision says.
    expect(stale.trials).toBe(trialsBefore);
    const claim = await env.DB.prepare("select computing_since from analytics_reports where report_key = 'all-without-synthetic'").first<{ computing_since: string | null }>();

    let fresh = stale;
    for (let i = 0; i < 100 && fresh.computed.stale; i++) {
      await new Promise((r) => setTimeout(r, 100));
      fresh = await served('participants_limit=5');
      // A viewer meanwhile starts no second computation: the claim stays the first one's.
      if (fresh.computed.stale) {
        const still = await env.DB.prepare("select computing_since from analytics_reports where report_key = 'all-without-synthetic'").first<{ computing_since: string | null }>();
        expect([claim?.computing_since, null]).toContain(still?.computing_since ?? null);
      }
    }
    expect(fresh.computed.stale).toBe(false);
    expect(fresh.trials).toBe(trialsBefore + 1);
    expect(fresh.computed.data_revision).toBe(await revision());
    const released = await env.DB.prepare("select computing_since from analytics_reports where report_key = 'all-without-synthetic'").first<{ computing_since: string | null }>();
    expect(released?.computing_since).toBeNull();
  });

  it('a report kept from before a participant was deleted is never served, not even marked stale', async () => {
    const before = await served('participants_limit=1000');
    expect(before.computed.stale).toBe(false);
    const gone = before.participants[0]!.user_id;
    // Deleted behind the Worker's back (no route dropped the kept reports): the erasure count alone must keep them out.
    const erased = await erasures();
    await env.DB.batch([
      env.DB.prepare('delete from main_experiment_responses where participant_id = ?').bind(gone),
      env.DB.prepare('delete from sessions where participant_id = ?').bind(gone),
      env.DB.prepare('delete from participants where id = ?').bind(gone),
    ]);
    expect(await erasures()).toBe(erased + 1);
    const after = await served('participants_limit=1000');
    expect(after.computed.stale).toBe(false);
    expect(after.participants_total).toBe(before.participants_total - 1);
    expect(after.participants.some((p) => p.user_id === gone)).toBe(false);
  });
});
