/** Recording consent: all seven items, the study version, the time and the client address. */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { findSession, type SessionRow } from '../db/queries/sessions';
import { consentRecords, sessions } from '../db/schema';
import { AppError } from '../errors';
import { CONSENT_ITEMS } from '../schemas/study';
import { studyConfig } from '../schemas/study';
import { requireWriteAllowed, sessionAccepts } from '../db/session-lifecycle';

export async function recordConsent(
  db: Db,
  session: SessionRow,
  input: { items: Record<string, boolean>; userId?: number; ipAddress: string | null; userAgent: string | null; now: string },
) {
  requireWriteAllowed(session, 'consent');
  if (input.userId !== undefined && input.userId !== session.userId) {
    throw new AppError(400, 'user_mismatch', [{ msg: 'user_id does not belong to this session', loc: ['user_id'] }]);
  }
  const unknown = Object.keys(input.items).filter((k) => !(CONSENT_ITEMS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new AppError(400, 'consent_unknown_item', [{ msg: `unknown consent items: ${unknown.join(', ')}`, loc: ['consent_items'] }]);
  }
  const missing = CONSENT_ITEMS.filter((k) => input.items[k] !== true);
  if (missing.length > 0) {
    throw new AppError(400, 'consent_incomplete', [{ msg: `every item must be agreed to; missing: ${missing.join(', ')}`, loc: ['consent_items'] }]);
  }
  const items = Object.fromEntries(CONSENT_ITEMS.map((k) => [k, true]));
  const [inserted] = await db.batch([
    // Columns in the table's order; stored only while the session takes consent (session-lifecycle), tested here.
    db
      .insert(consentRecords)
      .select(
        sql`select null, ${session.userId}, ${session.sessionId}, ${studyConfig.consentVersion}, ${JSON.stringify(items)},
                   ${input.ipAddress}, ${input.userAgent}, ${input.now}
            from sessions where sessions.session_id = ${session.sessionId} and ${sessionAccepts('consent')}`,
      )
      .onConflictDoNothing()
      .returning({ id: consentRecords.id }),
    db
      .update(sessions)
      .set({
        consentedAt: input.now,
        currentPhase: sql`case when ${sessions.currentPhase} = 'consent' then 'pre_experiment' else ${sessions.currentPhase} end`,
        updatedAt: input.now,
      })
      // A resend for a consented session changes nothing, not even its updated_at.
      .where(and(eq(sessions.sessionId, session.sessionId), isNull(sessions.consentedAt), sessionAccepts('consent'))),
  ]);
  const record = await db
    .select()
    .from(consentRecords)
    .where(and(eq(consentRecords.sessionId, session.sessionId), eq(consentRecords.studyVersion, studyConfig.consentVersion)))
    .get();
  if (!record) {
    // Neither stored now nor before: the session closed between the check above and the batch.
    const current = await findSession(db, session.sessionId);
    if (current) requireWriteAllowed(current, 'consent');
    throw new AppError(409, 'consent_not_recorded', 'Consent could not be recorded for this session');
  }
  return { record, duplicate: inserted.length === 0 };
}
