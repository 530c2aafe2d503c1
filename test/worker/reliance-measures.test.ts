/**
 * The measures a methods reviewer checks, on crafted trials whose every figure is known by hand:
 * symmetric over- and under-reliance, measures undefined where the design has no initial
 * judgement, weight of advice where the advice sits elsewhere than the initial judgement, the change rate's denominator,
 * conditions never pooled, the kind coded by what was shown, and the exports an analysis reads.
 */
import { env } from 'cloudflare:workers';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminStatsSchema, experimentStatisticsSchema, responsesResponseSchema, usersResponseSchema } from '../../worker/schemas/admin';
import { bootstrapDifference, bootstrapMean, clusteredLogit, mulberry32, tCritical, tTwoSidedP } from '../../worker/services/analytics/inference';
import { adminCookie, api } from '../helpers/api';
import { craftedParticipant } from '../helpers/crafted-trials';

type Interval = { mean: number | null; ci_low: number | null; ci_high: number | null; participants: number; trials: number };
type Group = { trials: number; participants: number; fallback_trials: number; metrics: Record<string, Interval> };
type Report = {
  overall: Group | null;
  by_alpha: (Group & { condition: string; explanation_kind: string; alignment_alpha: number | null })[];
  by_condition: (Group & { condition: string })[];
  by_dataset: (Group & { condition: string; dataset_type: string })[];
  participants: { user_id: number; condition: string; origin: string; metrics: Record<string, number | null>; metric_trials: Record<string, number> }[];
  definitions: { metrics: { id: string; units: string; source: string }[] };
};

let cookie: string;
const asAdmin = (path: string) => api(path, { headers: { Cookie: cookie } });
const now = new Date().toISOString();

const crafted = craftedParticipant;

const report = async () => (await (await asAdmin('/api/admin/analytics/reliance')).json()) as Report;
const person = (r: Report, id: number) => r.participants.find((p) => p.user_id === id)!;

const people: Record<string, { code: string; id: number }> = {};

beforeAll(async () => {
  cookie = await adminCookie();
  people.aligned = await crafted('human_aligned', [
    // Agreed with the wrong AI before seeing it: not an opportunity to over-rely.
    { i: 1, a: 1, y: 0, f: 1 },
    // Right at first, the AI wrong, followed it: over-reliance.
    { i: 0, ci: 4, a: 1, y: 0, f: 1, cf: 2 },
    // Wrong at first, the AI right, kept own: under-reliance.
    { i: 1, ci: 2, a: 0, y: 0, f: 1, cf: 3 },
    // Same class as the AI, less sure than its advice (shown as its class alone, so at certainty), then certain: all the way to it.
    { i: 0, ci: 2, a: 0, y: 0, f: 0, cf: 5, alpha: 1 },
  ]);
  // The AI shown with the case: one judgement only.
  people.withCase = await crafted('explanation_with_case', [
    { i: null, a: 1, y: 1, f: 1 },
    { i: null, a: 1, y: 0, f: 0 },
  ]);
  // No AI, two judgements.
  people.noAi = await crafted('no_ai', [
    { i: 1, a: null, y: 1, f: 0 },
    { i: 0, a: null, y: 1, f: 0 },
  ]);
  // The AI's own explanation by design, at alpha 1, plus one fallback trial in the human-aligned condition.
  people.control = await crafted('ai_explanation', [
    { i: 0, a: 1, y: 1, f: 1, kind: 'ai_explanation', alpha: 1 },
    { i: 1, a: 1, y: 1, f: 1, kind: 'ai_explanation', alpha: 1 },
  ]);
  people.fallback = await crafted('human_aligned', [
    { i: 0, a: 1, y: 1, f: 0, kind: 'ai_only', alpha: 0.25 },
    { i: 0, a: 1, y: 1, f: 1, alpha: 0.25 },
  ]);
});

