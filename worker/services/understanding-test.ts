/**
 * Stores the attempts at the main experiment's understanding test. The score is the Worker's own,
 * computed from the question pool (a client's idea of its score is never asked for), and a
 * re-sent attempt (same attempt ID) is stored once.
 */
import { and, count, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { SessionRow } from '../db/queries/sessions';
import { understandingTestAttempts } from '../db/schema';
import { scoreUnderstanding, understandingQuestion } from '../schemas/understanding-test';
import type { z } from 'zod';
import type { understandingAttemptBodySchema } from '../schemas/main-experiment';
import { requireConsent } from './pre-experiment';

type AttemptBody = z.infer<typeof understandingAttemptBodySchema>;

export async function storeUnderstandingAttempt(db: Db, session: SessionRow, body: AttemptBody, now: string) {
  requireConsent(session);
  const score = scoreUnderstanding(body.answers);
  const existing = await db
    .select({ n: count() })
    .from(understandingTestAttempts)
    .where(eq(understandingTestAttempts.sessionId, session.sessionId))
    .get();
  const inserted = await db
    .insert(understandingTestAttempts)
    .values({
      participantId: session.userId,
      sessionId: session.sessionId,
      datasetType: session.datasetType,
      attemptId: body.attempt_id,
      attemptNumber: (existing?.n ?? 0) + 1,
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
  return { duplicate: inserted.length === 0, attemptNumber: stored?.attemptNumber ?? 0, ...score };
}
