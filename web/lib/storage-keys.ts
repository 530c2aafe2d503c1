import { experimentStorageKeys } from '../../worker/schemas/storage-keys';

export { storageKeys } from '../../worker/schemas/storage-keys';

/**
 * Removes every experiment key from `storage` (entries of `keys` ending in `_` are prefixes of
 * per-participant keys); the language choice stays. Returns the keys removed.
 */
export function clearExperimentStorage(storage: Storage, keys: readonly string[] = experimentStorageKeys): string[] {
  const matches = (key: string) => keys.some((k) => (k.endsWith('_') ? key.startsWith(k) : key === k));
  const removed: string[] = [];
  for (let i = storage.length - 1; i >= 0; i--) {
    const key = storage.key(i);
    if (key && matches(key)) {
      storage.removeItem(key);
      removed.push(key);
    }
  }
  return removed;
}

/** Session storage (per tab). */
export const sessionKeys = {
  preTutorialDone: 'pre_experiment_tutorial_done',
  mainTutorialDone: 'main_experiment_tutorial_done',
  mainTestPassed: 'main_experiment_understanding_test_passed',
} as const;

/** Reads local storage without throwing where storage is blocked (private mode, sandboxed frames). */
export function readStorage(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStorage(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Preference read/save failures only warn (part 2 §8).
    console.warn(`local storage unavailable; ${key} not saved`);
  }
}
