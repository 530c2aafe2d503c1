/**
 * What the server keeps of a main-experiment case under way (`main_trial_progress`): the initial
 * judgement from the moment the AI is revealed (the revealing request carries it), the
 * explanation's viewing time once the participant moves on, and the final judgement before the
 * per-case questions. Each part is kept once; what a page later says of a kept part must be the
 * same, or it is refused (409), so no judgement is given again after the AI appeared and the
 * stored trial's judgements are the ones kept at the time.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';
import { caseSetItems, mainExperimentResponses, mainTrialProgress, servedExplanations, sessions } from '../db/schema';
import { AppError, conflict, notFound } from '../errors';
import type { CaseInProgress, KeptJudgement, KeptProgress, TrialProgressBody } from '../schemas/main-experiment';
import { adviceWaitMsOf, advisesOnRequest, answerPlan, shapeOf, timeLimitOf } from '../schemas/condition-plan';
import type { Condition } from '../schemas/study';
import { conditionOf } from './conditions';
import { lifecycleColumns, requireWriteAllowed } from '../db/session-lifecycle';

export type TrialProgress = typeof mainTrialProgress.$inferSelect;

/** The initial judgement, the explanation's viewing time and the final judgement a case is kept with, and when its first step opened; absent parts are not yet kept. */
export type ProgressParts = { opened?: true; initial?: KeptJudgement; explanationViewingTimeMs?: number; final?: KeptJudgement };

const judgementOf = (p: number | null, c: number | null, ms: number | null, reasoning: string | null, timedOut: boolean | null, keptAt: string | null): KeptJudgement | null =>
  keptAt === null || p === null || c === null || ms === null ? null : { prediction: p as 0 | 1, confidence: c, response_time_ms: ms, reasoning, timed_out: timedOut === true };

/** What a progress row keeps, as the stored trial compares it. */
export const progressView = (row: TrialProgress): KeptProgress => ({
  case_id: row.caseId,
  initial: judgementOf(row.initialPrediction, row.initialConfidence, row.initialResponseTimeMs, row.initialReasoning, row.initialTimedOut, row.initialKeptAt),
  explanation_viewing_time_ms: row.explanationViewedAt === null ? null : row.explanationViewingTimeMs,
  final: judgementOf(row.finalPrediction, row.finalConfidence, row.finalResponseTimeMs, row.finalReasoning, row.finalTimedOut, row.finalKeptAt),
});

/** When the progress row's times say a case's judgement step opened, by the Worker's clock (what `stepOpenedAt` reads). */
type StepTimes = Pick<TrialProgress, 'openedAt' | 'initialKeptAt' | 'explanationViewedAt'>;

/**
 * When a judgement step of a case opened by the Worker's clock, as a condition's time limit
 * counts it: the first judgement (the initial one, or the one judgement) when the page said the
 * case was on screen; the final one after an initial judgement when the participant moved on from
 * the AI's own step, or, where there is none (no AI, advice on request), when the initial
 * judgement was kept. Null where the Worker did not see it open.
 */
export function stepOpenedAt(condition: Condition, times: StepTimes | null | undefined, step: 'initial' | 'final'): string | null {
  if (!times) return null;
  const plan = answerPlan(shapeOf(condition));
  if (step === 'initial' || !plan.initial) return times.openedAt;
  const aiStep = plan.ai !== 'none' && !advisesOnRequest(condition);
  return aiStep ? times.explanationViewedAt : times.initialKeptAt;
}

/** The page's word that a step ran out before the Worker's clock says it could have: allowed this much for the network between the two clocks. */
export const TIMEOUT_TOLERANCE_MS = 2000;

/**
 * Checks a page's word that a judgement step's time limit ran out (`timed_out`) against the
 * Worker's clock: refused (400) in a condition without a limit, and (409 `timeout_not_reached`)
 * where the Worker saw the step open less than the limit ago. Where it did not see the step open
 * (a checkpoint that never arrived) the page's word stands and the step's time is left unknown.
 */
