/**
 * The schema of the study configuration (`study-config.ts`) and of its enumerations
 * (`study-terms.ts`): what a configuration may say, checked when the Worker starts (`study.ts`) and
 * by the dashboard. Takes the dataset ids from the registry (`dataset-index.ts`), nothing from the
 * configuration's values.
 */
import { z } from 'zod';
import { DATASET_IDS, isDatasetType } from './dataset-index';
import { AI_TIMINGS, LANGUAGES, PHASES, TIMEOUT_RULES } from './study-terms';

/** One of the study's datasets: those it was built with and those administrators added (the list is read when a value is checked). */
export const datasetTypeSchema = z.string().refine(isDatasetType, { error: () => `unknown dataset; expected one of ${DATASET_IDS.join(', ')}` });
export const languageSchema = z.enum(LANGUAGES);
export const phaseSchema = z.enum(PHASES);

const contactSchema = z.object({
  role: z.enum(['responsible_researcher', 'implementer']),
  name: z.string().min(1),
  affiliation: z.string().min(1),
  email: z.email(),
});

const share = z.number().positive({ message: 'share must be above 0' });
const conditionName = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'a condition name is 1–40 lower-case letters, digits or underscores, starting with a letter');
const aiTiming = z.enum(AI_TIMINGS);
/**
 * Whether the panel shows the AI's confidence: its probability for the class it predicts, beside
 * the prediction, with or without bars (Zhang, Liao & Bellamy 2020; Rechkemmer & Yin 2022). Left
 * out, it is not shown, as before the key existed.
 */
const aiConfidence = z.boolean({ error: 'aiConfidence is true (show the AI’s confidence) or false' }).optional();
/**
 * The share of a participant's main cases on which their pinned AI is right (Yin, Wortman Vaughan &
 * Wallach 2019 set the AI's accuracy this way): the set is drawn so that exactly this share of its
 * cases are ones the AI predicts correctly, the outcomes as near half each as the pools allow.
 * Left out, the AI is right wherever the drawn pool puts it, as before the key existed.
 */
const aiAccuracy = z.number({ error: 'aiAccuracy is a share of the main cases, above 0 and at most 1 (e.g. 0.7)' }).gt(0, 'aiAccuracy is above 0').max(1, 'aiAccuracy is at most 1').optional();

/**
 * Outcome feedback after each main case (Bansal et al. 2019; Lai et al. 2023 list it among the
 * design choices): once the case is stored, the true outcome and whether the participant's final
 * judgement and the AI were right, from the server's case table. Left out, none, as before.
 */
const outcomeFeedback = z.boolean({ error: 'outcomeFeedback is true (show the true outcome after each case) or false' }).optional();

/**
 * Advice on request (Buçinca, Malaya & Gajos 2021's on-demand cognitive forcing; Liu, Lai & Tan
 * 2021): after the initial judgement the final one may be given at once, and the AI is served only
 * when the participant asks for it on that case. Left out, the AI is shown on every case, as before.
 */
const adviceOnRequest = z.boolean({ error: 'adviceOnRequest is true (the AI only when the participant asks for it) or false' }).optional();
/**
 * A forced wait (Buçinca et al. 2021's wait condition; Park, Lee, Shin & Jung 2019's delayed
 * advice): the AI is served no sooner than this many seconds after the initial judgement is kept,
 * by the Worker's clock, and the page counts them down. Left out, no wait.
 */
const adviceWaitSeconds = z
  .number({ error: 'adviceWaitSeconds is a whole number of seconds (e.g. 10)' })
  .int('adviceWaitSeconds is a whole number of seconds')
  .min(1, 'adviceWaitSeconds is at least 1 (leave it out for no wait)')
  .max(600, 'adviceWaitSeconds is at most 600')
  .optional();

/**
 * A time limit per judgement step (Swaroop, Buçinca, Gajos & Doshi-Velez 2024 and Rastogi et al.
 * 2022 put participants under time pressure; Lai et al. 2023 list time among the design choices):
 * each judgement of a main case (the initial and the final one, or the one judgement) has
 * `seconds`, counted down on the page and timed by the Worker from when the step opened. When they
 * run out, `onTimeout` says how the study moves on: `submit` takes the prediction and confidence
 * chosen so far as the judgement (with none chosen the step stays open until one is), `overrun`
 * keeps the step open and asks for the judgement now. Either way the step is recorded as timed out.
 * Left out, no limit, as before.
 */
const timeLimit = z
  .object(
    {
      seconds: z
        .number({ error: 'timeLimit.seconds is a whole number of seconds (e.g. 20)' })
        .int('timeLimit.seconds is a whole number of seconds')
        .min(5, 'timeLimit.seconds is at least 5')
        .max(600, 'timeLimit.seconds is at most 600'),
      onTimeout: z.enum(TIMEOUT_RULES, { error: `timeLimit.onTimeout is ${TIMEOUT_RULES.map((r) => `"${r}"`).join(' or ')}: take the choice made so far, or keep the step open` }).default('submit'),
    },
    { error: 'timeLimit is { "seconds": 20, "onTimeout": "submit" } (onTimeout "submit" or "overrun")' },
  )
  .strict()
  .optional();

