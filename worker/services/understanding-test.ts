/**
 * Stores the attempts at the main experiment's understanding test. The score is the Worker's own,
 * computed from the question pool (a client's idea of its score is never asked for), and a
 * re-sent attempt (same attempt ID) is stored once.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { findSession, type SessionRow } from '../db/queries/sessions';
import { sessions, understandingTestAttempts } from '../db/schema';
import { studyConfig } from '../schemas/study';
import { scoreUnderstanding, understandingQuestion } from '../schemas/understanding-test';
import type { z } from 'zod';
import type { understandingAttemptBodySchema } from '../schemas/main-experiment';
import { requireWriteAllowed, sessionAccepts } from '../db/session-lifecycle';

type AttemptBody = z.infer<typeof understandingAttemptBodySchema>;

export async function storeUnderstandingAttempt(db: Db, session: SessionRow, body: AttemptBody, now: string) {
  requireWriteAllowed(session, 'understanding_attempt');
  const score = scoreUnderstanding(body.answers);
  const answers = JSON.stringify(body.answers.map((a) => ({ ...a, correct: understandingQuestion(a.question_id)?.correct === a.answer })));
  // Columns in the table's order. Stored only while the session takes attempts, tested in this
  // statement (session-lifecycle); numbered inside it too: D1 runs one statement at a time, so
  // attempts sent at once each get their own number (a count read before the insert let them share one).
  const inserted = await db
    .insert(understandingTestAttempts)
    .select(
      sql`select null, ${session.userId}, ${session.sessionId}, ${session.datasetType}, ${body.attempt_id},
                 (select count(*) + 1 from understanding_test_attempts a where a.session_id = ${session.sessionId}),
                 ${answers}, ${score.correct}, ${score.total}, ${score.passed ? 1 : 0}, ${now}
          from sessions where sessions.session_id = ${session.sessionId} and ${sessionAccepts('understanding_attempt')}`,
    )
    .onConflictDoNothing()
    .returning({ attemptNumber: understandingTestAttempts.attemptNumber });
  const stored =
    inserted[0] ??
    (await db
      .select({ attemptNumber: understandingTestAttempts.attemptNumber })
      .from(understandingTestAttempts)
      .where(and(eq(understandingTestAttempts.sessionId, session.sessionId), eq(understandingTestAttempts.attemptId, body.attempt_id)))
      .get());
  if (!stored) {
    // Neither stored now nor before: the session closed between the check above and the insert.
    const current = await findSession(db, session.sessionId);
    if (current) requireWriteAllowed(current, 'understanding_attempt');
  }
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