export function requireTimeoutReached(condition: Condition, caseId: string, step: 'initial' | 'final', openedAt: string | null, now: string) {
  const limit = timeLimitOf(condition);
  if (!limit) {
    throw new AppError(400, 'answer_does_not_fit_condition', [
      { msg: `${condition.name}: ${step}_timed_out says a time limit ran out, and this condition has none`, loc: ['body', `${step}_timed_out`] },
    ]);
  }
  if (openedAt === null) return;
  const spent = Date.parse(now) - Date.parse(openedAt);
  if (spent < limit.ms - TIMEOUT_TOLERANCE_MS) {
    throw conflict(
      'timeout_not_reached',
      `The ${step} judgement of case ${caseId} says its ${limit.ms / 1000} s ran out, but the Worker's clock counts ${(spent / 1000).toFixed(1)} s since the step opened`,
    );
  }
}

/**
 * A case under way as the start call and the checkpoint answer give it: what was kept, whether the
 * AI was served, and the ms of the condition's forced wait left at `now` by the Worker's clock
 * (from the kept initial judgement; null without a wait or before the initial judgement is kept).
 */
export function inProgressView(row: TrialProgress, condition: Condition, served: boolean, now: Date): CaseInProgress {
  const wait = adviceWaitMsOf(condition);
  const keptAt = row.initialKeptAt === null ? null : Date.parse(row.initialKeptAt);
  return {
    ...progressView(row),
    advice_served: served,
    advice_wait_left_ms: wait === 0 || keptAt === null ? null : Math.max(0, keptAt + wait - now.getTime()),
    step_time_left_ms: stepTimeLeftMs(row, condition, now),
  };
}

/** Ms of the time limit left for the step a case is at, by the Worker's clock; null without a limit, past the last judgement, or where the step's opening was not seen. */
function stepTimeLeftMs(row: TrialProgress, condition: Condition, now: Date): number | null {
  const limit = timeLimitOf(condition);
  if (!limit || row.finalKeptAt !== null) return null;
  const step = answerPlan(shapeOf(condition)).initial && row.initialKeptAt === null ? 'initial' : 'final';
  const openedAt = stepOpenedAt(condition, row, step);
  return openedAt === null ? null : Math.max(0, Date.parse(openedAt) + limit.ms - now.getTime());
}

/**
 * Refuses a first serve of a main case before the condition's forced wait has run from the kept
 * initial judgement, by the Worker's clock (409 `advice_not_yet`; the page counts the wait down and
 * asks again).
 */
export function requireWaitOver(condition: Condition, caseId: string, initialKeptAt: string, now: string) {
  const left = Date.parse(initialKeptAt) + adviceWaitMsOf(condition) - Date.parse(now);
  if (left > 0) {
    throw conflict(
      'advice_not_yet',
      `The AI's advice on case ${caseId} is given ${adviceWaitMsOf(condition) / 1000} s after the initial judgement (condition ${condition.name}); ${(left / 1000).toFixed(1)} s are left`,
    );
  }
}

/** Whether a condition asks for an initial judgement before it shows the AI (the judgement the reveal carries). */
export const initialBeforeAi = (condition: Condition) => {
  const plan = answerPlan(shapeOf(condition));
  return plan.initial && plan.ai !== 'none';
};

/** The fields of `given` that say something other than the kept judgement (`prefix`: `initial` or `final`). */
export function judgementDiffers(prefix: 'initial' | 'final', given: Partial<KeptJudgement>, kept: KeptJudgement): string[] {
  const differing: string[] = [];
  for (const key of ['prediction', 'confidence', 'response_time_ms', 'reasoning', 'timed_out'] as const) {
    const value = given[key];
    if (value === undefined) continue;
    const same = key === 'reasoning' ? (value || null) === (kept.reasoning || null) : value === kept[key];
    if (!same) differing.push(`${prefix}_${key}`);
  }
  return differing;
}

/** 409 naming each field of a kept step the page now says otherwise (nothing is changed). */
export const keptDiffers = (caseId: string, fields: string[]) =>
  new AppError(
    409,
    'judgement_already_given',
    fields.map((field) => ({ msg: `${field} differs from what was already given for case ${caseId}; a judgement is given once`, loc: ['body', field] })),
  );

