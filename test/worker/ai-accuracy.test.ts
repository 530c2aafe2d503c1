/**
 * The AI's accuracy as a condition key (issue #58, element 1): a condition with `aiAccuracy` gets a
 * main set on which the participant's pinned AI is right on exactly that share of the cases, drawn
 * from every main pool with the outcomes as near half each as the pools allow (the cells
 * `cellsToDraw` asks for, checked against the AI's prediction of every pool case); a pool that
 * cannot give it refuses the start with the numbers and stores no set and no start; a condition without the
 * key draws one pool as before; the trials export and the measures carry the AI's accuracy.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { cellsToDraw, countCells, type CorrectnessCells } from '../../worker/ml/correctness';
import { errorBodySchema } from '../../worker/schemas/api';
import { aiExplanationResponseSchema, explanationResponseSchema } from '../../worker/schemas/main-experiment';
import { conditionSchema, studyConfig, studyConfigSchema } from '../../worker/schemas/study';
import { describeCondition } from '../../worker/services/conditions';
import { adminCookie, api, postJson } from '../helpers/api';
import { consentedParticipant, seedCompasStudy, startedIn } from '../helpers/study-factories';
import { runWithConditions } from '../helpers/study-conditions';

const CONDITIONS = [
  { name: 'ai_as_drawn', shows: 'ai_prediction', aiTiming: 'with_case', share: 1 },
  { name: 'ai_70', shows: 'ai_prediction', aiTiming: 'with_case', aiAccuracy: 0.7, share: 1 },
  { name: 'ai_always', shows: 'explanation', aiTiming: 'with_case', alphaLevels: [1], aiAccuracy: 1, share: 1 },
].map((c) => conditionSchema.parse(c));
runWithConditions(CONDITIONS);

type PoolCase = { case_id: string; ground_truth: number; pool_variant: string };
let cookie: string;
let pool: PoolCase[];
/** The active (and so pinned) AI's prediction of every main-pool case, as an administrator is given it. */
const predicted = new Map<string, number>();

beforeAll(async () => {
  await seedCompasStudy();
  // The synthetic AI is right on every synthetic case: a fifth main pool (this file's own D1) holds
  // pool a's cases with the other outcome, so that the pools hold cases it gets wrong, as real ones do.
  await env.DB.prepare(
    "insert into cases (case_id, dataset_type, pool, pool_variant, case_number, features, ground_truth, source_row, created_at) select replace(case_id, '_a_', '_e_'), dataset_type, pool, 'e', case_number, features, 1 - ground_truth, source_row, created_at from cases where dataset_type = 'compas' and pool = 'main_experiment' and pool_variant = 'a'",
  ).run();
  cookie = await adminCookie();
  pool = (await env.DB.prepare("select case_id, ground_truth, pool_variant from cases where dataset_type = 'compas' and pool = 'main_experiment'").all<PoolCase>()).results;
  for (const c of pool) {
    const body = aiExplanationResponseSchema.parse(await (await api(`/api/experiments/explanations/${c.case_id}`, { headers: { cookie } })).json());
    predicted.set(c.case_id, body.prediction);
  }
});

const cellsOf = (cases: readonly PoolCase[]) => countCells(cases.map((c) => ({ truth: c.ground_truth, aiPrediction: predicted.get(c.case_id)! })));
const setOf = (set: { case_id: string }[]) => set.map((s) => pool.find((c) => c.case_id === s.case_id)!);

