/**
 * The main-experiment case set of a session: 50 cases, half of each label, from one of the
 * dataset's main pools (chosen by the session's seed, so the pools are used about equally and
 * each case gets judged by many participants), never a case of the participant's pre-experiment,
 * in a seeded order, each with its alignment alpha when the session's condition (drawn first)
 * shows explanations. A condition that sets the AI's accuracy (`aiAccuracy`) draws from every
 * main pool instead, so that exactly that share of the set are cases the pinned AI gets right.
 * Drawn once and stored, so it survives resume; two simultaneous starts draw the same rows (the
 * pinned AI is the same for both), and the second insert changes nothing.
 */
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { caseSetItems, cases, sessions } from '../db/schema';
import { AppError } from '../errors';
import { cellOf, cellsToDraw, countCells, rightCasesOf, shortfallOf, type CorrectnessCells } from '../ml/correctness';
import { encodeRow } from '../ml/model';
import { predictedLabel, predictProbability } from '../ml/predict';
import { studyConfig, type Condition, type DatasetType } from '../schemas/study';
import { setsAiAccuracy } from '../schemas/condition-plan';
import { alphaSchedule } from './alignment';
import { poolCases, seededShuffle, seedOf } from './case-sets';
import { alphaLevelsOf } from './conditions';
import { loadPinnedAiModel } from './model-store';

/** D1 binds at most 100 parameters per statement; a main case-set row binds 6. */
const ROWS_PER_INSERT = 16;

export class MainPoolError extends Error {
  override readonly name = 'MainPoolError';
}

/** The pools cannot give a condition's AI accuracy (`aiAccuracy`): the message has the numbers. */
export class AccuracyPoolError extends MainPoolError {}

export async function storedMainCaseSet(db: Db, sessionId: string) {
  const rows = await db
    .select({ position: caseSetItems.position, alpha: caseSetItems.alignmentAlpha, c: cases })
    .from(caseSetItems)
    .innerJoin(cases, eq(cases.caseId, caseSetItems.caseId))
    .where(and(eq(caseSetItems.sessionId, sessionId), eq(caseSetItems.phase, 'main_experiment')))
    .orderBy(asc(caseSetItems.position));
  return rows.map((r) => ({ position: r.position, storedAlpha: r.alpha, row: r.c }));
}

/** One case of the session's main set, by case ID or position (its position and alpha, with the case row), or null. */
export async function mainSetItem(db: Db, sessionId: string, at: { caseId: string } | { position: number }) {
  const r = await db
    .select({ position: caseSetItems.position, alpha: caseSetItems.alignmentAlpha, c: cases })
    .from(caseSetItems)
    .innerJoin(cases, eq(cases.caseId, caseSetItems.caseId))
    .where(
      and(
        eq(caseSetItems.sessionId, sessionId),
        eq(caseSetItems.phase, 'main_experiment'),
        'caseId' in at ? eq(caseSetItems.caseId, at.caseId) : eq(caseSetItems.position, at.position),
      ),
    )
    .get();
  return r ? { position: r.position, storedAlpha: r.alpha, row: r.c } : null;
}

/**
 * The alpha a case of the set is explained with: the one stored with the set (a set drawn before
 * alphas were stored takes the fallback); none when the session's condition shows no explanation.
 */
export const alphaOfItem = (condition: Condition, storedAlpha: number | null): number | null =>
  condition.shows === 'explanation' ? (storedAlpha ?? studyConfig.mainExperiment.fallbackAlpha) : null;

/** Picks half of `size` from each label, seeded; throws when the pool cannot supply them. */
function balancedDraw<T extends { groundTruth: number }>(pool: readonly T[], size: number, seed: number): T[] {
  const half = size / 2;
  const positives = seededShuffle(pool.filter((c) => c.groundTruth === 1), seed).slice(0, half);
  const negatives = seededShuffle(pool.filter((c) => c.groundTruth === 0), seed + 1).slice(0, half);
  if (positives.length < half || negatives.length < half) {
    throw new MainPoolError(`the main pool has ${positives.length} positive and ${negatives.length} negative cases; ${half} of each are needed`);
  }
  return [...positives, ...negatives];
}

type PoolCase = Awaited<ReturnType<typeof poolCases>>[number];