/** A kept part stays as it was first kept: the new value only where the part's time is still empty. */
const firstWins = (column: SQLiteColumn, keptAt: SQLiteColumn): SQL => sql`case when ${keptAt} is null then excluded.${sql.identifier(column.name)} else ${column} end`;

/**
 * Keeps the parts given for a case (each one only if it was not kept before) and returns the row
 * as it now stands, so the caller can tell whether what it gave is what is kept.
 */
export async function keepProgress(db: Db, sessionId: string, caseId: string, parts: ProgressParts, now: string): Promise<TrialProgress> {
  const t = mainTrialProgress;
  const { initial, final } = parts;
  const viewed = parts.explanationViewingTimeMs;
  const set: Partial<Record<keyof TrialProgress, SQL>> = { updatedAt: sql`excluded.updated_at` };
  if (parts.opened) Object.assign(set, { openedAt: sql`coalesce(${t.openedAt}, excluded.opened_at)` });
  if (initial) {
    Object.assign(set, {
      initialPrediction: firstWins(t.initialPrediction, t.initialKeptAt),
      initialConfidence: firstWins(t.initialConfidence, t.initialKeptAt),
      initialResponseTimeMs: firstWins(t.initialResponseTimeMs, t.initialKeptAt),
      initialReasoning: firstWins(t.initialReasoning, t.initialKeptAt),
      initialTimedOut: firstWins(t.initialTimedOut, t.initialKeptAt),
      initialKeptAt: sql`coalesce(${t.initialKeptAt}, excluded.initial_kept_at)`,
    });
  }
  if (viewed !== undefined) {
    Object.assign(set, {
      explanationViewingTimeMs: firstWins(t.explanationViewingTimeMs, t.explanationViewedAt),
      explanationViewedAt: sql`coalesce(${t.explanationViewedAt}, excluded.explanation_viewed_at)`,
    });
  }
  if (final) {
    Object.assign(set, {
      finalPrediction: firstWins(t.finalPrediction, t.finalKeptAt),
      finalConfidence: firstWins(t.finalConfidence, t.finalKeptAt),
      finalResponseTimeMs: firstWins(t.finalResponseTimeMs, t.finalKeptAt),
      finalReasoning: firstWins(t.finalReasoning, t.finalKeptAt),
      finalTimedOut: firstWins(t.finalTimedOut, t.finalKeptAt),
      finalKeptAt: sql`coalesce(${t.finalKeptAt}, excluded.final_kept_at)`,
    });
  }
  const [row] = await db
    .insert(t)
    .values({
      sessionId,
      caseId,
      initialPrediction: initial?.prediction ?? null,
      initialConfidence: initial?.confidence ?? null,
      initialResponseTimeMs: initial?.response_time_ms ?? null,
      initialReasoning: initial?.reasoning || null,
      initialTimedOut: initial ? initial.timed_out : null,
      initialKeptAt: initial ? now : null,
      explanationViewingTimeMs: viewed ?? null,
      explanationViewedAt: viewed === undefined ? null : now,
      finalPrediction: final?.prediction ?? null,
      finalConfidence: final?.confidence ?? null,
      finalResponseTimeMs: final?.response_time_ms ?? null,
      finalReasoning: final?.reasoning || null,
      finalTimedOut: final ? final.timed_out : null,
      finalKeptAt: final ? now : null,
      openedAt: parts.opened ? now : null,
      updatedAt: now,
    })
    .onConflictDoUpdate({ target: [t.sessionId, t.caseId], set })
    .returning();
  return row!;
}

/**
 * Keeps the initial judgement a revealing request carries, before anything of the AI is shown: a
 * condition that asks for one first must have it kept (carried now, or kept by an earlier reveal),
 * and a carried one must be the kept one.
 */
