/**
 * A participant's withdrawal: everything of theirs goes, through the same cascade as an
 * administrator's deletion (answers, sessions, consent, survey, case sets, dataset assignment,
 * their model file in R2), and with it every stored export copy that holds their rows, as
 * export_copies recorded when each copy was written (researchers export again from D1); an export
 * still being written that has written their rows starts again without them, and the dashboard's
 * kept reliance reports (which list every participant) go. The
 * audit log keeps that a withdrawal happened and when: no ID, no address, no counts that could
 * single them out; earlier entries that named their ID (an export filtered by it) keep what was
 * done but no longer whom.
 */
import { gte, inArray, sql } from 'drizzle-orm';
import { auditInsert, redactFromAuditLog } from '../db/queries/audit-log';
import type { Db } from '../db/client';
import { exportCopies } from '../db/schema';
import type { SessionRow } from '../db/queries/sessions';
import { r2Keys } from '../storage/r2';
import { deleteParticipant } from './admin-data';
import { dropKeptReliance } from './analytics/report-cache';
import { restartExportsHolding } from './exports/stepwise';
import { prolificLinks } from './prolific';

/** Keys bound per statement when the index rows of deleted copies go (D1's 100 parameters). */
const KEYS_PER_STATEMENT = 90;

/**
 * Deletes the export copies holding the participant's rows. A copy with no index row was written
 * before copies were indexed: it is deleted when it was written after the participant joined, as
 * it may hold their rows.
 */
async function deleteExportCopiesHolding(db: Db, bucket: R2Bucket, participantCode: string, joinedAt: Date) {
  // A copy written before they joined cannot hold them: only later copies' lists are read.
  const indexed = await db
    .select({
      key: exportCopies.objectKey,
      holds: sql<number>`exists (select 1 from json_each(${exportCopies.participantCodes}) where value = ${participantCode})`,
    })
    .from(exportCopies)
    .where(gte(exportCopies.createdAt, joinedAt.toISOString()));
  const holdsByKey = new Map(indexed.map((row) => [row.key, row.holds === 1]));
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: r2Keys.exportsPrefix, cursor });
    for (const object of page.objects) {
      if (holdsByKey.get(object.key) ?? object.uploaded >= joinedAt) keys.push(object.key);
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
  for (let i = 0; i < keys.length; i += KEYS_PER_STATEMENT) {
    await db.delete(exportCopies).where(inArray(exportCopies.objectKey, keys.slice(i, i + KEYS_PER_STATEMENT)));
  }
  return keys.length;
}

export async function withdrawParticipant(db: Db, env: Pick<Env, 'MODELS' | 'EXPORTS'>, session: SessionRow, now: Date) {
  // Read before the rows go: a Prolific participant is given the link to return the study.
  const returnUrl = prolificLinks(session).return_url;
  // The copies go first: were the rows deleted and this then failed, a retry could no longer find the participant.
  await deleteExportCopiesHolding(db, env.EXPORTS, session.participantCode, new Date(session.createdAt));
  await restartExportsHolding(db, env.EXPORTS, session.participantCode);
  // The dashboard's kept reports list every participant: none may keep them until it is next recomputed.
  await dropKeptReliance(env.EXPORTS);
  await deleteParticipant(db, env.MODELS, session.userId);
  await redactFromAuditLog(db, session.participantCode);
  if (session.sessionId !== session.participantCode) await redactFromAuditLog(db, session.sessionId);
  await auditInsert(db, { actor: 'participant', action: 'participant_withdrawal', ipAddress: null }, now);
  return { returnUrl };
}
