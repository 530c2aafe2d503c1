/** Opening and looking up participant sessions. The session ID is the participant's ID. */
import type { Db } from '../db/client';
import { findAssignment, findSession, insertParticipantSession, type SessionRow } from '../db/queries/sessions';
import { conflict, notFound } from '../errors';
import type { DatasetType, Language } from '../schemas/study';
import { quotaFor, requireAdmission, studyFull } from './recruitment';
import { currentStudyConfig } from './study-configuration';

export async function requireSession(db: Db, sessionId: string): Promise<SessionRow> {
  const session = await findSession(db, sessionId);
  if (!session) throw notFound(`No experiment session for participant ${sessionId}`);
  return session;
}

export async function openSession(
  db: Db,
  input: {
    code: string;
    datasetType: DatasetType;
    language: Language;
    newParticipant: boolean;
    prolific: { pid?: string; studyId?: string; sessionId?: string };
    /** The browser's ID for this creation request; a resend of it is the same creation. */
    requestId?: string;
    /** The registration tools' synthetic participants are marked as such. */
    origin?: 'participant' | 'admin_synthetic';
    now: string;
  },
): Promise<{ session: SessionRow; created: boolean }> {
  const joinExisting = (existing: SessionRow) => {
    // The request that created this participant, sent again because its answer was lost.
    const resent = input.newParticipant && input.requestId && existing.creationRequestId === input.requestId && existing.datasetType === input.datasetType;
    if (resent) return { session: existing, created: true };
    if (input.newParticipant) throw conflict('participant_exists', `Participant ID ${input.code} is already in use`);
    if (existing.datasetType !== input.datasetType) {
      throw conflict('dataset_mismatch', `Participant ${input.code} takes part with ${existing.datasetType}`);
    }
    return { session: existing, created: false };
  };
  const existing = await findSession(db, input.code);
  if (existing) return joinExisting(existing);
  const assignment = await findAssignment(db, input.code);
  if (assignment && assignment.datasetType !== input.datasetType) {
    throw conflict('dataset_mismatch', `Participant ${input.code} is assigned to ${assignment.datasetType}`);
  }
  // A newcomer to a study that is not open, or whose cells are all at their targets, is refused
  // before anything is stored (the registration tools' synthetic participants excepted).
  const quota = input.origin === 'admin_synthetic' ? null : quotaFor(await requireAdmission(db), input.datasetType, input.now);
  const { inserted } = await insertParticipantSession(db, { ...input, studyConfig: await currentStudyConfig(), ...(quota ? { quota } : {}) });
  const session = await findSession(db, input.code);
  if (!session) throw studyFull(input.datasetType);
  // Lost a race for the same new ID: the other request created it, so this one joins or is refused.
  return inserted ? { session, created: true } : joinExisting(session);
}
