/**
 * The existence check's answer when there is nothing to resume: the Worker's answer for an
 * unknown ID and the SPA's fallback when the check fails (part 1 §7). Zod-free, so the entry
 * page can use it without loading the validator.
 */
import type { CheckExistingResponse } from './experiment';

export const NOTHING_FOUND: CheckExistingResponse = {
  exists: false,
  canResume: false,
  preExperimentCount: 0,
  mainExperimentCount: 0,
  userId: null,
  isCompleted: false,
  isScreenedOut: false,
  integrityError: false,
};
