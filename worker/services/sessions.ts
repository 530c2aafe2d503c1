/** Opening and looking up participant sessions. The session ID is the participant's ID. */
import type { Db } from '../db/client';
import { findAssignment, findSession, insertParticipantSession, type SessionRow } from '../db/queries/sessions';
import { conflict, notFound } from '../errors';
import type { DatasetType, Language } from '../schemas/study';

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
    now: string;
  },
): Promise<{ session: SessionRow; created: boolean }> {
  const existing = await findSession(db, input.code);
  if (existing) {
    if (input.newParticipant) throw conflict('participant_exists', `Participant ID ${input.code} is already in use`);
    if (existing.datasetType !== input.datasetType) {
      throw conflict('dataset_mismatch', `Participant ${input.code} takes part with ${existing.datasetType}`);
    }
    return { session: existing, created: false };
  }
  const assignment = await findAssignment(db, input.code);
  if (assignment && assignment.datasetType !== input.datasetType) {
    throw conflict('dataset_mismatch', `Participant ${input.code} is assigned to ${assignment.datasetType}`);
  }
  await insertParticipantSession(db, input);
  return { session: (await findSession(db, input.code))!, created: true };
}
