/**
 * The participant's identity and progress kept in the browser (part 1 §3 storage keys), so a
 * reload or a later visit knows who is taking part. The server stays the source of truth.
 */
import { isDatasetType, type DatasetType } from '../../worker/schemas/study-config';
import { generateParticipantId, isValidSessionId, readStoredSessionId } from './session-id';
import { logger } from './error-log';
import { readStorage, storageKeys, writeStorage } from './storage-keys';

export type StoredParticipant = { sessionId: string; userId: number | null; datasetType: DatasetType | null };

/**
 * The ID the entry page shows a newcomer to note down: drawn once and kept in the browser until a
 * participation starts with it, so a reload, or a detour through the dataset selection, shows the
 * same ID (issue #59, point 1). Where storage is blocked it is drawn anew, as before.
 */
export function drawnParticipantId(): string {
  const kept = readStorage(storageKeys.drawnParticipantId);
  if (kept !== null && isValidSessionId(kept)) return kept;
  return redrawParticipantId();
}

/** Draws a new ID for the entry page (the participant asked for another) and keeps it. */
export function redrawParticipantId(): string {
  const id = generateParticipantId();
  writeStorage(storageKeys.drawnParticipantId, id);
  return id;
}

/** Remembers the participant under every key the spec names; the drawn ID, now used, is let go. */
export function rememberParticipant(p: { sessionId: string; userId?: number; datasetType: DatasetType }): void {
  writeStorage(storageKeys.drawnParticipantId, null);
  writeStorage(storageKeys.sessionId, p.sessionId);
  writeStorage(storageKeys.participantId, p.sessionId);
  writeStorage(storageKeys.participantName, p.sessionId);
  writeStorage(storageKeys.legacyParticipantId, p.sessionId);
  writeStorage(storageKeys.datasetType, p.datasetType);
  writeStorage(
    storageKeys.session,
    JSON.stringify({ session_id: p.sessionId, participant_name: p.sessionId, experiment_type: p.datasetType, user_id: p.userId ?? null, timestamp: Date.now() }),
  );
}

/** The stored participant, or null; an invalid stored ID is reported and ignored. */
export function storedParticipant(): StoredParticipant | null {
  const sessionId = readStoredSessionId(readStorage, storageKeys.sessionId, (bad) =>
    logger.fallback('session', `stored session ID ${JSON.stringify(bad)} is invalid; ignoring it`),
  );
  if (!sessionId) return null;
  let userId: number | null = null;
  try {
    const session = JSON.parse(readStorage(storageKeys.session) ?? 'null') as { user_id?: unknown } | null;
    if (typeof session?.user_id === 'number') userId = session.user_id;
  } catch {
    // A damaged JSON blob only loses the cached user id; the server has it.
  }
  const dataset = readStorage(storageKeys.datasetType);
  return { sessionId, userId, datasetType: isDatasetType(dataset) ? dataset : null };
}

export function rememberUserModel(info: { trained: boolean; sessionId: string; trainingSamples: number }): void {
  writeStorage(storageKeys.userModelTrained, String(info.trained));
  writeStorage(
    storageKeys.userModelInfo,
    info.trained ? JSON.stringify({ user_id: info.sessionId, trained_at: new Date().toISOString(), training_samples: info.trainingSamples }) : null,
  );
}

