/**
 * Outcome feedback after each main case (a condition's `outcomeFeedback`, issue #58 element 4):
 * once the case is stored, its true outcome from the server's case table, whether the stored final
 * judgement was right and whether the AI (its prediction as served) was. Giving it is recorded on
 * the trial (`feedback_served_at`, the first time), and so is how long it was on screen, which the
 * page reports and the server bounds by its own clock. Nothing here comes from the page's word.
 */
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/client';
import type { SessionRow } from '../db/queries/sessions';
import { mainExperimentResponses as main } from '../db/schema';
import { requireWriteAllowed } from '../db/session-lifecycle';
import { AppError, conflict } from '../errors';
import { givesOutcomeFeedback } from '../schemas/condition-plan';
import type { outcomeFeedbackSchema } from '../schemas/main-experiment';
import { conditionOf } from './conditions';

type OutcomeFeedback = z.infer<typeof outcomeFeedbackSchema>;

/** How far a page's reading of the viewing time may run past the server's (its clock starts after the answer left the server). */
const CLOCK_SLACK_MS = 2_000;

const storedTrial = (db: Db, sessionId: string, caseId: string) =>
  db
    .select({ groundTruth: main.groundTruth, finalPrediction: main.finalPrediction, aiPrediction: main.aiPrediction, servedAt: main.feedbackServedAt, viewingMs: main.feedbackViewingTimeMs })
    .from(main)
    .where(and(eq(main.sessionId, sessionId), eq(main.caseId, caseId), isNotNull(main.completedAt)))
    .get();

/** The session's stored trial of `caseId` in a condition that gives feedback; 409 otherwise (nothing is revealed of a case not yet stored). */
async function trialWithFeedback(db: Db, session: SessionRow, caseId: string) {
  requireWriteAllowed(session, 'outcome_feedback');
  const condition = conditionOf(session);
  if (!givesOutcomeFeedback(condition)) {
    throw conflict('no_feedback_in_condition', `Participant ${session.sessionId} is in condition ${condition.name}, which shows no outcome feedback`);
  }
  const trial = await storedTrial(db, session.sessionId, caseId);
  if (!trial || trial.finalPrediction === null) {
    throw conflict('case_not_stored', `Case ${caseId} of ${session.sessionId} is not stored: its outcome is shown once its final judgement is stored`);
  }
  return { ...trial, finalPrediction: trial.finalPrediction };
}

const feedbackOf = (session: SessionRow, caseId: string, t: Awaited<ReturnType<typeof trialWithFeedback>>, servedAt: string): OutcomeFeedback => ({
  session_id: session.sessionId,
  case_id: caseId,
  ground_truth: t.groundTruth as 0 | 1,
  final_prediction: t.finalPrediction as 0 | 1,
  final_correct: t.finalPrediction === t.groundTruth,
  ai_prediction: t.aiPrediction as 0 | 1 | null,
  ai_correct: t.aiPrediction === null ? null : t.aiPrediction === t.groundTruth,
  served_at: servedAt,
  viewing_time_ms: t.viewingMs,
});

/** The feedback of a stored case, its first giving recorded (asked again, the same, from the same time). */
export async function outcomeFeedback(db: Db, session: SessionRow, caseId: string, now: string): Promise<OutcomeFeedback> {
  const trial = await trialWithFeedback(db, session, caseId);
  if (trial.servedAt) return feedbackOf(session, caseId, trial, trial.servedAt);
  const [first] = await db
    .update(main)
    .set({ feedbackServedAt: now })
    .where(and(eq(main.sessionId, session.sessionId), eq(main.caseId, caseId), isNull(main.feedbackServedAt)))
    .returning({ servedAt: main.feedbackServedAt });
  // Another request gave it first: its time stands.
  const servedAt = first?.servedAt ?? (await storedTrial(db, session.sessionId, caseId))!.servedAt!;
  return feedbackOf(session, caseId, trial, servedAt);
}

/**
 * How long the feedback was on screen, as the page measured it: the first report is kept (a retry
 * changes nothing), and one longer than the time since the server gave the feedback is refused.
 */
export async function recordFeedbackViewed(db: Db, session: SessionRow, body: { case_id: string; feedback_viewing_time_ms: number }, now: Date): Promise<OutcomeFeedback> {
  const trial = await trialWithFeedback(db, session, body.case_id);
  if (!trial.servedAt) throw conflict('feedback_not_served', `The outcome feedback of case ${body.case_id} was never given to ${session.sessionId}, so it cannot have been viewed`);
  const since = now.getTime() - Date.parse(trial.servedAt);
  if (body.feedback_viewing_time_ms > since + CLOCK_SLACK_MS) {
    throw new AppError(400, 'feedback_time_impossible', [
      { msg: `feedback_viewing_time_ms ${body.feedback_viewing_time_ms} is longer than the ${since} ms since the feedback was given (${trial.servedAt})`, loc: ['body', 'feedback_viewing_time_ms'] },
    ]);
  }
  // The first report stands: a later one (a retry, another tab) changes nothing.
  const [kept] =
    trial.viewingMs === null
      ? await db
          .update(main)
          .set({ feedbackViewingTimeMs: sql`coalesce(${main.feedbackViewingTimeMs}, ${body.feedback_viewing_time_ms})` })
          .where(and(eq(main.sessionId, session.sessionId), eq(main.caseId, body.case_id)))
          .returning({ viewingMs: main.feedbackViewingTimeMs })
      : [trial];
  return { ...feedbackOf(session, body.case_id, trial, trial.servedAt), viewing_time_ms: kept!.viewingMs };
}
