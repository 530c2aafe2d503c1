/**
 * Browser debug helpers of part 1 §6, for researchers testing error paths from the console:
 * `xaiDebug.forceDatasetError()`, `.clearDatasetError()`, `.resetLocalStorage()`,
 * `.setInvalidSession()`, and `.errorLog` to inspect the client error log.
 */
import { errorLog, type ErrorLog } from './error-log';
import { clearExperimentStorage, storageKeys, writeStorage } from './storage-keys';

export type DebugHelpers = {
  forceDatasetError(): void;
  clearDatasetError(): void;
  /** Removes every experiment key; the language preference stays. */
  resetLocalStorage(): string[];
  /** Stores a session ID that fails the format check, so the app must replace it. */
  setInvalidSession(): void;
  errorLog: ErrorLog;
};

declare global {
  interface Window {
    xaiDebug?: DebugHelpers;
  }
}

export const INVALID_SESSION_ID = 'invalid session!';

export function installDebugHelpers(target: Window): DebugHelpers {
  const helpers: DebugHelpers = {
    forceDatasetError: () => writeStorage(storageKeys.forceDatasetError, 'true'),
    clearDatasetError: () => writeStorage(storageKeys.forceDatasetError, null),
    resetLocalStorage: () => clearExperimentStorage(target.localStorage),
    setInvalidSession: () => {
      writeStorage(storageKeys.sessionId, INVALID_SESSION_ID);
      writeStorage(storageKeys.session, JSON.stringify({ session_id: INVALID_SESSION_ID, timestamp: Date.now() }));
    },
    errorLog,
  };
  target.xaiDebug = helpers;
  return helpers;
}