export async function keepInitialAtReveal(
  db: Db,
  input: { sessionId: string; caseId: string; condition: Condition; progress: TrialProgress | null; carried: KeptJudgement | null; now: string },
): Promise<string | null> {
  if (!initialBeforeAi(input.condition)) return null;
  const kept = input.progress ? progressView(input.progress).initial : null;
  if (!kept && !input.carried) {
    throw conflict('initial_judgement_required', `Case ${input.caseId} asks for the participant's initial judgement before the AI: send it with the request that reveals the AI`);
  }
  if (!kept && input.carried!.timed_out) requireTimeoutReached(input.condition, input.caseId, 'initial', stepOpenedAt(input.condition, input.progress, 'initial'), input.now);
  const row = kept ? input.progress! : await keepProgress(db, input.sessionId, input.caseId, { initial: input.carried! }, input.now);
  const differing = input.carried ? judgementDiffers('initial', input.carried, progressView(row).initial!) : [];
  if (differing.length > 0) throw keptDiffers(input.caseId, differing);
  return row.initialKeptAt;
}

/** A checkpoint's parts as kept judgements. */
function partsOf(body: TrialProgressBody): ProgressParts {
  switch (body.step) {
    case 'opened':
      return { opened: true };
    case 'initial':
      return {
        initial: {
          prediction: body.initial_prediction,
          confidence: body.initial_confidence,
          response_time_ms: body.initial_response_time_ms,
          reasoning: body.initial_reasoning || null,
          timed_out: body.initial_timed_out ?? false,
        },
      };
    case 'explanation_viewed':
      return { explanationViewingTimeMs: body.explanation_viewing_time_ms };
    case 'final':
      return {
        final: {
          prediction: body.final_prediction,
          confidence: body.final_confidence,
          response_time_ms: body.final_response_time_ms,
          reasoning: body.final_reasoning || null,
          timed_out: body.final_timed_out ?? false,
        },
        ...(body.explanation_viewing_time_ms === null || body.explanation_viewing_time_ms === undefined ? {} : { explanationViewingTimeMs: body.explanation_viewing_time_ms }),
      };
  }
}

/**
 * Keeps one step of a case under way (`POST /api/experiments/main/trial-progress`). 404 unknown
 * session; 409 when the session takes no answer, the case is already stored, the AI was not yet
 * served where the step follows it, or the step was kept differently; 400 when the case is not in
 * the session's main set or the condition has no such step.
 */
