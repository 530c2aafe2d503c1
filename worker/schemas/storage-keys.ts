/**
 * Browser storage keys of part 1 §3 and part 2 §3, in one place: the SPA reads and writes them,
 * and the Worker's full cleanup names them so the dashboard can clear its own browser too.
 */
export const storageKeys = {
  sessionId: 'experiment_session_id',
  participantId: 'experiment_participant_id',
  participantName: 'experiment_participant_name',
  datasetType: 'experiment_dataset_type',
  session: 'experiment_session',
  legacyParticipantId: 'participant_id',
  /** The ID the entry page drew and showed, kept until a participation starts with it, so a reload or the dataset selection shows the same one. */
  drawnParticipantId: 'experiment_drawn_participant_id',
  userModelTrained: 'user_model_trained',
  userModelInfo: 'user_model_info',
  /** Saved pre-experiment answers are kept per participant: `${preResponsesPrefix}${participantId}`. */
  preResponsesPrefix: 'pre_experiment_responses_',
  /** Saved main-experiment cases and understanding-test attempts, per participant, not yet confirmed by the server. */
  mainResponsesPrefix: 'main_experiment_responses_',
  testAttemptsPrefix: 'understanding_test_attempts_',
  /** The per-case questions' answers picked on a main case's survey step, per participant, until the case is sent: a reload brings them back. */
  mainSurveyDraftPrefix: 'main_survey_draft_',
  /** The post-survey's answers while its form is open, per participant. */
  postSurveyDraftPrefix: 'post_survey_draft_',
  /** Prolific's URL parameters, captured on arrival and sent when the participant is created. */
  prolific: 'experiment_prolific_params',
  language: 'xai-decision-lab-language',
  /** Set by the browser debug helper; dataset-type resolution then fails on purpose. */
  forceDatasetError: 'xai-decision-lab-debug-force-dataset-error',
} as const;

/** The keys (and, ending in `_`, key prefixes) that hold experiment data; the language choice stays. */
export const experimentStorageKeys: string[] = Object.entries(storageKeys)
  .filter(([name]) => name !== 'language')
  .map(([, key]) => key);
