/**
 * Measures a methods reviewer cannot fault (issue #56, point 5): the weight of advice with the
 * advice where the AI's shown probability puts it, the small-cluster reference of the alpha models,
 * who is counted (everyone by default, completers only on request), each group's own bootstrap
 * stream, and a participant's last activity counting every write of theirs.
 */
import { env } from 'cloudflare:workers';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminStatsSchema, experimentStatisticsSchema, usersResponseSchema } from '../../worker/schemas/admin';
import { bootstrapMean, streamSeed } from '../../worker/services/analytics/inference';
import { adminCookie, api, postJson } from '../helpers/api';
import { craftedParticipant } from '../helpers/crafted-trials';
import { seedCompasStudy, startedIn } from '../helpers/study-factories';

type Report = {
  completed_only: boolean;
  trials: number;
  by_condition: { condition: string; participants: number; trials: number }[];
  participants: { user_id: number; metrics: Record<string, number | null>; metric_trials: Record<string, number> }[];
  alpha_models: Record<string, unknown>[];
  definitions: { alpha_models: { few_clusters_below: number } };
};

let cookie: string;
const asAdmin = (path: string) => api(path, { headers: { Cookie: cookie } });
const report = async (query = '') => (await (await asAdmin(`/api/admin/analytics/reliance${query}`)).json()) as Report;
const person = (r: Report, id: number) => r.participants.find((p) => p.user_id === id)!;
const people: Record<string, { code: string; id: number }> = {};

beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
  // The AI's probability shown with its bars: the advice sits there.
  people.shown = await craftedParticipant('human_aligned', [
    // From 25 % positive to 75 %, the AI's stated 75 %: all the way (read as its class at certainty it was 2/3).
    { i: 0, ci: 3, a: 1, p: 0.75, shown: true, y: 1, f: 1, cf: 3, alpha: 1 },
    // Certain, then as sure as the AI's 87.5 %: all the way, down.
    { i: 1, ci: 5, a: 1, p: 0.875, shown: true, y: 1, f: 1, cf: 4, alpha: 1 },
    // Already where the AI's advice sits: not defined.
    { i: 1, ci: 4, a: 1, p: 0.875, shown: true, y: 1, f: 1, cf: 5, alpha: 1 },
    // At 50 % (either class), the AI's class alone shown: stayed, 0.
    { i: 0, ci: 1, a: 1, p: 0.9, shown: false, y: 1, f: 0, cf: 1 },
  ]);
  // Twelve participants at two alphas, four of whom finished the study.
  for (let k = 0; k < 12; k++) {
    people[`alpha${k}`] = await craftedParticipant(
      'human_aligned',
      Array.from({ length: 10 }, (_, j) => ({ i: 0, a: 1, y: 1, f: (j + k) % 3 === 0 || (j % 2 === 1 && k % 2 === 0) ? 1 : 0, alpha: j % 2 === 0 ? 0.25 : 0.75 })),
    );
    if (k < 4) await env.DB.prepare('update sessions set post_survey_completed_at = ? where session_id = ?').bind(new Date().toISOString(), people[`alpha${k}`]!.code).run();
  }
});

describe('weight of advice', () => {
  it("places the advice where the AI's shown probability puts it, hand-computed", async () => {
    const p = person(await report(), people.shown!.id);
    // 1. 0.25 → 0.75, advice 0.75: 1. 2. 1 → 0.875, advice 0.875: 1. 3. advice = initial: not defined. 4. 0.5 → 0.5, advice 1: 0.
    expect(p.metrics.weight_of_advice).toBeCloseTo(2 / 3, 12);
    expect(p.metric_trials.weight_of_advice).toBe(3);
  });

  it('gives each trial its value in trials.csv with what it is computed from', async () => {
    const csv = await (await asAdmin(`/api/enhanced-export/trials?format=csv&user_name=${people.shown!.code}`)).text();
    const rows = Papa.parse<Record<string, string>>(csv.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true }).data;
    expect(rows.map((r) => [r.ai_probability, r.ai_probability_shown, r.weight_of_advice])).toEqual([
      ['0.75', '1', '1'],
      ['0.875', '1', '1'],
      ['0.875', '1', ''],
      ['0.9', '0', '0'],
    ]);
  });
});

