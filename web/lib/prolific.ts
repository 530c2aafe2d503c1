/**
 * Prolific's URL parameters (`PROLIFIC_PID`, `STUDY_ID`, `SESSION_ID`): captured where a
 * participant arrives, kept in this browser until the participant is created (a detour through
 * the selection page loses the URL), then sent with the new session. Without them nothing changes.
 */
import { readStorage, storageKeys, writeStorage } from './storage-keys';

export type ProlificParams = { prolific_pid: string; prolific_study_id?: string; prolific_session_id?: string };

/** The server's rule for these IDs; anything else is ignored rather than sent to be refused. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const valid = (value: string | null) => (value !== null && ID.test(value) ? value : undefined);

export function captureProlificParams(search: URLSearchParams): void {
  const pid = valid(search.get('PROLIFIC_PID'));
  if (!pid) return;
  const params: ProlificParams = { prolific_pid: pid, prolific_study_id: valid(search.get('STUDY_ID')), prolific_session_id: valid(search.get('SESSION_ID')) };
  writeStorage(storageKeys.prolific, JSON.stringify(params));
}

export function prolificParams(): ProlificParams | null {
  try {
    const stored = JSON.parse(readStorage(storageKeys.prolific) ?? 'null') as Partial<ProlificParams> | null;
    const pid = valid(stored?.prolific_pid ?? null);
    if (!pid) return null;
    return { prolific_pid: pid, prolific_study_id: valid(stored?.prolific_study_id ?? null), prolific_session_id: valid(stored?.prolific_session_id ?? null) };
  } catch {
    return null;
  }
}
