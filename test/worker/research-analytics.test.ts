import { env } from 'cloudflare:workers';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import adminEn from '../../web/features/admin/i18n/en.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import { LEAN_FORMULA, MEASURES } from '../../worker/schemas/measures';
import { adminStatsSchema, experimentStatisticsSchema, usersResponseSchema } from '../../worker/schemas/admin';
import type { AnsweredQuestion } from '../../worker/schemas/post-survey';
import { drawUnderstandingQuestions } from '../../worker/schemas/understanding-test';
import { adminCookie, api, postJson } from '../helpers/api';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { consentedParticipant, newParticipantId, participantDoneWithMain, seedCompasStudy } from '../helpers/study-factories';

type Interval = { mean: number | null; ci_low: number | null; ci_high: number | null; participants: number; trials: number; pooled: number | null };
type Group = { trials: number; participants: number; metrics: Record<string, Interval>; calibration: { confidence: number; trials: number; accuracy: number | null }[] };
type Report = {
  definitions: { metrics: { id: string; formula: string; source: string; range: [number, number] }[] };
  participants_included: number;
  participants_excluded: number;
  overall: Group | null;
  trials: number;
  by_alpha: (Group & { alignment_alpha: number })[];
  by_dataset: (Group & { dataset_type: string })[];
  participants: { user_id: number; user_name: string; trials: number; included: boolean; quality_flags: string[]; metrics: Record<string, number | null> }[];
};
/** A trial with the alpha of the explanation shown (null for an AI-only fallback). */
type Trial = { participant_id: number; alignment_alpha: number | null; kind: string; i: number | null; a: number | null; f: number; y: number; ci: number | null; cf: number; p: number | null; shown: number | null; v: number | null; q: number | null; lim: number | null; tout: number };