describe('the alpha model with few participants', () => {
  it('refers the slope to t with participants − 1 degrees of freedom and says the clusters are few', async () => {
    const r = await report();
    const fitted = r.alpha_models.filter((m) => m.condition === 'human_aligned' && !('refused' in m));
    expect(fitted.length).toBeGreaterThan(0);
    for (const m of fitted) expect(m).toMatchObject({ df: (m.participants as number) - 1, few_clusters: true });
    expect(r.definitions.alpha_models.few_clusters_below).toBe(30);
  });
});

describe('who is counted', () => {
  it('counts everyone with trials by default and only those who finished on request: the tab, the statistics, the dashboard and the exports', async () => {
    const everyone = await report();
    const finished = await report('?completed_only=true');
    expect(everyone.completed_only).toBe(false);
    expect(finished.completed_only).toBe(true);
    expect(everyone.by_condition.find((g) => g.condition === 'human_aligned')!.participants).toBe(13);
    expect(finished.by_condition.find((g) => g.condition === 'human_aligned')).toMatchObject({ participants: 4, trials: 40 });
    const stats = experimentStatisticsSchema.parse(await (await asAdmin('/api/experiments/statistics?completed_only=true')).json());
    expect(stats).toMatchObject({ completed_only: true, main_experiment: { total_responses: 40, unique_users: 4 } });
    expect(adminStatsSchema.parse(await (await asAdmin('/api/admin/stats?completed_only=true')).json()).completed_only).toBe(true);
    const group = Papa.parse<Record<string, string>>(await (await asAdmin('/api/enhanced-export/reliance-by-condition?format=csv&completed_only=true')).text(), { header: true, skipEmptyLines: true }).data;
    expect(group.find((g) => g.condition === 'human_aligned')).toMatchObject({ participants: '4', trials: '40' });
    // trials.csv says who finished, so a script can count the same way.
    const zip = unzipSync(new Uint8Array(await (await asAdmin('/api/enhanced-export/all-data?format=csv')).arrayBuffer()));
    const trials = Papa.parse<Record<string, string>>(strFromU8(zip['trials.csv']!), { header: true, skipEmptyLines: true }).data;
    expect(trials.filter((t) => t.completed === '1')).toHaveLength(40);
  });
});

describe("each group's own bootstrap stream", () => {
  it('derives a stream per group name, so groups of one size and the same values draw different resamples, and the same group the same', () => {
    expect(streamSeed('condition/a')).not.toBe(streamSeed('condition/b'));
    const values = [0.1, 0.4, 0.45, 0.5, 0.7, 0.9];
    const a = bootstrapMean(values, 'condition/a');
    const b = bootstrapMean(values, 'condition/b');
    expect(a.mean).toBe(b.mean);
    expect([a.ci_low, a.ci_high]).not.toEqual([b.ci_low, b.ci_high]);
    expect(bootstrapMean(values, 'condition/a')).toEqual(a);
    // 20190504 XOR FNV-1a("overall"), as Python computes it (reproduce.py's stream_seed).
    expect(streamSeed('overall')).toBe(3839012306);
  });
});

describe('last activity', () => {
  it('counts every write of the participant: a serve, a checkpoint, a stored case', async () => {
    const p = await startedIn('human_aligned');
    const long = new Date(Date.now() - 3 * 3600_000).toISOString();
    await env.DB.prepare('update sessions set created_at = ?, consented_at = ?, main_started_at = ? where session_id = ?').bind(long, long, long, p.id).run();
    const lastActivity = async () => usersResponseSchema.parse(await (await asAdmin(`/api/admin/users?user_name=${p.id}`)).json()).users[0]!;
    expect(await lastActivity()).toMatchObject({ last_activity_at: long, place: 'abandoned' });
    const caseId = p.set[0]!.case_id;
    expect((await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: caseId, initial_prediction: 1, initial_confidence: 3, initial_response_time_ms: 4000 })).status).toBe(200);
    const served = (await env.DB.prepare('select last_served_at as at from served_explanations where session_id = ?').bind(p.id).first<{ at: string }>())!.at;
    expect(await lastActivity()).toMatchObject({ last_activity_at: served, place: 'in_progress' });
    await new Promise((r) => setTimeout(r, 5));
    expect((await postJson('/api/experiments/main/trial-progress', { step: 'explanation_viewed', session_id: p.id, case_id: caseId, explanation_viewing_time_ms: 3000 })).status).toBe(200);
    const kept = (await env.DB.prepare('select updated_at as at from main_trial_progress where session_id = ?').bind(p.id).first<{ at: string }>())!.at;
    expect(kept > served).toBe(true);
    expect((await lastActivity()).last_activity_at).toBe(kept);
  });
});