describe('measures with one definition each', () => {
  it('over- and under-reliance on mirrored conditions, RAIR and RSR, switching and agreement, each with its n', async () => {
    const p = person(await report(), people.aligned!.id);
    expect(p.metrics).toMatchObject({ over_reliance: 1, under_reliance: 1, rsr: 0, rair: 0, switch: 0.5, agreement: 0.75 });
    expect(p.metric_trials).toMatchObject({ over_reliance: 1, under_reliance: 1, rsr: 1, rair: 1, switch: 2, agreement: 4, weight_of_advice: 4 });
  });

  it('weight of advice: the share of the way from the initial judgement to the advice on the probability scale, hand-computed', async () => {
    const r = await report();
    const p = person(r, people.aligned!.id);
    // q = 0.5 ± (confidence − 1) × 0.125; the advice (its class alone shown) at 1 or 0.
    // 1. 0.75 → 0.75, advice 1: 0. 2. 0.125 → 0.625, advice 1: 0.5 / 0.875 = 4/7. 3. 0.625 → 0.75, advice 0: away, 0. 4. 0.375 → 0, advice 0: 1.
    expect(p.metrics.weight_of_advice).toBeCloseTo((0 + 4 / 7 + 0 + 1) / 4, 12);
    const woa = r.definitions.metrics.find((m) => m.id === 'weight_of_advice')!;
    expect(woa.units).toContain('0 = the final judgement stayed where the initial one was');
    expect(woa.source).toContain('Harvey & Fischer (1997)');
  });

  it('leaves every measure that needs an initial judgement undefined where the design has none', async () => {
    const p = person(await report(), people.withCase!.id);
    for (const id of ['switch', 'rair', 'rsr', 'over_reliance', 'under_reliance', 'weight_of_advice', 'initial_accuracy', 'accuracy_gain', 'confidence_change']) {
      expect(p.metrics[id], id).toBeNull();
      expect(p.metric_trials[id], id).toBe(0);
    }
    expect(p.metrics).toMatchObject({ agreement: 0.5, final_accuracy: 1 });
    const noAi = person(await report(), people.noAi!.id);
    expect(noAi.metrics.agreement).toBeNull();
    expect(noAi.metrics.initial_accuracy).toBe(0.5);
  });
});

describe('groups say what was shown', () => {
  it('codes the control condition as the AI’s explanation, the fallback apart, and never pools conditions', async () => {
    const r = await report();
    expect(r.overall).toBeNull();
    const control = r.by_alpha.filter((g) => g.condition === 'ai_explanation');
    expect(control.map((g) => [g.explanation_kind, g.alignment_alpha])).toEqual([['ai_explanation', null]]);
    const aligned = r.by_alpha.filter((g) => g.condition === 'human_aligned');
    expect(aligned.map((g) => [g.explanation_kind, g.alignment_alpha])).toEqual([
      ['human_aligned', 0.25],
      ['human_aligned', 0.5],
      ['human_aligned', 1],
      ['ai_only', null],
    ]);
    expect(r.by_condition.find((g) => g.condition === 'human_aligned')).toMatchObject({ trials: 6, participants: 2, fallback_trials: 1 });
    expect(r.by_dataset.map((g) => `${g.condition}:${g.dataset_type}`).sort()).toEqual(
      ['ai_explanation:compas', 'explanation_with_case:compas', 'human_aligned:compas', 'no_ai:compas'],
    );
    expect(person(r, people.control!.id)).toMatchObject({ condition: 'ai_explanation', origin: 'participant' });
  });

  it('statistics: the change rate over trials with the AI after an initial judgement, and alpha 1 apart from the AI’s explanation', async () => {
    const s = experimentStatisticsSchema.parse(await (await asAdmin('/api/experiments/statistics')).json());
    // With the AI after an initial judgement: 4 + 2 + 2 trials (not the 12 stored); changed: one each.
    expect(s.main_experiment).toMatchObject({ total_responses: 12, judgment_change_trials: 8, judgment_changes: 3, judgment_change_rate: 3 / 8 });
    expect(s.main_experiment.alignment_distribution).toEqual({ '0.25': 1, '0.5': 5, '1': 1, ai_explanation: 2, ai_only: 1, no_ai: 2 });
    const byCondition = Object.fromEntries(s.main_by_condition.map((c) => [c.condition, c]));
    expect(byCondition.no_ai).toMatchObject({ total_responses: 2, judgment_change_trials: 0, judgment_change_rate: null, unique_users: 1 });
    expect(byCondition.explanation_with_case).toMatchObject({ judgment_change_trials: 0, judgment_change_rate: null });
    expect(byCondition.human_aligned).toMatchObject({ judgment_change_trials: 6, judgment_changes: 2, unique_users: 2 });
  });
});

describe('what the dashboard counts', () => {
  it('labels the Users and experiment tabs with what their tables list, whatever population the figures count', async () => {
    // A synthetic participant: listed in the tables, left out of the figures by default.
    await env.DB.prepare("insert into participants (participant_code, origin, language, is_active, created_at, updated_at) values ('test_listed', 'admin_synthetic', 'en', 1, ?, ?)")
      .bind(now, now)
      .run();
    const stats = adminStatsSchema.parse(await (await asAdmin('/api/admin/stats')).json());
    const users = usersResponseSchema.parse(await (await asAdmin('/api/admin/users?limit=1')).json());
    expect(stats.listed.users).toBe(users.total);
    expect(stats.total_users).toBe(users.total - 1);
    for (const phase of ['pre_experiment', 'main_experiment'] as const) {
      const listed = responsesResponseSchema.parse(await (await asAdmin(`/api/admin/responses?limit=1&experiment_type=${phase}`)).json());
      expect(stats.listed[`${phase}_responses`], phase).toBe(listed.total);
    }
  });
});