describe("the AI's accuracy, a condition key", () => {
  it('is refused unless it gives whole cases, with the nearest shares that do', () => {
    const design = (aiAccuracy: number) =>
      studyConfigSchema.safeParse({ ...studyConfig, conditions: [{ name: 'x', shows: 'ai_prediction', aiTiming: 'after_initial', aiAccuracy, share: 1 }] });
    const refused = design(0.73);
    expect(refused.success).toBe(false);
    expect(refused.error!.issues.map((i) => i.message)).toContain(
      'condition x: aiAccuracy 0.73 × mainExperiment.numCases 50 = 36.5 cases; choose a share that gives whole cases (a multiple of 0.02, e.g. 0.72 or 0.74)',
    );
    expect(design(0.72).success).toBe(true);
    // The codebook says the share as written (0.58 × 100 is 57.99999999999999 in floating point).
    expect(describeCondition(conditionSchema.parse({ name: 'x', shows: 'ai_prediction', aiTiming: 'after_initial', aiAccuracy: 0.58, share: 1 }))).toBe(
      "the AI's prediction alone, after the initial judgement; the AI right on 58 % of the main cases",
    );
    expect(conditionSchema.safeParse({ name: 'x', shows: 'ai_prediction', aiTiming: 'after_initial', aiAccuracy: 0, share: 1 }).success).toBe(false);
    expect(conditionSchema.safeParse({ name: 'x', shows: 'ai_prediction', aiTiming: 'after_initial', aiAccuracy: 1.2, share: 1 }).success).toBe(false);
  });

  it.each([
    ['ai_70', 35],
    ['ai_always', 50],
  ] as const)('%s: the pinned AI is right on exactly %i of the 50 cases, drawn from the cells the rule asks of every main pool', async (name, right) => {
    const p = await startedIn(name);
    const set = setOf(p.set);
    expect(set).toHaveLength(50);
    expect(new Set(set.map((c) => c.case_id)).size).toBe(50);
    expect(cellsOf(set)).toEqual(cellsToDraw(cellsOf(pool), 50, right));
    expect(set.filter((c) => predicted.get(c.case_id) === c.ground_truth)).toHaveLength(right);
    // What the participant is shown is that AI: every serve's prediction is the one counted above.
    for (const c of set.slice(0, 5)) {
      const shown = explanationResponseSchema.parse(await (await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: c.case_id })).json());
      expect(shown.prediction).toBe(predicted.get(c.case_id));
    }
  });

  it('leaves a condition without the key as before: one main pool, half of each outcome', async () => {
    const set = setOf((await startedIn('ai_as_drawn')).set);
    expect(new Set(set.map((c) => c.pool_variant)).size).toBe(1);
    expect(set.filter((c) => c.ground_truth === 1)).toHaveLength(25);
  });

  it("puts each trial's AI correctness and the participant's AI accuracy in the exports", async () => {
    const p = await startedIn('ai_70');
    const [first] = setOf(p.set);
    expect((await postJson('/api/human-aligned-explanation', { session_id: p.id, case_id: first!.case_id })).status).toBe(200);
    const stored = await postJson('/api/experiments/main/integrated-response', {
      session_id: p.id,
      case_id: first!.case_id,
      final_prediction: 1,
      final_confidence: 4,
      final_response_time_ms: 2000,
      trust: 4,
      total_task_time_ms: 9000,
    });
    expect(stored.status, await stored.clone().text()).toBe(201);
    const csv = await (await api(`/api/enhanced-export/trials?format=csv&user_name=${p.id}`, { headers: { cookie } })).text();
    const [header, row] = csv.trim().split('\n').map((line: string) => line.split(','));
    const right = predicted.get(first!.case_id) === first!.ground_truth ? '1' : '0';
    expect(row![header!.indexOf('ai_correct')]).toBe(right);
    const people = await (await api(`/api/enhanced-export/reliance-participants?format=csv&include_synthetic=true&user_name=${p.id}`, { headers: { cookie } })).text();
    const [h, r] = people.trim().split('\n').map((line: string) => line.split(','));
    expect(r![h!.indexOf('ai_accuracy')]).toBe(right);
    expect(r![h!.indexOf('ai_accuracy_trials')]).toBe('1');
  });

  it('refuses a start the pools cannot give, with the numbers, and stores no set and no start', async () => {
    // Leave only 10 main-pool cases the AI gets wrong: 0.7 of 50 needs 15.
    const wrong = pool.filter((c) => predicted.get(c.case_id) !== c.ground_truth).slice(10);
    const kept = await env.DB.prepare('select * from cases where case_id in (select value from json_each(?))').bind(JSON.stringify(wrong.map((c) => c.case_id))).all();
    await env.DB.prepare('delete from cases where case_id in (select value from json_each(?))').bind(JSON.stringify(wrong.map((c) => c.case_id))).run();
    try {
      const available: CorrectnessCells = cellsOf(pool.filter((c) => !wrong.includes(c)));
      const p = await consentedParticipant('compas');
      await env.DB.prepare("update sessions set condition = 'ai_70' where session_id = ?").bind(p.id).run();
      const res = await postJson('/api/experiments/main/start', { session_id: p.id, debug: true });
      expect(res.status).toBe(503);
      const body = errorBodySchema.parse(await res.json());
      expect(body.code).toBe('main_pool_unavailable');
      const rightThere = available.positiveRight + available.negativeRight;
      expect(body.detail).toBe(
        `The main-experiment cases cannot give condition ai_70's AI accuracy: the AI is right on ${rightThere} and wrong on 10 of the ${rightThere + 10} main-pool cases a participant can get, but 35 right and 15 wrong are needed (35 of 50)`,
      );
      expect(await env.DB.prepare("select count(*) as n from case_set_items where session_id = ? and phase = 'main'").bind(p.id).first('n')).toBe(0);
      expect(await env.DB.prepare('select main_started_at from sessions where session_id = ?').bind(p.id).first('main_started_at')).toBeNull();
    } finally {
      for (const row of kept.results as Record<string, unknown>[]) {
        const columns = Object.keys(row);
        await env.DB.prepare(`insert into cases (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`).bind(...columns.map((k) => row[k])).run();
      }
    }
  });
});