/** The AI's prediction of a case by the model pinned to the session (its callers pin it before the set is drawn). */
async function pinnedPredictions(db: Db, models: R2Bucket, session: { sessionId: string; datasetType: DatasetType }) {
  const ai = await loadPinnedAiModel(db, models, session.sessionId);
  if (!ai) throw new AppError(503, 'ai_model_unavailable', `No AI model for ${session.datasetType}: the AI's accuracy on the main set cannot be set without it`);
  return (c: PoolCase) => predictedLabel(predictProbability(ai.model, encodeRow(ai.model.header, c.features)));
}

/**
 * Draws `size` cases of which exactly `right` are ones the AI predicts correctly (`cellsToDraw`:
 * the outcomes as near half each as the pool allows), seeded; throws with the numbers when the
 * pool cannot give them.
 */
function accuracyDraw(pool: readonly PoolCase[], aiOf: (c: PoolCase) => 0 | 1, size: number, right: number, seed: number): PoolCase[] {
  const byCell: Record<keyof CorrectnessCells, PoolCase[]> = { positiveRight: [], positiveWrong: [], negativeRight: [], negativeWrong: [] };
  const predicted = pool.map((c) => ({ c, truth: c.groundTruth, aiPrediction: aiOf(c) }));
  for (const p of predicted) byCell[cellOf(p.truth, p.aiPrediction)].push(p.c);
  const available = countCells(predicted);
  const take = cellsToDraw(available, size, right);
  if (!take) throw new AccuracyPoolError(shortfallOf(available, size, right));
  return (Object.keys(byCell) as (keyof CorrectnessCells)[]).flatMap((cell, k) => seededShuffle(byCell[cell], seed + k).slice(0, take[cell]));
}

/** How the main experiment was entered: the ordinary start (null) or a bypass of the pre-experiment. */
export type MainStartBypass = 'debug' | 'tutorial' | null;

/**
 * Draws and stores the session's main set on its first start, under the condition already drawn
 * for it (`assignCondition`), and records that start (when, and through which bypass) in the same
 * batch; later calls return the stored set and record nothing.
 */
export async function ensureMainCaseSet(
  db: Db,
  models: R2Bucket,
  session: { sessionId: string; datasetType: DatasetType },
  condition: Condition,
  now: string,
  bypass: MainStartBypass = null,
) {
  const existing = await storedMainCaseSet(db, session.sessionId);
  if (existing.length > 0) return { set: existing, created: false };

  const size = studyConfig.mainExperiment.numCases;
  const seed = seedOf(session.sessionId);
  const [pool, preItems] = await Promise.all([
    poolCases(db, session.datasetType, 'main_experiment'),
    db.select({ caseId: caseSetItems.caseId }).from(caseSetItems).where(and(eq(caseSetItems.sessionId, session.sessionId), eq(caseSetItems.phase, 'pre_experiment'))),
  ]);
  const seenBefore = new Set(preItems.map((p) => p.caseId));
  const fresh = pool.filter((c) => !seenBefore.has(c.caseId));
  const variants = [...new Set(fresh.map((c) => c.poolVariant ?? ''))].sort();
  if (variants.length === 0) throw new MainPoolError(`no main-experiment cases for ${session.datasetType}`);
  const right = setsAiAccuracy(condition) ? rightCasesOf(condition.aiAccuracy, size) : null;
  let drawn: PoolCase[];
  if (right === null) {
    const variant = variants[seed % variants.length]!;
    drawn = balancedDraw(fresh.filter((c) => (c.poolVariant ?? '') === variant), size, seed);
  } else {
    // The AI's accuracy set by the design: a pool of 50 has one accuracy, so the set is drawn from every main pool.
    drawn = accuracyDraw(fresh, await pinnedPredictions(db, models, session), size, right, seed);
  }
  const ordered = seededShuffle(drawn, seed);
  const levels = alphaLevelsOf(condition);
  const alphas = levels ? alphaSchedule(session.sessionId, size, levels)! : null;

  const rows = ordered.map((c, position) => ({
    sessionId: session.sessionId,
    phase: 'main_experiment' as const,
    position,
    caseId: c.caseId,
    alignmentAlpha: alphas ? alphas[position]! : null,
  }));
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) statements.push(db.insert(caseSetItems).values(rows.slice(i, i + ROWS_PER_INSERT)).onConflictDoNothing());
  const [first, ...rest] = statements;
  // A second simultaneous start inserts nothing and finds main_started_at already set.
  const started = db
    .update(sessions)
    .set({ mainStartedAt: now, mainStartBypass: bypass })
    .where(and(eq(sessions.sessionId, session.sessionId), isNull(sessions.mainStartedAt)));
  await db.batch([first!, ...rest, started]);
  return { set: await storedMainCaseSet(db, session.sessionId), created: true };
}