/**
 * A payment for performance (Yin, Wortman Vaughan & Wallach 2019 and Bansal et al. 2019 paid a
 * bonus per correct decision; Lai et al. 2023 list incentives among the design choices): a base
 * payment, a bonus per correct final judgement in the main experiment (and optionally per correct
 * pre-experiment judgement), at most `cap`, in `currency`. Amounts are in whole cents of the
 * currency. The Worker works the bonus out from the stored trials when the participant finishes.
 * Left out, no bonus, as before.
 */
const money = (name: string) =>
  z
    .number({ error: `incentive.${name} is an amount of the currency (e.g. 0.05)` })
    .nonnegative(`incentive.${name} is 0 or more`)
    .max(10_000, `incentive.${name} is at most 10000`)
    .refine((x) => Math.abs(x * 100 - Math.round(x * 100)) < 1e-6, { error: `incentive.${name} is a whole number of cents (at most two decimals, e.g. 0.05)` });
const incentive = z
  .object(
    {
      base: money('base'),
      bonusPerCorrect: money('bonusPerCorrect'),
      bonusPerCorrectPre: money('bonusPerCorrectPre').optional(),
      cap: money('cap'),
      currency: z.string({ error: 'incentive.currency is a three-letter ISO 4217 code (e.g. "GBP")' }).regex(/^[A-Z]{3}$/, 'incentive.currency is a three-letter ISO 4217 code in capitals (e.g. "GBP")'),
    },
    { error: 'incentive is { "base": 2, "bonusPerCorrect": 0.05, "cap": 2.5, "currency": "GBP" } (bonusPerCorrectPre optional)' },
  )
  .strict()
  .refine((x) => x.bonusPerCorrect > 0 || (x.bonusPerCorrectPre ?? 0) > 0, { error: 'an incentive pays a bonus per correct judgement: bonusPerCorrect or bonusPerCorrectPre above 0' })
  .optional();

/**
 * What the panel says of the AI's accuracy (Yin, Wortman Vaughan & Wallach 2019 stated it; Zhang,
 * Liao & Bellamy 2020 showed it beside the confidence): `measured`, the pinned model's accuracy on
 * its held-out test cases, as before the key existed (left out means this); `none`, no accuracy
 * note; or a stated figure, which is not the measured one and so a deception an ethics board must
 * approve: it comes with the debrief the participant reads when they finish, in both languages.
 */
const debriefText = z.string().trim().min(1, 'a debrief text says, in the participant’s words, that the accuracy shown was set for the study and what the AI’s accuracy was');
const statedAccuracy = z
  .union(
    [
      z.enum(['measured', 'none']),
      z
        .object({
          figure: z.number({ error: 'statedAccuracy.figure is the accuracy the panel states, above 0 and at most 1 (e.g. 0.9)' }).gt(0, 'statedAccuracy.figure is above 0').max(1, 'statedAccuracy.figure is at most 1'),
          debrief: z.object({ ja: debriefText, en: debriefText }, { error: 'a stated figure needs statedAccuracy.debrief: { "ja": "…", "en": "…" }, the debrief shown when the participant finishes' }).strict(),
        })
        .strict(),
    ],
    { error: 'statedAccuracy is "measured" (the model’s test accuracy), "none", or { "figure": 0.9, "debrief": { "ja": "…", "en": "…" } }' },
  )
  .optional();

/**
 * A between-subject condition of the main experiment: what a participant of it is shown, when,
 * and its share of participants. `explanation` with `alphaLevels` [1] shows the AI's own
 * explanation; without them it follows `mainExperiment.alphaLevels` (the human-aligned schedule).
 * `aiConfidence` adds the AI's confidence to what a condition shows of the AI; `statedAccuracy`
 * says which accuracy its panel states; `outcomeFeedback` shows the true outcome after each case;
 * `adviceOnRequest` and `adviceWaitSeconds` give the AI only when asked for, or after a wait;
 * `timeLimit` gives each judgement step a time limit; `incentive` pays a bonus per correct judgement.
 */
export const conditionSchema = z.discriminatedUnion('shows', [
  z.object({ name: conditionName, shows: z.literal('none'), judgements: z.union([z.literal(1), z.literal(2)]), outcomeFeedback, timeLimit, incentive, share }).strict(),
  z
    .object({ name: conditionName, shows: z.literal('ai_prediction'), aiTiming, aiConfidence, aiAccuracy, statedAccuracy, outcomeFeedback, adviceOnRequest, adviceWaitSeconds, timeLimit, incentive, share })
    .strict(),
  z.object({
    name: conditionName,
    shows: z.literal('explanation'),
    aiTiming,
    alphaLevels: z.array(z.number().min(0).max(1)).min(1).optional(),
    aiConfidence,
    aiAccuracy,
    statedAccuracy,
    outcomeFeedback,
    adviceOnRequest,
    adviceWaitSeconds,
    timeLimit,
    incentive,
    share,
  }).strict(),
]);

/** A figure per dataset, for the datasets it names (the others take a general figure). */
const perDataset = <T extends z.ZodType>(value: T) => z.partialRecord(datasetTypeSchema, value);

