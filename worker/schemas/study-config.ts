/**
 * The study configuration shared by the Worker and the SPA: the spec's business constants (part 1
 * §9, part 2 §9) and the study's own details in one object, so no feature repeats a literal.
 * Researchers running their own study edit this file (contacts, completion code, timings…);
 * `study-schema.ts` holds its schema, `study-terms.ts` its enumerations, and the Worker (`study.ts`)
 * refuses to start with an inconsistent edit.
 * Kept free of zod: the participant's first page load carries these values, not the validator.
 */
import { DATASET_IDS, isEnabledAdded, type DatasetType } from './dataset-index';
import type { Condition, StudyConfig } from './study-schema';
import { STUDY_CASE_COUNTS } from './study-counts';

export * from './study-terms';
export { isDatasetType, type DatasetType } from './dataset-index';

/** The study's datasets, one per definition (ml-assets/datasets/), in the order the selection screen lists them. */
export const DATASET_TYPES: readonly string[] = DATASET_IDS;

/**
 * The datasets new sessions may get: the configuration's `enabledDatasets`, then the datasets
 * administrators added and enabled on the dashboard, in the study's order.
 */
export const enabledDatasets = (config: { enabledDatasets: readonly DatasetType[] } = studyConfig): DatasetType[] => [
  ...config.enabledDatasets,
  ...DATASET_TYPES.filter((id) => isEnabledAdded(id) && !config.enabledDatasets.includes(id)),
];

/**
 * Contacts shipped with the platform. A study must replace them with its own (in `contacts`
 * below) before it recruits: `npm start` warns loudly while any of them is still in use.
 */
export const PLACEHOLDER_CONTACT_EMAILS: readonly string[] = ['research@xai-decision-lab.org', 'engineering@xai-decision-lab.org'];

/**
 * The spec's design as a condition: the AI's prediction and its human-aligned explanation after
 * the participant's own judgement. The shipped configuration's one condition; a session whose main
 * experiment started before conditions existed ran it (its stored condition is null).
 */
export const SPEC_DESIGN: Condition = { name: 'human_aligned', shows: 'explanation', aiTiming: 'after_initial', share: 1 };

export const studyConfig: StudyConfig = {
  studyVersion: '1.0.0',
  /** Version of the consent text; each consent record keeps the version the person agreed to. */
  consentVersion: '1.0.0',
  enabledDatasets: [...DATASET_TYPES],
  defaultDatasetType: 'adult_income',
  preExperiment: { numCases: STUDY_CASE_COUNTS.pre, tutorialCases: 2, estimatedMinutes: 30 },
  mainExperiment: {
    numCases: STUDY_CASE_COUNTS.main,
    resumeRequestCases: 100,
    estimatedMinutes: 35,
    alphaLevels: [0, 0.25, 0.5, 0.75, 1],
    fallbackAlpha: 0.5,
    understandingTestQuestions: 5,
    adminCaseNumberStart: 201,
    showAiBaseline: false,
  },
  /**
   * Between-subject conditions (docs/running-a-study.md, "Study designs"): each new main experiment gets one,
   * balanced within its dataset by `share`. The spec's design is a single condition: the AI's
   * prediction and its human-aligned explanation after the participant's own judgement, with
   * `mainExperiment.alphaLevels` spread over each participant's cases.
   */
  conditions: [SPEC_DESIGN],
  postSurvey: { estimatedMinutes: 10, experimentRatingMax: 7 },
  totalMinutes: 75,
  compensation: { amount: 1200, currency: 'JPY' },
  prolific: {
    /** Where the completion page's button sends a Prolific participant; `{code}` is replaced by the code. */
    completionUrl: 'https://app.prolific.com/submissions/complete?cc={code}',
    /** Failed understanding-test attempts after which a Prolific participant is screened out; null never screens out. */
    screenOutAfterFailedUnderstandingTests: 3,
  },
  /**
   * Data-quality flags (dashboard, exports). A flag marks a participant for a researcher's
   * attention and lets the reliance metrics leave them out on demand; it never deletes anything.
   */
  qualityFlags: {
    /** Speeder: median pre-experiment response time below this share of the study's median. */
    speederMedianShare: 0.3,
    /** Straightlining: every item of a post-survey grid section (at least this many answered) given the same answer. */
    straightlineMinItems: 5,
    /** BFI-10 inconsistency: at least `inconsistentPairs` of the five pairs differ by at least `pairGap` once the reversed item is turned around. */
    bfi: { pairGap: 4, inconsistentPairs: 2 },
    /** The same pre-experiment prediction for at least this many cases in a row. */
    longRunLength: 20,
    /** Resumed (progress fetched to continue) at least this many times. */
    resumesAtLeast: 10,
    /** Failed the understanding test at least this many times. */
    failedUnderstandingTestsAtLeast: 3,
  },
  retentionYearsAfterPublication: 10,
  /** No quota until a study sets one (here or on the dashboard's Recruitment tab). */
  recruitment: { overallTarget: null, cellTarget: null, cellTargets: {}, abandonAfterMinutes: 120 },
  userModelMinResponses: 3,
  reasoningMaxLength: 2000,
  defaultCaseSetSize: 5,
  confidence: { min: 1, max: 5, default: 3 },
  timingsMs: {
    resumeDebounce: 500,
    copyConfirmation: 2000,
    submitDelay: 300,
    betweenCases: 800,
    postSurveyRedirect: 2000,
    postSurveyConflictRedirect: 1000,
    postSurveyRefetch: 300,
    messageAutoHide: 5000,
    adminFetchTimeout: 30000,
    cleanupReload: 3000,
  },
  apiRetry: { backoffMs: [1000, 2000, 4000] },
  modelAccuracy: {
    cacheMs: 60 * 60 * 1000,
    fallbackPercent: { adult_income: 84.5, speed_dating: 67.7, compas: 69.3 },
    otherFallbackPercent: 75,
  },
  contacts: [
    {
      role: 'responsible_researcher',
      name: 'XAI Decision Lab principal investigator',
      affiliation: 'XAI Decision Lab',
      email: 'research@xai-decision-lab.org',
    },
    {
      role: 'implementer',
      name: 'XAI Decision Lab engineering',
      affiliation: 'XAI Decision Lab',
      email: 'engineering@xai-decision-lab.org',
    },
  ],
  admin: { pageSizes: [20, 50, 100, 200, 500, 1000], testUsernamePrefix: 'test_', sessionHours: 8 },
};

/** Contacts still set to the shipped placeholders: a study must not recruit while any remain. */
export const placeholderContacts = (config: Pick<StudyConfig, 'contacts'> = studyConfig) =>
  config.contacts.filter((c) => PLACEHOLDER_CONTACT_EMAILS.includes(c.email));
