/**
 * Study configuration shared by the Worker and the SPA: the spec's business constants (part 1 §9,
 * part 2 §9) in one validated object, so no feature repeats a literal. Researchers running their
 * own study edit the defaults here; the schema rejects an inconsistent edit at start-up.
 */
import { z } from 'zod';

/** The three datasets of the study, in the order the selection screen lists them. */
export const DATASET_TYPES = ['adult_income', 'speed_dating', 'compas'] as const;
export const datasetTypeSchema = z.enum(DATASET_TYPES);
export type DatasetType = z.infer<typeof datasetTypeSchema>;

/** UI languages; the first is the default. */
export const LANGUAGES = ['ja', 'en'] as const;
export const languageSchema = z.enum(LANGUAGES);
export type Language = z.infer<typeof languageSchema>;

export const PHASES = ['pre_experiment', 'main_experiment', 'post_survey'] as const;
export const phaseSchema = z.enum(PHASES);
export type Phase = z.infer<typeof phaseSchema>;

const contactSchema = z.object({
  role: z.enum(['responsible_researcher', 'implementer']),
  name: z.string().min(1),
  affiliation: z.string().min(1),
  email: z.email(),
});

const perDataset = <T extends z.ZodType>(value: T) =>
  z.object({ adult_income: value, speed_dating: value, compas: value });

export const studyConfigSchema = z
  .object({
    studyVersion: z.string().min(1),
    enabledDatasets: z.array(datasetTypeSchema).min(1),
    defaultDatasetType: datasetTypeSchema,
    featureCounts: perDataset(z.number().int().positive()),
    preExperiment: z.object({
      numCases: z.number().int().positive(),
      tutorialCases: z.number().int().positive(),
      estimatedMinutes: z.number().positive(),
    }),
    mainExperiment: z.object({
      numCases: z.number().int().positive(),
      /** The resume start request asks for this many cases (part 2 §9). */
      resumeRequestCases: z.number().int().positive(),
      estimatedMinutes: z.number().positive(),
      /** Alignment alphas a session's cases are spread over, in equal shares. */
      alphaLevels: z.array(z.number().min(0).max(1)).min(1),
      fallbackAlpha: z.number().min(0).max(1),
      understandingTestQuestions: z.number().int().positive(),
      /** Admin-registered main case numbers start here (201–250). */
      adminCaseNumberStart: z.number().int().positive(),
    }),
    postSurvey: z.object({
      estimatedMinutes: z.number().positive(),
      experimentRatingMax: z.number().int().positive(),
    }),
    totalMinutes: z.number().positive(),
    compensation: z.object({ amount: z.number().nonnegative(), currency: z.string().length(3) }),
    /** Entered by the participant into the recruiting platform's form. */
    completionCode: z.string().regex(/^[A-Z0-9]{5}$/),
    retentionYearsAfterPublication: z.number().int().positive(),
    userModelMinResponses: z.number().int().positive(),
    /** Longest optional free-text reason a judgement may carry. */
    reasoningMaxLength: z.number().int().positive(),
    defaultCaseSetSize: z.number().int().positive(),
    confidence: z.object({
      min: z.number().int(),
      max: z.number().int(),
      default: z.number().int(),
    }),
    timingsMs: z.object({
      resumeDebounce: z.number().int().nonnegative(),
      copyConfirmation: z.number().int().nonnegative(),
      submitDelay: z.number().int().nonnegative(),
      betweenCases: z.number().int().nonnegative(),
      postSurveyRedirect: z.number().int().nonnegative(),
      postSurveyConflictRedirect: z.number().int().nonnegative(),
      postSurveyRefetch: z.number().int().nonnegative(),
      messageAutoHide: z.number().int().nonnegative(),
      adminFetchTimeout: z.number().int().positive(),
      cleanupReload: z.number().int().nonnegative(),
    }),
    apiRetry: z.object({
      /** Delay before each retry; its length is the number of retries. */
      backoffMs: z.array(z.number().int().positive()),
    }),
    modelAccuracy: z.object({
      cacheMs: z.number().int().positive(),
      fallbackPercent: perDataset(z.number().min(0).max(100)),
      otherFallbackPercent: z.number().min(0).max(100),
    }),
    /** Speed-dating income statistics of the 3,506 complete rows (part 1 §9), for the percentile display. */
    incomeStatistics: z.object({
      min: z.number(),
      max: z.number(),
      mean: z.number(),
      median: z.number(),
      q1: z.number(),
      q3: z.number(),
      count: z.number().int().positive(),
    }),
    contacts: z.array(contactSchema).min(1),
    admin: z.object({
      pageSizes: z.array(z.number().int().positive()).min(1),
      testUsernamePrefix: z.string().min(1),
      sessionHours: z.number().positive(),
    }),
  })
  .refine((c) => c.enabledDatasets.includes(c.defaultDatasetType), {
    message: 'defaultDatasetType must be one of enabledDatasets',
  })
  .refine((c) => c.confidence.min <= c.confidence.default && c.confidence.default <= c.confidence.max, {
    message: 'confidence.default must lie within min..max',
  })
  .refine((c) => c.mainExperiment.numCases % c.mainExperiment.alphaLevels.length === 0, {
    message: 'mainExperiment.numCases must split evenly over alphaLevels',
  });

export type StudyConfig = z.infer<typeof studyConfigSchema>;

export const studyConfig: StudyConfig = studyConfigSchema.parse({
  studyVersion: '1.0.0',
  enabledDatasets: [...DATASET_TYPES],
  defaultDatasetType: 'adult_income',
  // The spec's selection card says COMPAS has 9 features, but its cases list 8 fields: the ninth is
  // the outcome (two_year_recid) that participants predict, so the card shows the 8 they see.
  featureCounts: { adult_income: 14, speed_dating: 18, compas: 8 },
  preExperiment: { numCases: 200, tutorialCases: 2, estimatedMinutes: 30 },
  mainExperiment: {
    numCases: 50,
    resumeRequestCases: 100,
    estimatedMinutes: 35,
    alphaLevels: [0, 0.25, 0.5, 0.75, 1],
    fallbackAlpha: 0.5,
    understandingTestQuestions: 5,
    adminCaseNumberStart: 201,
  },
  postSurvey: { estimatedMinutes: 10, experimentRatingMax: 7 },
  totalMinutes: 75,
  compensation: { amount: 1200, currency: 'JPY' },
  completionCode: 'XD5K7',
  retentionYearsAfterPublication: 10,
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
  incomeStatistics: {
    min: 8607,
    max: 109031,
    mean: 44995.81,
    median: 43185,
    q1: 31560,
    q3: 53940,
    count: 3506,
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
});
