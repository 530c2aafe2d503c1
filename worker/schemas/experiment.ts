/**
 * Wire shapes of the participant journey (part 1 §3 and §7): sessions, dataset assignment,
 * cases, consent, pre-experiment answers, user-model training and resume.
 */
import { z } from 'zod';
import { freeText } from './free-text';
import { datasetTypeSchema, studyConfig } from './study';

/** Synthetic participants (the registration tools) are named test_… so nothing can mistake them for people. */
export const SYNTHETIC_NAME = /^test_[A-Za-z0-9_-]{1,40}$/;

/** A person's ID: 2–8 uppercase letters or digits, or `session_` + 2–192 letters, digits, `-`, `_` (10–200 in all). */
export const participantIdSchema = z
  .string()
  .max(200)
  .regex(/^(?:[A-Z0-9]{2,8}|session_[A-Za-z0-9_-]{2,192})$/, 'invalid session ID');

/**
 * A session ID a participant route takes: a person's, or a synthetic participant's test_ name
 * (the registration tools make those, and a researcher may walk one through the study's pages;
 * they stay out of the figures). Only the registration tools create a test_ session.
 */
export const sessionIdSchema = z
  .string()
  .max(200)
  .refine((id) => participantIdSchema.safeParse(id).success || SYNTHETIC_NAME.test(id), 'invalid session ID');

/**
 * A participant name to look up. An ID in a form the study stores (a session ID, or a synthetic
 * participant's test_ name) is taken exactly as given; anything else is read as the spec's clients
 * send what a participant typed: reduced to letters and digits, at most 50, upper-cased. Nothing
 * left is an error.
 */
export const participantNameSchema = z
  .string()
  .max(200)
  .transform((raw) => (sessionIdSchema.safeParse(raw).success || SYNTHETIC_NAME.test(raw) ? raw : raw.replace(/[^A-Za-z0-9]/g, '').slice(0, 50).toUpperCase()))
  .pipe(z.string().min(1, '参加者名には英数字のみを使用してください。'));

export const datasetCreatedBySchema = z.enum(['user_query_parameter', 'user_query_parameter_on_reload', 'system']);

/** Prolific's IDs are 24 hex digits today; letters, digits, _ and - up to 64 leave room for test values. */
const prolificIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Prolific parameters are letters, digits, _ or -, at most 64');

export const createSessionBodySchema = z.object({
  // A new participant's ID is stored exactly as given, so it must already be a valid session ID
  // (part 1 §3): rewriting `q` into `Q` would store a participant no later call accepts.
  participant_name: participantIdSchema,
  dataset_type: datasetTypeSchema,
  language: z.enum(['ja', 'en']).optional(),
  /** A new participant's ID must not exist yet; a clash answers 409 so the client draws another. */
  new_participant: z.boolean().optional(),
  /** The browser's ID for this creation request, so a resend after a lost answer is not a clash. */
  request_id: z
    .string()
    .regex(/^[A-Za-z0-9-]{16,64}$/, 'request_id must be 16 to 64 letters, digits or hyphens')
    .optional(),
  /** Prolific's URL parameters (PROLIFIC_PID, STUDY_ID, SESSION_ID), kept with the participant. */
  prolific_pid: prolificIdSchema.optional(),
  prolific_study_id: prolificIdSchema.optional(),
  prolific_session_id: prolificIdSchema.optional(),
});

/** What the completion, screen-out and withdrawal screens need of the Prolific loop; never the Prolific IDs. */
export const prolificStatusSchema = z.object({
  recruited_via_prolific: z.boolean(),
  completed: z.boolean(),
  screened_out: z.boolean(),
  /** Prolific's completion link with the study's code, once the participant has completed the study. */
  completion_url: z.string().nullable(),
  /** The screen-out link, once the participant has been screened out. */
  screen_out_url: z.string().nullable(),
  /** The link to return the study on Prolific (declined consent or withdrawal). */
  return_url: z.string().nullable(),
});

export const withdrawalBodySchema = z.object({
  participant_id: sessionIdSchema,
  /** The participant confirmed the dialog that lists what is deleted. */
  confirm: z.literal(true, { message: 'confirm must be true: withdrawal deletes every answer and cannot be undone' }),
});