describe('exports carry what an analysis needs', () => {
  it('a long-format trial table, condition and origin per participant, and the reproduction scripts in the zip', async () => {
    const files = unzipSync(new Uint8Array(await (await asAdmin('/api/enhanced-export/all-data?format=csv')).arrayBuffer()));
    const table = (name: string) => Papa.parse<Record<string, string>>(strFromU8(files[name]!), { header: true, skipEmptyLines: true }).data;
    const trials = table('trials.csv');
    expect(trials).toHaveLength(12);
    const own = trials.filter((t) => t.user_name === people.aligned!.code);
    expect(own.map((t) => [t.shown_kind, t.alpha, t.initial, t.ai, t.final, t.agree, t.switch])).toEqual([
      ['human_aligned', '0.5', '1', '1', '1', '1', ''],
      ['human_aligned', '0.5', '0', '1', '1', '1', '1'],
      ['human_aligned', '0.5', '1', '0', '1', '0', '0'],
      ['human_aligned', '1', '0', '0', '0', '1', ''],
    ]);
    expect(own.map((t) => t.weight_of_advice)).toEqual(['0', String(0.5 / 0.875), '0', '1']);
    expect(trials.find((t) => t.user_name === people.control!.code)).toMatchObject({ shown_kind: 'ai_explanation', alpha: '', condition: 'ai_explanation' });
    expect(trials.find((t) => t.user_name === people.noAi!.code)).toMatchObject({ shown_kind: 'no_ai', ai: '', agree: '' });
    const reliance = table('reliance-participants.csv');
    expect(reliance.find((p) => p.user_name === people.withCase!.code)).toMatchObject({ condition: 'explanation_with_case', origin: 'participant', over_reliance: '', agreement_trials: '2' });
    expect(table('main-experiment.csv').find((t) => t.user_name === people.control!.code)).toMatchObject({ explanation_kind: 'ai_explanation' });
    const reproduce = strFromU8(files['analysis/reproduce.py']!);
    expect(reproduce).toContain('def reproduce(');
    expect(strFromU8(files['analysis/models.R']!)).toContain('glmer(agree ~ alpha + (1 | participant) + (1 | case)');
    const codebook = table('codebook.csv');
    expect(codebook.find((c) => c.table === 'reliance-participants' && c.column === 'rair')!.meaning).toContain('Schemmer');
    expect(codebook.find((c) => c.table === 'trials' && c.column === 'shown_kind')!.coding).toContain('ai_explanation');
  });
});

