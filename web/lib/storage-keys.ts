/** Browser storage keys of part 1 §3 and part 2 §3, in one place. */
export const storageKeys = {
  sessionId: 'experiment_session_id',
  participantId: 'experiment_participant_id',
  participantName: 'experiment_participant_name',
  datasetType: 'experiment_dataset_type',
  session: 'experiment_session',
  legacyParticipantId: 'participant_id',
  userModelTrained: 'user_model_trained',
  userModelInfo: 'user_model_info',
  /** Saved pre-experiment answers are kept per participant: `${preResponsesPrefix}${participantId}`. */
  preResponsesPrefix: 'pre_experiment_responses_',
  /** Saved main-experiment cases and understanding-test attempts, per participant, not yet confirmed by the server. */
  mainResponsesPrefix: 'main_experiment_responses_',
  testAttemptsPrefix: 'understanding_test_attempts_',
  /** The post-survey's answers while its form is open, per participant. */
  postSurveyDraftPrefix: 'post_survey_draft_',
  language: 'xai-decision-lab-language',
  /** Set by the browser debug helper; dataset-type resolution then fails on purpose. */
  forceDatasetError: 'xai-decision-lab-debug-force-dataset-error',
} as const;

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