export const withdrawalResultSchema = z.object({
  success: z.literal(true),
  withdrawn: z.literal(true),
  /** Prolific participants return the study with this link; null for everyone else. */
  return_url: z.string().nullable(),
});

export const sessionResponseSchema = z.object({
  success: z.literal(true),
  session_id: z.string(),
  user_id: z.number().int(),
  dataset_type: datasetTypeSchema,
  current_phase: z.string(),
  created: z.boolean(),
});

export const startQuerySchema = z.object({
  participant_name: participantNameSchema,
  experiment_type: z.enum(['pre_experiment', 'main_experiment']).default('pre_experiment'),
});

// Assigning a dataset comes before a new person's session: a person's ID only.
export const explicitAssignmentBodySchema = z.object({
  session_id: participantIdSchema,
  dataset_type: datasetTypeSchema,
  created_by: datasetCreatedBySchema,
});

export const balancedAssignmentBodySchema = z.object({ session_id: participantIdSchema });

export const assignmentStatisticsSchema = z.object({
  total: z.number().int(),
  datasets: z.record(
    z.string(),
    z.object({ assigned: z.number().int(), in_progress: z.number().int(), completed: z.number().int() }),
  ),
});

export const datasetTypeResponseSchema = z.object({ dataset_type: datasetTypeSchema, is_confirmed: z.boolean() });

export const caseSchema = z.object({
  case_id: z.string(),
  case_number: z.number().int(),
  dataset_type: datasetTypeSchema,
  features: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
});
export type ParticipantCase = z.infer<typeof caseSchema>;

export const caseIdParamSchema = z.object({ caseId: z.string().min(1).max(100).regex(/^[A-Za-z0-9_-]+$/, 'invalid case ID') });
export const sessionParamSchema = z.object({ sessionId: sessionIdSchema });

export const randomCaseSetQuerySchema = z.object({
  num_cases: z.coerce.number().int().min(1).max(50).default(studyConfig.defaultCaseSetSize),
  dataset_type: datasetTypeSchema.default(studyConfig.defaultDatasetType),
});

export const fixedCaseSetQuerySchema = z.object({
  experiment_type: z.enum(['pre_experiment', 'tutorial']).default('pre_experiment'),
  dataset_type: datasetTypeSchema.optional(),
  num_cases: z.coerce.number().int().min(1).max(studyConfig.preExperiment.numCases).default(studyConfig.defaultCaseSetSize),
  participant_id: sessionIdSchema.optional(),
});

export const caseSetResponseSchema = z.object({
  success: z.literal(true),
  case_set: z.array(caseSchema),
});

export const consentBodySchema = z.object({
  session_id: sessionIdSchema,
  user_id: z.number().int().positive().optional(),
  consent_items: z.record(z.string(), z.boolean()),
});

export const consentResponseSchema = z.object({
  success: z.literal(true),
  consent_id: z.number().int(),
  consented_at: z.string(),
  study_version: z.string(),
  duplicate: z.boolean(),
});

const prediction = z.union([z.literal(0), z.literal(1)]);
const confidence = z.number().int().min(studyConfig.confidence.min).max(studyConfig.confidence.max);
/** An answer taking longer than a day is a client clock error, not a judgement. */
const responseTimeMs = z.number().int().min(0).max(24 * 3600 * 1000);

/** The answer fields of one pre-experiment judgement. */
const preAnswerSchema = z.object({
  case_id: z.string().min(1).max(100),
  case_number: z.number().int().min(1).optional(),
  prediction,
  confidence,
  response_time_ms: responseTimeMs,
  reasoning: freeText(studyConfig.reasoningMaxLength).nullish(),
  // Sent by the spec's clients; the server uses its own case table instead.
  ground_truth: z.number().int().nullish(),
  case_data_json: z.unknown().optional(),
});
export type PreAnswer = z.infer<typeof preAnswerSchema>;

/**
 * One pre-experiment answer (part 1 §3). The case's features and ground truth come from the
 * server's case table; the client's copies are accepted and ignored.
 */