/**
 * Completed participants wanted: overall, per dataset × condition cell (`cellTarget` for every
 * cell, `cellTargets` for one, keyed "<dataset>:<condition>"); null = no limit.
 */
export const recruitmentTargetsSchema = z
  .object({
    overallTarget: z.number().int().positive().nullable(),
    cellTarget: z.number().int().positive().nullable(),
    cellTargets: z.record(z.string().regex(/^[a-z0-9_]+:[a-z0-9_]+$/, 'a cell is "<dataset>:<condition>"'), z.number().int().nonnegative()),
  })
  .strict();
export type RecruitmentTargets = z.infer<typeof recruitmentTargetsSchema>;

export const studyConfigSchema = z
  .object({
    studyVersion: z.string().min(1),
    consentVersion: z.string().min(1),
    enabledDatasets: z.array(datasetTypeSchema).min(1),
    defaultDatasetType: datasetTypeSchema,
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
      /**
       * With the AI's own bars (alpha 1, or the AI-only fallback), also show where the AI starts
       * (its base rate: the probability before any feature is looked at) and its probability for
       * the case, so the bars read as the path from one to the other. Off in the spec's design.
       */
      showAiBaseline: z.boolean(),
    }),
    conditions: z.array(conditionSchema).min(1),
    postSurvey: z.object({
      estimatedMinutes: z.number().positive(),
      experimentRatingMax: z.number().int().positive(),
    }),
    totalMinutes: z.number().positive(),
    compensation: z.object({ amount: z.number().nonnegative(), currency: z.string().length(3) }),
    /** The Prolific loop; participants who came without Prolific's URL parameters never see it. Its codes: `worker/study-codes.ts`. */
    prolific: z.object({
      completionUrl: z.url({ protocol: /^https$/ }).refine((u) => u.includes('{code}'), 'completionUrl must contain {code}'),
      screenOutAfterFailedUnderstandingTests: z.number().int().positive().nullable(),
    }),
    qualityFlags: z.object({
      speederMedianShare: z.number().gt(0).lt(1),
      straightlineMinItems: z.number().int().min(2),
      bfi: z.object({ pairGap: z.number().int().min(1).max(6), inconsistentPairs: z.number().int().min(1).max(5) }),
      longRunLength: z.number().int().min(2),
      resumesAtLeast: z.number().int().positive(),
      failedUnderstandingTestsAtLeast: z.number().int().positive(),
    }),
    retentionYearsAfterPublication: z.number().int().positive(),
    /** Recruitment quotas (docs/running-a-study.md, "Running recruitment"); the dashboard may override the targets. */
    recruitment: recruitmentTargetsSchema
      .extend({
        /** A session with no stored answer for this long stops counting as in progress, so its place goes back. */
        abandonAfterMinutes: z.number().int().positive(),
      })
      .default({ overallTarget: null, cellTarget: null, cellTargets: {}, abandonAfterMinutes: 120 }),
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
  })
  .refine((c) => new Set(c.conditions.map((x) => x.name)).size === c.conditions.length, { message: 'every condition needs a name of its own' })
  .refine((c) => c.conditions.every((x) => x.shows !== 'explanation' || !x.alphaLevels || c.mainExperiment.numCases % x.alphaLevels.length === 0), {
    message: "mainExperiment.numCases must split evenly over every explanation condition's alphaLevels",
  })
  .superRefine((c, ctx) => {
    c.conditions.forEach((x, i) => {
      if (x.shows === 'none' || x.aiTiming === 'after_initial') return;
      for (const key of ['adviceOnRequest', 'adviceWaitSeconds'] as const) {
        if (x[key] === undefined || x[key] === false) continue;
        ctx.addIssue({
          code: 'custom',
          path: ['conditions', i, key],
          message: `condition ${x.name}: ${key} needs aiTiming "after_initial" (the advice is asked for, or waited for, after the participant's own initial judgement); this condition shows the AI with the case`,
        });
      }
    });
    c.conditions.forEach((x, i) => {
      if (x.shows === 'none' || x.aiAccuracy === undefined) return;
      const cases = x.aiAccuracy * c.mainExperiment.numCases;
      if (Math.abs(cases - Math.round(cases)) > 1e-9) {
        const step = 1 / c.mainExperiment.numCases;
        ctx.addIssue({
          code: 'custom',
          path: ['conditions', i, 'aiAccuracy'],
          message: `condition ${x.name}: aiAccuracy ${x.aiAccuracy} × mainExperiment.numCases ${c.mainExperiment.numCases} = ${Number(cases.toFixed(6))} cases; choose a share that gives whole cases (a multiple of ${Number(step.toFixed(6))}, e.g. ${Number((Math.floor(cases) * step).toFixed(6))} or ${Number((Math.ceil(cases) * step).toFixed(6))})`,
        });
      }
    });
  });

export type StudyConfig = z.infer<typeof studyConfigSchema>;
export type Condition = z.infer<typeof conditionSchema>;

/** A configuration as a session records it: its version (studyVersion + a digest of the whole) beside it. */
export type StudyConfigRecord = { version: string; studyVersion: string; config: StudyConfig };
