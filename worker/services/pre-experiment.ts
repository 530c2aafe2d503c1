/**
 * Stores pre-experiment answers. Each answer is checked against the session's own case set; the
 * case number (position in the set), features and ground truth come from the server's tables.
 * UNIQUE(session, case) makes every retry and the final full send idempotent.
 */
import { count, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { preExperimentResponses, sessions } from '../db/schema';
import type { SessionRow } from '../db/queries/sessions';
import { AppError, conflict } from '../errors';
import type { PreAnswer } from '../schemas/experiment';
import { studyConfig } from '../schemas/study';
import { ensurePreCaseSet, preCaseSetItems } from './case-sets';

/** D1 binds at most 100 parameters per statement; an answer row binds 12. */
const ROWS_PER_INSERT = 8;

export function requireConsent(session: SessionRow): void {
  if (!session.consentedAt) throw conflict('consent_required', 'Consent must be recorded before answers are accepted');
}

export async function countPreResponses(db: Db, sessionId: string): Promise<number> {
  const row = await db.select({ n: count() }).from(preExperimentResponses).where(eq(preExperimentResponses.sessionId, sessionId)).get();
  return row?.n ?? 0;
}

/** Marks the pre-experiment complete once every case of the set is answered (first time only). */
async function markCompleteIfDone(db: Db, session: SessionRow, total: number, now: string) {
  if (total < studyConfig.preExperiment.numCases || session.preCompletedAt) return;
  await db
    .update(sessions)
    .set({ preCompletedAt: now, currentPhase: 'main_experiment', updatedAt: now })
    .where(sql`${sessions.sessionId} = ${session.sessionId} and ${sessions.preCompletedAt} is null`);
}

/** Stores answers not yet stored; returns how many were new and the session's total after. */
export async function storePreAnswers(db: Db, session: SessionRow, answers: PreAnswer[], now: string) {
  requireConsent(session);
  const ids = [...new Set(answers.map((a) => a.case_id))];
  let items = await preCaseSetItems(db, session.sessionId, ids);
  if (items.length === 0) {
    // The set is normally drawn when the client first asks for it; draw it now if it was not.
    await ensurePreCaseSet(db, session.sessionId, session.datasetType, now);
    items = await preCaseSetItems(db, session.sessionId, ids);
  }
  const byCase = new Map(items.map((item) => [item.row.caseId, item]));
  const seen = new Set<string>();
  const rows = [];
  for (const answer of answers) {
    const item = byCase.get(answer.case_id);
    if (!item) {
      throw new AppError(400, 'case_not_in_set', [{ msg: `case ${answer.case_id} is not in this session's pre-experiment set`, loc: ['case_id'] }]);
    }
    if (seen.has(answer.case_id)) continue;
    seen.add(answer.case_id);
    rows.push({
      participantId: session.userId,
      sessionId: session.sessionId,
      datasetType: session.datasetType,
      caseId: answer.case_id,
      caseNumber: item.position + 1,
      prediction: answer.prediction,
      confidence: answer.confidence,
      responseTimeMs: answer.response_time_ms,
      reasoning: answer.reasoning ?? null,
      groundTruth: item.row.groundTruth,
      caseData: item.row.features,
      createdAt: now,
    });
  }
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    statements.push(
      db
        .insert(preExperimentResponses)
        .values(rows.slice(i, i + ROWS_PER_INSERT))
        .onConflictDoNothing()
        .returning({ id: preExperimentResponses.id }),
    );
  }
  let stored = 0;
  if (statements.length > 0) {
    const [first, ...rest] = statements;
    // A conflicting (already stored) answer returns no row, so this counts only new ones.
    for (const inserted of await db.batch([first!, ...rest])) stored += inserted.length;
  }
  const total = await countPreResponses(db, session.sessionId);
  await markCompleteIfDone(db, session, total, now);
  return { stored, duplicates: answers.length - stored, total };
}