describe('the inference behind the intervals', () => {
  it('mulberry32 draws what analysis/reproduce.py draws in its counter-based form', () => {
    const next = mulberry32(0);
    // reproduce.py's uniforms(3) with seed 0, ×2^32 (numpy, 32-bit integer arithmetic).
    expect([next(), next(), next()].map((u) => Math.round(u * 4294967296))).toEqual([1144304738, 1416247, 958946056]);
  });

  it('bootstraps a mean deterministically, inside the values’ span, with no interval below two participants', () => {
    const values = [0, 0.2, 1, 1, 0.5, 0.75];
    const a = bootstrapMean(values);
    expect(a).toEqual(bootstrapMean(values));
    expect(a.mean).toBeCloseTo(3.45 / 6, 15);
    expect(a.ci_low!).toBeGreaterThanOrEqual(0);
    expect(a.ci_high!).toBeLessThanOrEqual(1);
    expect(a.ci_low!).toBeLessThan(a.mean!);
    expect(a.ci_high!).toBeGreaterThan(a.mean!);
    expect(bootstrapMean([0.4])).toEqual({ mean: 0.4, ci_low: null, ci_high: null });
    // Shares of 0 and 1 only: the t-interval would leave 0…1; the bootstrap cannot.
    const extreme = bootstrapMean([1, 1, 1, 0]);
    expect(extreme.ci_low!).toBeGreaterThanOrEqual(0);
    expect(extreme.ci_high!).toBeLessThanOrEqual(1);
    const d = bootstrapDifference([0, 0.1, 0.2], [0.8, 0.9, 1]);
    expect(d.mean).toBeCloseTo(0.8, 15);
    expect(d.ci_low!).toBeGreaterThan(0.5);
    expect(d.ci_high!).toBeLessThanOrEqual(1);
  });

  it("Student's t to double precision: two-sided p-values and critical values", () => {
    // scipy.stats 1.10: t.ppf(0.975, df), 2 * t.sf(2.5, df) and 2 * t.sf(6.032906, df).
    const SCIPY: [number, number, number, number][] = [
      [1, 12.706204736174694, 0.24223788318168682, 0.10457374006924314],
      [2, 4.302652729749462, 0.12961172022151082, 0.026392697520434633],
      [5, 2.5705818356363146, 0.05449009934237626, 0.001801475377114004],
      [11, 2.200985160091639, 0.029506374087364163, 8.514754554625925e-5],
      [29, 2.045229642132703, 0.018325344338426086, 1.4553523755572744e-6],
      [1000, 1.9623390808264083, 0.012578567801090807, 2.264782278913889e-9],
    ];
    for (const [df, critical, p25, p60] of SCIPY) {
      expect(tCritical(0.95, df) / critical, `df ${df}`).toBeCloseTo(1, 11);
      expect(tTwoSidedP(2.5, df) / p25, `df ${df}`).toBeCloseTo(1, 11);
      expect(tTwoSidedP(-6.032906, df) / p60, `df ${df}`).toBeCloseTo(1, 10);
    }
  });

  it('refuses a logistic model it cannot fit, and says why', () => {
    const cell = (cluster: number, x: number, trials: number, successes: number) => ({ cluster, x, trials, successes });
    expect(clusteredLogit([cell(1, 0, 5, 2), cell(1, 1, 5, 3)])).toMatchObject({ refused: 'too_few_participants' });
    expect(clusteredLogit([cell(1, 0, 5, 5), cell(2, 1, 5, 5)])).toMatchObject({ refused: 'no_variation_in_outcome' });
    expect(clusteredLogit([cell(1, 0.5, 5, 2), cell(2, 0.5, 5, 3)])).toMatchObject({ refused: 'no_variation_in_covariate' });
    expect(clusteredLogit([cell(1, 0, 5, 0), cell(2, 1, 5, 5)])).toMatchObject({ refused: 'not_converged' });
  });

  it('fits the statsmodels example computed from the same data (participant-clustered, t with G − 1 degrees of freedom)', () => {
    // 12 participants × 50 trials at five alphas, fitted by statsmodels 0.13.5:
    // sm.Logit(d.y, add_constant(d.x)).fit(cov_type='cluster', cov_kwds={'groups': d.g}, use_t=True); test/conditions/reproduce.test.ts compares a whole export.
    const cells = LOGIT_FIXTURE.map(([cluster, x, trials, successes]) => ({ cluster: cluster!, x: x!, trials: trials!, successes: successes! }));
    const fit = clusteredLogit(cells);
    expect('refused' in fit).toBe(false);
    if ('refused' in fit) return;
    expect(fit.intercept).toBeCloseTo(0.21947246, 7);
    expect(fit.slope).toBeCloseTo(1.09020681, 7);
    expect(fit.intercept_se).toBeCloseTo(0.18391424, 7);
    expect(fit.slope_se).toBeCloseTo(0.18070984, 7);
    expect(fit.slope_t).toBeCloseTo(6.03291342, 7);
    expect(fit.df).toBe(11);
    expect(fit.few_clusters).toBe(true);
    // A normal reference gave p = 1.6e-9 for these 12 participants; the small-cluster t says 8.5e-5.
    expect(fit.slope_p / 8.51466407e-5).toBeCloseTo(1, 6);
    expect(fit.slope_ci_low).toBeCloseTo(0.69246714, 7);
    expect(fit.slope_ci_high).toBeCloseTo(1.48794648, 7);
  });
});

/** participant, alpha, trials, successes: the cells of the statsmodels example above. */
const LOGIT_FIXTURE: number[][] = [[0,0,10,8], [0,0.25,10,4], [0,0.5,10,7], [0,0.75,10,6], [0,1,10,9], [1,0,10,8], [1,0.25,10,8], [1,0.5,10,7], [1,0.75,10,9], [1,1,10,10], [2,0,10,5], [2,0.25,10,9], [2,0.5,10,6], [2,0.75,10,5], [2,1,10,9], [3,0,10,8], [3,0.25,10,7], [3,0.5,10,8], [3,0.75,10,9], [3,1,10,6], [4,0,10,5], [4,0.25,10,6], [4,0.5,10,8], [4,0.75,10,8], [4,1,10,9], [5,0,10,6], [5,0.25,10,6], [5,0.5,10,7], [5,0.75,10,8], [5,1,10,9], [6,0,10,2], [6,0.25,10,3], [6,0.5,10,7], [6,0.75,10,4], [6,1,10,5], [7,0,10,6], [7,0.25,10,9], [7,0.5,10,8], [7,0.75,10,8], [7,1,10,8], [8,0,10,5], [8,0.25,10,6], [8,0.5,10,8], [8,0.75,10,8], [8,1,10,7], [9,0,10,4], [9,0.25,10,6], [9,0.5,10,5], [9,0.75,10,6], [9,1,10,7], [10,0,10,6], [10,0.25,10,8], [10,0.5,10,5], [10,0.75,10,8], [10,1,10,10], [11,0,10,4], [11,0.25,10,4], [11,0.5,10,5], [11,0.75,10,5], [11,1,10,9]];
