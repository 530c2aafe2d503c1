/**
 * A participant's withdrawal: everything of theirs goes, through the same cascade as an
 * administrator's deletion (answers, sessions, consent, survey, case sets, dataset assignment,
 * their model file in R2), and with it every stored export copy written since they joined, since
 * those hold their rows too (researchers export again from D1). The audit log keeps that a
 * withdrawal happened and when: no ID, no address, no counts that could single them out; earlier
 * entries that named their ID (an export filtered by it) keep what was done but no longer whom.
 */
import { auditInsert, redactFromAuditLog } from '../db/queries/audit-log';
import type { Db } from '../db/client';
import type { SessionRow } from '../db/queries/sessions';
import { r2Keys } from '../storage/r2';
import { deleteParticipant } from './admin-data';
import { prolificLinks } from './prolific';

/** Export copies stored at or after `since`: the ones that may hold the participant's rows. */
async function exportCopiesSince(bucket: R2Bucket, since: Date) {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: r2Keys.exportsPrefix, cursor });
    for (const object of page.objects) if (object.uploaded >= since) keys.push(object.key);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
  return keys.length;
}

export async function withdrawParticipant(db: Db, env: Pick<Env, 'MODELS' | 'EXPORTS'>, session: SessionRow, now: Date) {
  // Read before the rows go: a Prolific participant is given the link to return the study.
  const returnUrl = prolificLinks(session).return_url;
  await deleteParticipant(db, env.MODELS, session.userId);
  await exportCopiesSince(env.EXPORTS, new Date(session.createdAt));
  await redactFromAuditLog(db, session.participantCode);
  if (session.sessionId !== session.participantCode) await redactFromAuditLog(db, session.sessionId);
  await auditInsert(db, { actor: 'participant', action: 'participant_withdrawal', ipAddress: null }, now);
  return { returnUrl };
}