export async function keepTrialStep(db: Db, body: TrialProgressBody, now: Date): Promise<CaseInProgress> {
  const { session_id: sessionId, case_id: caseId } = body;
  const [[session], [inSet], [stored], [progress], [served]] = await db.batch([
    db.select({ sessionId: sessions.sessionId, condition: sessions.condition, ...lifecycleColumns('sessions') }).from(sessions).where(eq(sessions.sessionId, sessionId)),
    db
      .select({ position: caseSetItems.position })
      .from(caseSetItems)
      .where(and(eq(caseSetItems.sessionId, sessionId), eq(caseSetItems.phase, 'main_experiment'), eq(caseSetItems.caseId, caseId))),
    db
      .select({ id: mainExperimentResponses.id })
      .from(mainExperimentResponses)
      .where(and(eq(mainExperimentResponses.sessionId, sessionId), eq(mainExperimentResponses.caseId, caseId))),
    db
      .select()
      .from(mainTrialProgress)
      .where(and(eq(mainTrialProgress.sessionId, sessionId), eq(mainTrialProgress.caseId, caseId))),
    db
      .select({ id: servedExplanations.id })
      .from(servedExplanations)
      .where(and(eq(servedExplanations.sessionId, sessionId), eq(servedExplanations.caseId, caseId)))
      .limit(1),
  ]);
  if (!session) throw notFound(`No experiment session for participant ${sessionId}`);
  requireWriteAllowed(session, 'main_answer');
  if (!inSet) throw new AppError(400, 'case_not_in_set', [{ msg: `case ${caseId} is not in this session's main-experiment set`, loc: ['case_id'] }]);
  if (stored) throw conflict('case_already_stored', `Case ${caseId} of ${sessionId} is already stored; the study has moved on`);
  const condition = conditionOf(session);
  const plan = answerPlan(shapeOf(condition));
  const misfit = (msg: string) => new AppError(400, 'answer_does_not_fit_condition', [{ msg: `${condition.name}: ${msg}`, loc: ['body', 'step'] }]);
  if (body.step === 'initial' && !plan.initial) throw misfit('this condition asks for no initial judgement');
  if (body.step === 'explanation_viewed' && !(plan.initial && plan.ai !== 'none')) throw misfit('this condition shows the AI on no step of its own');
  const kept = progress ? progressView(progress) : null;
  // With advice on request the final judgement may come without the AI; its own step never does.
  const aiRequired = body.step === 'explanation_viewed' || (body.step === 'final' && !advisesOnRequest(condition));
  if (aiRequired && plan.ai !== 'none' && !served) {
    throw conflict('ai_not_served', `Nothing of the AI was served for case ${caseId} of ${sessionId}`);
  }
  if (body.step === 'final' && plan.initial && !kept?.initial) {
    throw conflict('initial_judgement_required', `Case ${caseId} has no initial judgement kept: the final one follows it`);
  }
  const parts = partsOf(body);
  // A step said to have run out must have, by the Worker's clock (where it is not kept already).
  for (const step of ['initial', 'final'] as const) {
    if (parts[step]?.timed_out && !kept?.[step]) requireTimeoutReached(condition, caseId, step, stepOpenedAt(condition, progress, step), now.toISOString());
  }
  // What is already kept is compared first: a refused step writes nothing, and a step kept the
  // same way before is answered without a write.
  const answer = (row: TrialProgress) => inProgressView(row, condition, Boolean(served), now);
  if (kept) {
    const differing = partsDiffer(parts, kept);
    if (differing.length > 0) throw keptDiffers(caseId, differing);
    if (allKept(parts, kept, progress!.openedAt)) return answer(progress!);
  }
  const row = await keepProgress(db, sessionId, caseId, parts, now.toISOString());
  // Another request may have kept the step between the read and the write: first wins.
  const differing = partsDiffer(parts, progressView(row));
  if (differing.length > 0) throw keptDiffers(caseId, differing);
  return answer(row);
}

/** The fields of the parts given that say something other than what `kept` already holds (parts not yet kept differ in nothing). */
function partsDiffer(parts: ProgressParts, kept: KeptProgress): string[] {
  return [
    ...(parts.initial && kept.initial ? judgementDiffers('initial', parts.initial, kept.initial) : []),
    ...(parts.final && kept.final ? judgementDiffers('final', parts.final, kept.final) : []),
    ...(parts.explanationViewingTimeMs !== undefined && kept.explanation_viewing_time_ms !== null && parts.explanationViewingTimeMs !== kept.explanation_viewing_time_ms
      ? ['explanation_viewing_time_ms']
      : []),
  ];
}

/** Whether every part given is already kept. */
const allKept = (parts: ProgressParts, kept: KeptProgress, openedAt: string | null) =>
  (!parts.opened || openedAt !== null) &&
  (!parts.initial || kept.initial !== null) && (!parts.final || kept.final !== null) && (parts.explanationViewingTimeMs === undefined || kept.explanation_viewing_time_ms !== null);

/** Every case of a session begun and not yet stored, for the start call (rows go when their trial is stored). */
export async function casesInProgress(db: Db, session: { sessionId: string; condition: string | null }, now: Date): Promise<CaseInProgress[]> {
  const condition = conditionOf(session);
  const t = mainTrialProgress;
  const rows = await db
    .select({
      row: t,
      // Named in full: inside the subquery a bare column name would be the serve's own.
      served: sql<number>`exists (select 1 from ${servedExplanations} s where s.session_id = main_trial_progress.session_id and s.case_id = main_trial_progress.case_id)`,
    })
    .from(t)
    .where(eq(t.sessionId, session.sessionId))
    .orderBy(t.updatedAt);
  return rows.map(({ row, served }) => inProgressView(row, condition, served === 1, now));
}
