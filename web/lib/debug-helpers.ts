/**
 * Browser debug helpers of part 1 §6, for researchers testing error paths from the console:
 * `xaiDebug.forceDatasetError()`, `.clearDatasetError()`, `.resetLocalStorage()`,
 * `.setInvalidSession()`, and `.errorLog` to inspect the client error log.
 */
import { errorLog, type ErrorLog } from './error-log';
import { storageKeys, writeStorage } from './storage-keys';

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
    resetLocalStorage: () => {
      const storage = target.localStorage;
      const experimentKeys = Object.values(storageKeys).filter((k) => k !== storageKeys.language);
      const removed: string[] = [];
      for (let i = storage.length - 1; i >= 0; i--) {
        const key = storage.key(i);
        if (key && (experimentKeys.includes(key as never) || key.startsWith(storageKeys.preResponsesPrefix))) {
          storage.removeItem(key);
          removed.push(key);
        }
      }
      return removed;
    },
    setInvalidSession: () => {
      writeStorage(storageKeys.sessionId, INVALID_SESSION_ID);
      writeStorage(storageKeys.session, JSON.stringify({ session_id: INVALID_SESSION_ID, timestamp: Date.now() }));
    },
    errorLog,
  };
  target.xaiDebug = helpers;
  return helpers;
}