let cookie: string;
const asAdmin = (path: string, init: RequestInit = {}) => api(path, { ...init, headers: { Cookie: cookie } });
const rows = async <T = Record<string, unknown>>(sql: string, ...binds: unknown[]) => (await env.DB.prepare(sql).bind(...binds).all<T>()).results;
// The participants here are registered (synthetic), so the figures are asked for with them.
const report = async (excludeFlagged = false, includeSynthetic = true) => {
  const res = await asAdmin(`/api/admin/analytics/reliance?exclude_flagged=${excludeFlagged}&include_synthetic=${includeSynthetic}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Report;
};
const register = async (name: string, main: string | null) => {
  expect((await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&accuracy_rate=0.7`, { method: 'POST' })).status).toBe(200);
  if (main) expect((await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&${main}`, { method: 'POST' })).status).toBe(200);
  const [p] = await rows<{ id: number }>('select id from participants where participant_code = ?', name);
  return { name, id: p!.id };
};
/** A post-survey with varied, consistent answers (BFI pairs mirror each other), or with `override`. */
const surveyOf = (override: (q: AnsweredQuestion) => number | undefined = () => undefined) =>
  completePostSurvey((q) => {
    if (q.kind !== 'scale') return undefined;
    const own = override(q);
    if (own !== undefined) return own;
    const n = Number(q.name.replace(/\D/g, '') || 1);
    if (q.name.startsWith('bfi_')) return q.reverse ? 8 - (2 + (n % 5)) : 2 + (n % 5);
    return q.min + (n % (q.max - q.min + 1));
  });
/** A participant (a real 8-character ID) who reached the post-survey and submitted `answers`. */
const surveyed = async (answers: ReturnType<typeof completePostSurvey>) => {
  const p = await participantDoneWithMain();
  const res = await postJson('/api/post-survey', { session_id: p.id, ...answers });
  expect(res.status, await res.text()).toBe(201);
  return { name: p.id, id: p.userId };
};

// Each metric computed trial by trial, independently of the Worker's SQL.
const share = (ts: Trial[], den: (t: Trial) => boolean, num: (t: Trial) => boolean) => {
  const d = ts.filter(den);
  return d.length ? d.filter(num).length / d.length : null;
};
/** A judgement on the probability scale of the positive class: confidence 1…5 as 50 % … 100 % for the class chosen. */
const placed = (p: number, c: number) => (p === 1 ? 0.5 + (c - 1) * 0.125 : 0.5 - (c - 1) * 0.125);
/** The AI's advice there: its probability where the panel showed it, else its class at certainty. */
const advice = (t: Trial) => (t.shown === 1 && t.p !== null ? t.p : t.a!);
/** Trials with the AI shown after an initial judgement that differed from it. */
const differs = (t: Trial) => t.i !== null && t.a !== null && t.i !== t.a;
/** Trials with the AI shown after an initial judgement placed elsewhere than its advice (weight of advice). */
const adviceElsewhere = (t: Trial) => t.i !== null && t.a !== null && advice(t) !== placed(t.i, t.ci!);
const byHand: Record<string, (ts: Trial[]) => number | null> = {
  agreement: (ts) => share(ts, (t) => t.a !== null, (t) => t.f === t.a),
  switch: (ts) => share(ts, differs, (t) => t.f === t.a),
  rair: (ts) => share(ts, (t) => differs(t) && t.i !== t.y, (t) => t.f === t.a),
  rsr: (ts) => share(ts, (t) => differs(t) && t.i === t.y, (t) => t.f === t.i),
  // Symmetric: both among trials where the initial judgement and the AI disagree.
  over_reliance: (ts) => share(ts, (t) => differs(t) && t.a !== t.y, (t) => t.f === t.a),
  under_reliance: (ts) => share(ts, (t) => differs(t) && t.a === t.y, (t) => t.f === t.i),
  weight_of_advice: (ts) => {
    const defined = ts.filter(adviceElsewhere);
    if (!defined.length) return null;
    const woa = defined.map((t) => Math.min(1, Math.max(0, (placed(t.f, t.cf) - placed(t.i!, t.ci!)) / (advice(t) - placed(t.i!, t.ci!)))));
    return woa.reduce((x, y) => x + y, 0) / woa.length;
  },
  initial_accuracy: (ts) => share(ts, (t) => t.i !== null, (t) => t.i === t.y),
  final_accuracy: (ts) => share(ts, () => true, (t) => t.f === t.y),
  accuracy_gain: (ts) => {
    const w = ts.filter((t) => t.i !== null);
    return w.length ? (w.filter((t) => t.f === t.y).length - w.filter((t) => t.i === t.y).length) / w.length : null;
  },
  confidence_change: (ts) => {
    const w = ts.filter((t) => t.i !== null);
    return w.length ? w.reduce((x, t) => x + t.cf - t.ci!, 0) / w.length : null;
  },
  ai_accuracy: (ts) => share(ts, (t) => t.a !== null, (t) => t.a === t.y),
  feedback_viewing_time: (ts) => {
    const w = ts.filter((t) => t.v !== null);
    return w.length ? w.reduce((x, t) => x + t.v!, 0) / w.length / 1000 : null;
  },
  advice_request_rate: (ts) => share(ts, (t) => t.q !== null, (t) => t.q === 1),
  timeout_rate: (ts) => share(ts, (t) => t.lim !== null, (t) => t.tout === 1),
};

/** The trials each measure is defined on (its n). */
const definedOn: Record<string, (t: Trial) => boolean> = {
  agreement: (t) => t.a !== null,
  switch: differs,
  rair: (t) => differs(t) && t.i !== t.y,
  rsr: (t) => differs(t) && t.i === t.y,
  over_reliance: (t) => differs(t) && t.i === t.y,
  under_reliance: (t) => differs(t) && t.i !== t.y,
  weight_of_advice: adviceElsewhere,
  initial_accuracy: (t) => t.i !== null,
  final_accuracy: () => true,
  accuracy_gain: (t) => t.i !== null,
  confidence_change: (t) => t.i !== null,
  ai_accuracy: (t) => t.a !== null,
  feedback_viewing_time: (t) => t.v !== null,
  advice_request_rate: (t) => t.q !== null,
  timeout_rate: (t) => t.lim !== null,
};

const people: Record<string, { name: string; id: number }> = {};
let trials: Trial[];

beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
  people.a = await register('test_rel_a', 'num_responses=50&accuracy_rate=0.8');
  people.b = await register('test_rel_b', 'num_responses=50&accuracy_rate=0.5');
  people.c = await register('test_rel_c', 'num_responses=30&accuracy_rate=0.65');
  // Every trial at one alpha.
  people.oneAlpha = await register('test_rel_one_alpha', 'num_responses=20&ai_alignment_alpha=0.25');
  // Never disagreed with the AI at first, so switching to it is undefined.
  people.agreeing = await register('test_rel_agreeing', 'num_responses=20');
  await env.DB.prepare('update main_experiment_responses set initial_prediction = ai_prediction where session_id = ?').bind(people.agreeing.name).run();
  // Outcome feedback viewed on some of one participant's trials (a condition with outcomeFeedback), for its viewing time.
  await env.DB.prepare('update main_experiment_responses set feedback_viewing_time_ms = case_number * 137 where session_id = ? and case_number % 3 = 0').bind(people.b.name).run();
  // Advice on request (a condition with adviceOnRequest): asked for on some of one participant's trials, for the request rate.
  await env.DB.prepare('update main_experiment_responses set advice_requested = (case_number % 4 != 0) where session_id = ?').bind(people.b.name).run();
  // A time limit (a condition with timeLimit) on another participant's trials, some of whose steps ran out.
  await env.DB.prepare(
    'update main_experiment_responses set time_limit_ms = 20000, initial_timed_out = (case_number % 5 = 0), final_timed_out = (case_number % 7 = 0), final_step_ms = 1000 * case_number where session_id = ?',
  )
    .bind(people.agreeing.name)
    .run();
  // No main-experiment answers at all.
  people.noMain = await register('test_rel_no_main', null);
  trials = await rows<Trial>(
    `select participant_id, case when explanation_kind = 'ai_only' then null else alignment_alpha end as alignment_alpha, explanation_kind as kind, initial_prediction as i, ai_prediction as a, final_prediction as f, ground_truth as y, initial_confidence as ci, final_confidence as cf,
            ai_probability as p, (coalesce(ai_baseline_shown, 0) = 1 or coalesce(ai_confidence_shown, 0) = 1) as shown, feedback_viewing_time_ms as v, advice_requested as q,
            time_limit_ms as lim, (coalesce(initial_timed_out, 0) = 1 or coalesce(final_timed_out, 0) = 1) as tout
     from main_experiment_responses where completed_at is not null`,
  );
});

describe('reliance metrics', () => {
  it('per participant equal the trial-by-trial computation, including the edge cases', async () => {
    const r = await report();
    expect(r.definitions.metrics.map((m) => m.id)).toEqual(Object.keys(byHand));
    for (const p of r.participants) {
      const own = trials.filter((t) => t.participant_id === p.user_id);
      expect(p.trials).toBe(own.length);
      for (const [id, compute] of Object.entries(byHand)) {
        const expected = compute(own);
        if (expected === null) expect(p.metrics[id], `${p.user_name} ${id}`).toBeNull();
        else expect(p.metrics[id], `${p.user_name} ${id}`).toBeCloseTo(expected, 12);
      }
    }
    const agreeing = r.participants.find((p) => p.user_id === people.agreeing!.id)!;
    // Never disagreed with the AI at first: switching, RAIR, RSR, over- and under-reliance are undefined, not 0. The weight of
    // advice is defined wherever the advice sat elsewhere than the initial judgement: here, at certainty above a less sure one.
    for (const id of ['switch', 'rair', 'rsr', 'over_reliance', 'under_reliance']) expect(agreeing.metrics[id], id).toBeNull();
    expect(agreeing.metrics.agreement).not.toBeNull();
    expect(r.participants.some((p) => p.user_id === people.noMain!.id)).toBe(false);
    expect(r.overall!.participants).toBe(5);
    expect(r.overall!.trials).toBe(trials.length);
    // Every measure names its source.
    for (const m of r.definitions.metrics) expect(m.source.length, m.id).toBeGreaterThan(5);
    expect(r.definitions.metrics.find((m) => m.id === 'switch')!.source).toContain('Yin');
    expect(r.definitions.metrics.find((m) => m.id === 'rair')!.source).toContain('Schemmer');
  });

  it('per alpha: the mean of the participants’ own values with a bootstrap interval inside the measure’s range, its n, and the pooled value', async () => {
    const r = await report();
    // The registration tools fit each participant's model first, so their cases show the alpha mix.
    expect(trials.every((t) => t.kind === 'human_aligned')).toBe(true);
    const alphas = [...new Set(trials.map((t) => t.alignment_alpha))].sort();
    expect(r.by_alpha.map((g) => g.alignment_alpha)).toEqual(alphas);
    for (const g of r.by_alpha) {
      const at = trials.filter((t) => t.alignment_alpha === g.alignment_alpha);
      const ids = [...new Set(at.map((t) => t.participant_id))];
      // The one-alpha participant counts only at their alpha.
      expect(ids.includes(people.oneAlpha!.id)).toBe(g.alignment_alpha === 0.25);
      expect(g.participants).toBe(ids.length);
      for (const [id, compute] of Object.entries(byHand)) {
        const values = ids.map((pid) => compute(at.filter((t) => t.participant_id === pid))).filter((v): v is number => v !== null);
        const m = g.metrics[id]!;
        const pooled = compute(at);
        if (pooled === null) expect(m.pooled).toBeNull();
        else expect(m.pooled).toBeCloseTo(pooled, 12);
        expect(m.participants).toBe(values.length);
        expect(m.trials, `${g.alignment_alpha} ${id} n`).toBe(at.filter(definedOn[id]!).length);
        if (values.length === 0) continue;
        const mean = values.reduce((x, y) => x + y, 0) / values.length;
        expect(m.mean, `${g.alignment_alpha} ${id}`).toBeCloseTo(mean, 12);
        if (values.length < 2) {
          expect(m.ci_low).toBeNull();
          continue;
        }
        // A percentile bootstrap of the mean: within the values' own span, so within the measure's range.
        const [lo, hi] = r.definitions.metrics.find((d) => d.id === id)!.range;
        expect(m.ci_low!, `${g.alignment_alpha} ${id}`).toBeGreaterThanOrEqual(Math.max(lo, Math.min(...values)) - 1e-12);
        expect(m.ci_high!, `${g.alignment_alpha} ${id}`).toBeLessThanOrEqual(Math.min(hi, Math.max(...values)) + 1e-12);
        expect(m.ci_low!).toBeLessThanOrEqual(m.ci_high!);
      }
    }
  });

  it('calibration: final accuracy at each confidence level', async () => {
    const r = await report();
    for (const level of r.overall!.calibration) {
      const at = trials.filter((t) => t.cf === level.confidence);
      expect(level.trials).toBe(at.length);
      if (at.length) expect(level.accuracy).toBeCloseTo(at.filter((t) => t.f === t.y).length / at.length, 12);
      else expect(level.accuracy).toBeNull();
    }
  });

  it('exports the tab’s own numbers: the participant, alpha and dataset tables, with each formula in the codebook', async () => {
    const r = await report();
    const csv = async (name: string) => {
      const res = await asAdmin(`/api/enhanced-export/${name}?format=csv&include_synthetic=true`);
      expect(res.status).toBe(200);
      return Papa.parse<Record<string, string>>(await res.text(), { header: true, skipEmptyLines: true }).data;
    };
    const num = (cell: string | undefined) => (cell === '' || cell === undefined ? null : Number(cell));
    const participants = await csv('reliance-participants');
    expect(participants.map((p) => Number(p.user_id))).toEqual(r.participants.map((p) => p.user_id));
    for (const [i, p] of r.participants.entries()) for (const id of Object.keys(byHand)) expect(num(participants[i]![id])).toBe(p.metrics[id]);
    const byAlpha = await csv('reliance-by-alpha');
    expect(byAlpha.map((g) => Number(g.alignment_alpha))).toEqual(r.by_alpha.map((g) => g.alignment_alpha));
    for (const [i, g] of r.by_alpha.entries()) {
      for (const id of Object.keys(byHand)) {
        expect(num(byAlpha[i]![`${id}_mean`])).toBe(g.metrics[id]!.mean);
        expect(num(byAlpha[i]![`${id}_ci_low`])).toBe(g.metrics[id]!.ci_low);
        expect(num(byAlpha[i]![`${id}_pooled`])).toBe(g.metrics[id]!.pooled);
      }
    }
    const byDataset = await csv('reliance-by-dataset');
    expect(byDataset.map((g) => g.dataset_type)).toEqual(['compas']);
    const zip = await asAdmin('/api/enhanced-export/all-data?format=csv');
    const { unzipSync, strFromU8 } = await import('fflate');
    const codebook = Papa.parse<Record<string, string>>(strFromU8(unzipSync(new Uint8Array(await zip.arrayBuffer()))['codebook.csv']!), { header: true, skipEmptyLines: true }).data;
    for (const m of r.definitions.metrics) {
      const entry = codebook.find((c) => c.table === 'reliance-participants' && c.column === m.id);
      expect(entry?.meaning, m.id).toContain(m.formula);
    }
  });
});

describe('data-quality flags', () => {
  beforeAll(async () => {
    // A speeder: every pre-experiment answer in 150 ms.
    people.speeder = await register('test_flag_speeder', 'num_responses=10');
    await env.DB.prepare('update pre_experiment_responses set response_time_ms = 150 where session_id = ?').bind(people.speeder.name).run();
    // The same prediction for every pre-experiment case.
    people.runner = await register('test_flag_runner', null);
    await env.DB.prepare('update pre_experiment_responses set prediction = 1 where session_id = ?').bind(people.runner.name).run();
    // One answer to every Big Five item.
    people.straight = await surveyed(surveyOf((q) => (q.name.startsWith('bfi_') ? 4 : undefined)));
    // Agrees strongly with both items of each BFI pair.
    people.inconsistent = await surveyed(surveyOf((q) => (q.name.startsWith('bfi_') ? ('reverse' in q && q.reverse ? 6 : 7) : undefined)));
    // A careful participant with a varied, consistent survey.
    people.careful = await surveyed(surveyOf());
    // Came back many times, and failed the understanding test repeatedly.
    const real = async () => {
      const p = await consentedParticipant();
      return { name: p.id, id: p.userId };
    };
    people.returner = await real();
    for (let i = 0; i < 10; i++) expect((await postJson('/api/experiments/resume', { participant_name: people.returner.name })).status).toBe(200);
    people.failer = await real();
    for (let i = 0; i < 3; i++) {
      const drawn = drawUnderstandingQuestions();
      const answers = drawn.map((q, k) => ({ question_id: q.id, answer: k === 0 ? q.options.find((o) => o !== q.correct)! : q.correct }));
      expect((await postJson('/api/experiments/main/understanding-test', { session_id: people.failer.name, attempt_id: crypto.randomUUID(), answers })).status).toBe(201);
    }
  });

  const flagsOf = async (flag: string) => {
    const res = await asAdmin(`/api/admin/users?limit=1000&flag=${flag}`);
    expect(res.status).toBe(200);
    return usersResponseSchema.parse(await res.json()).users.map((u) => u.username).sort();
  };

  it('flags the crafted participants, each for its own reason, and filters the users table by flag', async () => {
    expect(await flagsOf('speeder')).toEqual([people.speeder!.name]);
    expect(await flagsOf('long_run')).toEqual([people.runner!.name]);
    expect(await flagsOf('straightliner')).toEqual([people.straight!.name]);
    expect(await flagsOf('bfi_inconsistent')).toEqual([people.inconsistent!.name]);
    expect(await flagsOf('many_resumes')).toEqual([people.returner!.name]);
    expect(await flagsOf('failed_understanding_tests')).toEqual([people.failer!.name]);
    const any = await flagsOf('any');
    expect(any).not.toContain(people.careful!.name);
    expect(any).toHaveLength(6);
    const all = usersResponseSchema.parse(await (await asAdmin('/api/admin/users?limit=1000')).json()).users;
    expect(all.find((u) => u.username === people.speeder!.name)!.quality_flags).toEqual(['speeder']);
    expect(all.find((u) => u.username === people.careful!.name)!.quality_flags).toEqual([]);
    expect((await asAdmin('/api/admin/users?flag=sleepy')).status).toBe(400);
  });

  it('leaves flagged participants out of the group figures on request, never out of the data', async () => {
    const all = await report(false);
    const clean = await report(true);
    const speeder = clean.participants.find((p) => p.user_id === people.speeder!.id)!;
    expect(speeder.included).toBe(false);
    expect(speeder.quality_flags).toEqual(['speeder']);
    expect(clean.participants_excluded).toBe(1);
    expect(clean.overall!.participants).toBe(all.overall!.participants - 1);
    const speederTrials = trials.length;
    expect(clean.overall!.trials).toBe(speederTrials);
    expect(await rows('select id from participants where id = ?', people.speeder!.id)).toHaveLength(1);
    // The participants export carries the flags.
    const zip = await asAdmin('/api/enhanced-export/all-data?format=csv');
    const { unzipSync, strFromU8 } = await import('fflate');
    const exported = Papa.parse<Record<string, string>>(strFromU8(unzipSync(new Uint8Array(await zip.arrayBuffer()))['participants.csv']!), { header: true, skipEmptyLines: true }).data;
    expect(exported.find((p) => p.user_name === people.speeder!.name)!.quality_flags).toBe('speeder');
    expect(exported.find((p) => p.user_name === people.careful!.name)!.quality_flags).toBe('');
  });

  it('recomputes a participant’s cached pre-experiment signals as soon as their answers change', async () => {
    await report();
    const [cached] = await rows<{ pre_median_response_ms: number }>('select pre_median_response_ms from participant_signals where participant_id = ?', people.a!.id);
    expect(cached!.pre_median_response_ms).toBeGreaterThan(150);
    await env.DB.prepare('update pre_experiment_responses set response_time_ms = 120 where participant_id = ?').bind(people.a!.id).run();
    expect(await rows('select * from participant_signals where participant_id = ?', people.a!.id)).toEqual([]);
    expect(await flagsOf('speeder')).toEqual([people.a!.name, people.speeder!.name].sort());
    const [fresh] = await rows<{ pre_median_response_ms: number }>('select pre_median_response_ms from participant_signals where participant_id = ?', people.a!.id);
    expect(fresh!.pre_median_response_ms).toBe(120);
  });
});

describe('what the figures count', () => {
  const asPerson = async (registered: { name: string; id: number }) => {
    // A registered participant's trials under a person's 8-character ID and origin.
    const code = newParticipantId();
    await env.DB.prepare("update participants set participant_code = ?, origin = 'participant' where id = ?").bind(code, registered.id).run();
    return { name: code, id: registered.id };
  };
  const usable = 'completed_at is not null and initial_prediction is not null and final_prediction is not null and ai_prediction is not null';

  it('groups AI-only fallbacks apart from the alpha they were scheduled at, in the reliance tab, the dashboard and the statistics', async () => {
    const p = await register('test_rel_fallback', 'num_responses=20&ai_alignment_alpha=0.75');
    await env.DB.prepare("update main_experiment_responses set explanation_kind = 'human_aligned' where session_id = ?").bind(p.name).run();
    await env.DB.prepare(
      "update main_experiment_responses set explanation_kind = 'ai_only' where id in (select id from main_experiment_responses where session_id = ? order by id limit 8)",
    )
      .bind(p.name)
      .run();
    const [counts] = await rows<{ fallback: number; aligned075: number }>(
      `select sum(explanation_kind = 'ai_only') as fallback, sum(coalesce(explanation_kind, '') != 'ai_only' and alignment_alpha = 0.75) as aligned075
       from main_experiment_responses where ${usable}`,
    );
    expect(counts!.fallback).toBeGreaterThanOrEqual(8);

    const r = await report();
    const fallback = r.by_alpha.find((g) => (g as { explanation_kind?: string }).explanation_kind === 'ai_only');
    expect(fallback, 'an AI-only group').toBeDefined();
    expect(fallback!.alignment_alpha).toBeNull();
    expect(fallback!.trials).toBe(counts!.fallback);
    expect(r.by_alpha.at(-1)).toBe(fallback);
    expect(r.by_alpha.find((g) => g.alignment_alpha === 0.75)!.trials).toBe(counts!.aligned075);

    const stats = adminStatsSchema.parse(await (await asAdmin('/api/admin/stats?include_synthetic=true')).json());
    expect(stats.by_alpha.find((g) => g.explanation_kind === 'ai_only')).toMatchObject({ alignment_alpha: null, cases: counts!.fallback });
    const statistics = experimentStatisticsSchema.parse(await (await asAdmin('/api/experiments/statistics?include_synthetic=true')).json());
    expect(statistics.main_experiment.alignment_distribution.ai_only).toBe(counts!.fallback);

    const csv = await (await asAdmin('/api/enhanced-export/reliance-by-alpha?format=csv&include_synthetic=true')).text();
    const groups = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true }).data;
    expect(groups.at(-1)).toMatchObject({ explanation_kind: 'ai_only', alignment_alpha: '', trials: String(counts!.fallback) });
  });

  it('leaves synthetic participants and bypassed sessions out by default, counts them on request, and records the bypass', async () => {
    const person = await asPerson(await register('test_rel_person', 'num_responses=20'));
    const bypassed = await consentedParticipant();
    expect((await api(`/api/experiments/main/start?session_id=${bypassed.id}&debug=true`, { method: 'POST' })).status).toBe(201);
    const [recorded] = await rows<{ main_start_bypass: string | null; main_started_at: string | null }>(
      'select main_start_bypass, main_started_at from sessions where session_id = ?',
      bypassed.id,
    );
    expect(recorded!.main_start_bypass).toBe('debug');
    expect(recorded!.main_started_at).toBeTruthy();
    // The registration tools start the main experiment the ordinary way.
    const [registered] = await rows<{ main_start_bypass: string | null; main_started_at: string | null }>(
      "select main_start_bypass, main_started_at from sessions where session_id = 'test_rel_a'",
    );
    expect(registered).toMatchObject({ main_start_bypass: null });
    expect(registered!.main_started_at).toBeTruthy();
    // A bypassed session with trials: the person's own, marked as started through the tutorial.
    const tutorial = await asPerson(await register('test_rel_tutorial', 'num_responses=10'));
    await env.DB.prepare("update sessions set main_start_bypass = 'tutorial' where participant_id = ?").bind(tutorial.id).run();

    const byDefault = await report(false, false);
    expect(byDefault.participants.map((p) => p.user_id)).toEqual([person.id]);
    expect(byDefault.overall!.trials).toBe(20);
    const everyone = await report(false, true);
    expect(everyone.participants.map((p) => p.user_id)).toEqual(expect.arrayContaining([person.id, tutorial.id, people.a!.id]));

    const [population] = await rows<{ counted: number; all: number; sessions: number; started: number }>(
      `select (select count(*) from participants p left join sessions s on s.participant_id = p.id
               where p.origin != 'admin_synthetic' and substr(p.participant_code, 1, 5) != 'test_' and s.main_start_bypass is null) as counted,
              (select count(*) from participants) as "all",
              (select count(*) from sessions s join participants p on p.id = s.participant_id
               where p.origin != 'admin_synthetic' and substr(p.participant_code, 1, 5) != 'test_' and s.main_start_bypass is null) as sessions,
              (select count(*) from sessions s join participants p on p.id = s.participant_id
               where p.origin != 'admin_synthetic' and substr(p.participant_code, 1, 5) != 'test_' and s.main_start_bypass is null and s.main_started_at is not null) as started`,
    );
    const stats = adminStatsSchema.parse(await (await asAdmin('/api/admin/stats')).json());
    expect(stats.include_synthetic).toBe(false);
    expect(stats.total_users).toBe(population!.counted);
    expect(stats.funnel.find((f) => f.step === 'created')!.sessions).toBe(population!.sessions);
    expect(stats.funnel.find((f) => f.step === 'main_started')!.sessions).toBe(population!.started);
    expect(stats.main_experiment_responses).toBe(20);
    const all = adminStatsSchema.parse(await (await asAdmin('/api/admin/stats?include_synthetic=true')).json());
    expect(all.total_users).toBe(population!.all);
    const statistics = experimentStatisticsSchema.parse(await (await asAdmin('/api/experiments/statistics')).json());
    expect(statistics.main_experiment.total_responses).toBe(20);

    // The exports tell them apart.
    const participantsCsv = await (await asAdmin(`/api/enhanced-export/all-data?format=csv&user_name=${bypassed.id}`)).arrayBuffer();
    const { unzipSync, strFromU8 } = await import('fflate');
    const files = unzipSync(new Uint8Array(participantsCsv));
    const [row] = Papa.parse<Record<string, string>>(strFromU8(files['participants.csv']!), { header: true, skipEmptyLines: true }).data;
    expect(row).toMatchObject({ main_start_bypass: 'debug' });
    expect(row!.main_started_at).not.toBe('');
    const codebook = strFromU8(files['codebook.csv']!);
    expect(codebook).toContain('participants,main_start_bypass');
    expect(codebook).toContain('main-experiment,main_start_bypass');
  });
});

describe('the formulas the reliance tab shows', () => {
  it('are the definitions themselves in English, and translated for every metric in Japanese', () => {
    const formulas = { ...MEASURES.map((m) => ({ [m.id]: `${m.formula} (${m.units})` })).reduce((a, b) => ({ ...a, ...b }), {}), bars_lean_with_ai: LEAN_FORMULA };
    expect(adminEn.dashboard.reliance.formulas).toEqual(formulas);
    expect(Object.keys(adminJa.dashboard.reliance.formulas).sort()).toEqual(Object.keys(formulas).sort());
  });
});

describe('explanations that lean against the AI', () => {
  it('reports the rate of explanations leaning with the AI per group and exports it per case', async () => {
    const p = await register('test_rel_lean', 'num_responses=20');
    // A stored case whose bars leaned against the AI (the synthetic model's never do here).
    await env.DB.prepare('update main_experiment_responses set shown_leans_with_ai = 0 where id = (select min(id) from main_experiment_responses where session_id = ?)').bind(p.name).run();
    const stored = await rows<{ shown_leans_with_ai: number | null; kind: string; alpha: number | null }>(
      `select shown_leans_with_ai, case when explanation_kind = 'ai_only' then 'ai_only' else 'human_aligned' end as kind,
              case when explanation_kind = 'ai_only' then null else alignment_alpha end as alpha
       from main_experiment_responses where completed_at is not null and initial_prediction is not null and final_prediction is not null`,
    );
    const expected = (r: (typeof stored)[number]) => r.shown_leans_with_ai === 1;
    expect(stored.every((r) => r.shown_leans_with_ai === 0 || r.shown_leans_with_ai === 1)).toBe(true);
    expect(stored.some((r) => r.shown_leans_with_ai === 0)).toBe(true);

    const report = (await (await asAdmin('/api/admin/analytics/reliance?include_synthetic=true')).json()) as {
      definitions: { bars_lean_with_ai: string };
      by_alpha: { explanation_kind: string; alignment_alpha: number | null; bars_lean_with_ai: { trials: number; rate: number | null } }[];
    };
    expect(report.definitions.bars_lean_with_ai).toContain('signed shares');
    for (const g of report.by_alpha) {
      const inGroup = stored.filter((r) => r.kind === g.explanation_kind && r.alpha === g.alignment_alpha);
      expect(g.bars_lean_with_ai.trials).toBe(inGroup.length);
      expect(g.bars_lean_with_ai.rate).toBeCloseTo(inGroup.filter(expected).length / inGroup.length, 12);
    }

    const csv = await (await asAdmin(`/api/enhanced-export/main-experiment?format=csv&user_name=${p.name}`)).text();
    const exported = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true }).data;
    expect(exported).toHaveLength(20);
    for (const row of exported) expect(['true', 'false']).toContain(row.shown_leans_with_ai);
  });
});