export const preResponseBodySchema = preAnswerSchema.extend({
  session_id: sessionIdSchema,
  user_id: z.number().int().optional(),
  user_name: z.string().max(200).optional(),
});

/** The final full send: every answer again, for the server to confirm it holds all of them. */
export const preResponseBatchBodySchema = z.object({
  session_id: sessionIdSchema,
  responses: z.array(preAnswerSchema).min(1).max(studyConfig.preExperiment.numCases),
});

export const preResponseResultSchema = z.object({
  success: z.literal(true),
  duplicate: z.boolean(),
  message: z.string(),
  /** Answers stored for the session after this call. */
  total_responses: z.number().int(),
});

export const preBatchResultSchema = z.object({
  success: z.literal(true),
  stored: z.number().int(),
  duplicates: z.number().int(),
  total_responses: z.number().int(),
  complete: z.boolean(),
});

export const userModelTrainBodySchema = z.object({
  session_id: sessionIdSchema,
  dataset_type: datasetTypeSchema.optional(),
  force_retrain: z.boolean().optional(),
});

export const userIdParamSchema = z.object({ userId: z.coerce.number().int().positive() });
export const forceRetrainQuerySchema = z.object({
  force_retrain: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
});

export const userModelTrainResultSchema = z.object({
  success: z.boolean(),
  status: z.enum(['trained', 'insufficient_data', 'training_failed']),
  model_identifier: z.string().nullable(),
  session_id: z.string(),
  dataset_type: datasetTypeSchema,
  training_samples: z.number().int(),
  message: z.string(),
  result: z.object({ message: z.string() }),
});

export const participantNameBodySchema = z.object({ participant_name: participantNameSchema });

export const checkExistingResponseSchema = z.object({
  exists: z.boolean(),
  canResume: z.boolean(),
  preExperimentCount: z.number().int(),
  mainExperimentCount: z.number().int(),
  userId: z.number().int().nullable(),
  isCompleted: z.boolean(),
  /** Screened out after the understanding test: there is nothing left to continue. */
  isScreenedOut: z.boolean(),
  integrityError: z.boolean(),
});

export type CheckExistingResponse = z.infer<typeof checkExistingResponseSchema>;

/**
 * `give_consent`: the participant never consented, so every answer would be refused; consent comes
 * first. `screened_out`: a Prolific participant screened out by the understanding test; nothing
 * more is accepted, and they belong on the screen-out page.
 */
export const resumeActionSchema = z.enum(['give_consent', 'resume_pre_experiment', 'start_main_experiment', 'start_post_survey', 'completed', 'screened_out']);

export const resumeDataSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  sessionId: z.string(),
  participantName: z.string(),
  userId: z.number().int(),
  currentPhase: z.enum(['consent', 'pre_experiment', 'main_experiment', 'completed']),
  action: resumeActionSchema,
  nextCaseNumber: z.number().int(),
  preExperimentCount: z.number().int(),
  mainExperimentCount: z.number().int(),
  remainingCases: z.number().int(),
  caseSet: z.array(caseSchema),
  existingResponses: z.array(
    z.object({ case_id: z.string(), case_number: z.number().int(), prediction: z.number().int(), confidence: z.number().int() }),
  ),
  isMainExperimentCompleted: z.boolean(),
  isPostSurveyCompleted: z.boolean(),
  integrityError: z.boolean(),
  integrityMessage: z.string().nullable(),
  confirmedDatasetType: datasetTypeSchema,
  userModelTrained: z.boolean(),
  resume_url: z.string(),
});
export type ResumeData = z.infer<typeof resumeDataSchema>;

export const sessionInfoSchema = z.object({
  session_id: z.string(),
  user_id: z.number().int(),
  dataset_type: datasetTypeSchema,
  current_phase: z.string(),
  pre_experiment_count: z.number().int(),
  main_experiment_count: z.number().int(),
  consented: z.boolean(),
  user_model_status: z.enum(['trained', 'training_failed', 'not_trained']),
  created_at: z.string(),
});

export const sessionDetailsSchema = z.object({
  success: z.literal(true),
  dataset_type: datasetTypeSchema,
  dataset_display_name: z.string(),
  task_description: z.string(),
});
