/**
 * Stores the attempts at the main experiment's understanding test. The score is the Worker's own,
 * computed from the question pool (a client's idea of its score is never asked for), and a
 * re-sent attempt (same attempt ID) is stored once.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { SessionRow } from '../db/queries/sessions';
import { sessions, understandingTestAttempts } from '../db/schema';
import { studyConfig } from '../schemas/study';
import { scoreUnderstanding, understandingQuestion } from '../schemas/understanding-test';
import type { z } from 'zod';
import type { understandingAttemptBodySchema } from '../schemas/main-experiment';
import { requireWriteAllowed } from './session-lifecycle';

type AttemptBody = z.infer<typeof understandingAttemptBodySchema>;

export async function storeUnderstandingAttempt(db: Db, session: SessionRow, body: AttemptBody, now: string) {
  requireWriteAllowed(session, 'understanding_attempt');
  const score = scoreUnderstanding(body.answers);
  const inserted = await db
    .insert(understandingTestAttempts)
    .values({
      participantId: session.userId,
      sessionId: session.sessionId,
      datasetType: session.datasetType,
      attemptId: body.attempt_id,
      // Counted inside the insert itself: D1 runs one statement at a time, so attempts sent at
      // once each get their own number (a count read before the insert let them share one).
      attemptNumber: sql<number>`(select count(*) + 1 from ${understandingTestAttempts} where ${understandingTestAttempts.sessionId} = ${session.sessionId})`,
      answers: body.answers.map((a) => ({ ...a, correct: understandingQuestion(a.question_id)?.correct === a.answer })),
      correctCount: score.correct,
      totalQuestions: score.total,
      passed: score.passed,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning({ attemptNumber: understandingTestAttempts.attemptNumber });
  const stored =
    inserted[0] ??
    (await db
      .select({ attemptNumber: understandingTestAttempts.attemptNumber })
      .from(understandingTestAttempts)
      .where(and(eq(understandingTestAttempts.sessionId, session.sessionId), eq(understandingTestAttempts.attemptId, body.attempt_id)))
      .get());
  const screenedOut = await screenOutIfDue(db, session, now);
  return { duplicate: inserted.length === 0, attemptNumber: stored?.attemptNumber ?? 0, screenedOut, ...score };
}

/**
 * A Prolific participant who failed the understanding test the configured number of times, and
 * never passed it, is screened out (once; the first time stays). Others are never screened out.
 */
async function screenOutIfDue(db: Db, session: SessionRow, now: string): Promise<boolean> {
  const limit = studyConfig.prolific.screenOutAfterFailedUnderstandingTests;
  if (session.screenedOutAt) return true;
  if (!session.prolific || limit === null) return false;
  const tally = await db
    .select({ failed: sql<number>`sum(case when ${understandingTestAttempts.passed} then 0 else 1 end)`, passed: sql<number>`sum(${understandingTestAttempts.passed})` })
    .from(understandingTestAttempts)
    .where(eq(understandingTestAttempts.sessionId, session.sessionId))
    .get();
  if (!tally || (tally.passed ?? 0) > 0 || (tally.failed ?? 0) < limit) return false;
  await db
    .update(sessions)
    .set({ screenedOutAt: sql`coalesce(${sessions.screenedOutAt}, ${now})`, updatedAt: now })
    .where(eq(sessions.sessionId, session.sessionId));
  return true;
}
