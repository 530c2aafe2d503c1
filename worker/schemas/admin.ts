import { z } from 'zod';
import { SYNTHETIC_NAME } from './experiment';
import { QUALITY_FLAGS } from './quality-flags';
import { MEASURES } from './measures';
import { datasetTypeSchema, studyConfig } from './study';
import { ADMIN_ROLES } from './admin-roles';

/** What a completed case showed, as the figures group them (the AI's explanation kinds, and no AI). */
export const SHOWN_KINDS = ['human_aligned', 'ai_explanation', 'ai_only', 'prediction_only', 'no_ai'] as const;

export const adminLoginBodySchema = z.object({
  password: z.string().min(1, 'password is required').max(512),
});

export const adminSessionResponseSchema = z.object({
  authenticated: z.boolean(),
  expires_at: z.string().nullable(),
  /** The role the session acts in (absent when not signed in). */
  role: z.enum(ADMIN_ROLES).optional(),
});
export type AdminSessionResponse = z.infer<typeof adminSessionResponseSchema>;

export const paginationQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export const auditLogResponseSchema = z.object({
  total: z.number().int(),
  entries: z.array(
    z.object({
      id: z.number().int(),
      actor: z.string(),
      action: z.string(),
      target_type: z.string().nullable(),
      target_id: z.string().nullable(),
      details: z.record(z.string(), z.unknown()).nullable(),
      ip_address: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
});
export type AuditLogResponse = z.infer<typeof auditLogResponseSchema>;

/** `GET /api/admin/active?minutes=`: sessions with activity in the last minutes (1–1,440, 15 by default). */
export const activeQuerySchema = z.object({ minutes: z.coerce.number().int().min(1).max(1440).default(15) });
export const activeSessionsSchema = z.object({
  minutes: z.number().int(),
  sessions: z.array(
    z.object({
      username: z.string(),
      origin: z.string(),
      dataset_type: z.string(),
      phase: z.string(),
      pre_answers: z.number().int(),
      main_answers: z.number().int(),
      last_activity: z.string(),
    }),
  ),
});

const experimentTypeSchema = z.enum(['pre_experiment', 'main_experiment']);
const participantCodeFilter = z.string().trim().min(1).max(200);
export { PAGE_SIZES } from './admin-constants';

export const userListQuerySchema = paginationQuerySchema.extend({
  user_name: participantCodeFilter.optional(),
  /** Only participants carrying this data-quality flag (`any`: at least one). */
  flag: z.enum([...QUALITY_FLAGS, 'any']).optional(),
});
export const responseListQuerySchema = paginationQuerySchema.extend({
  experiment_type: experimentTypeSchema.optional(),
  user_name: participantCodeFilter.optional(),
  session_id: z.string().min(1).max(200).optional(),
  case_id: z.string().min(1).max(200).optional(),
});
export const responseDeleteQuerySchema = z.object({ experiment_type: experimentTypeSchema });
export const numericIdParamSchema = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
export const confirmDeletionQuerySchema = z.object({
  confirm_deletion: z.literal('true', { error: 'confirm_deletion=true is required to delete' }),
});
/** `excel`: the CSV with a UTF-8 byte-order mark, for opening in Excel. */
export const consentExportQuerySchema = z.object({ format: z.enum(['csv', 'excel', 'json']).default('csv') });

export const adminUserSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string().nullable(),
  /** The platform never asks participants for an e-mail address (anonymous study). */
  email: z.null(),
  is_active: z.boolean(),
  is_test: z.boolean(),
  origin: z.enum(['participant', 'admin_synthetic']),
  created_at: z.string(),
  session_id: z.string().nullable(),
  dataset_type: z.string().nullable(),
  current_phase: z.string().nullable(),
  consented: z.boolean(),
  pre_experiment_count: z.number().int(),
  main_experiment_count: z.number().int(),
  post_survey_completed: z.boolean(),
  /** Arrived with Prolific's URL parameters (the IDs themselves are in the exports only). */
  recruited_via_prolific: z.boolean(),
  screened_out: z.boolean(),
  study_config_version: z.string().nullable(),
  quality_flags: z.array(z.enum(QUALITY_FLAGS)),
  /** The session's last answer (or its start, or consent); null without a session. */
  last_activity_at: z.string().nullable(),
  /** For recruitment: abandoned = no answer for the study's time-out, so its place went back. */
  place: z.enum(['completed', 'screened_out', 'in_progress', 'abandoned']).nullable(),
});
export const usersResponseSchema = z.object({ total: z.number().int(), users: z.array(adminUserSchema) });

export const adminSessionSchema = z.object({
  id: z.number().int(),
  session_id: z.string(),
  user_id: z.number().int(),
  user_name: z.string(),
  dataset_type: z.string(),
  current_phase: z.string(),
  language: z.string(),
  consented_at: z.string().nullable(),
  pre_completed_at: z.string().nullable(),
  main_started_at: z.string().nullable(),
  main_completed_at: z.string().nullable(),
  post_survey_completed_at: z.string().nullable(),
  created_at: z.string(),
});
export const sessionsResponseSchema = z.object({ total: z.number().int(), sessions: z.array(adminSessionSchema) });

/** Part 2 §3 "Response (admin)": both phases in one shape, main-only fields null for pre answers. */
export const adminResponseSchema = z.object({
  id: z.number().int(),
  user: z.string(),
  user_id: z.number().int(),
  user_name: z.string(),
  session_id: z.string(),
  experiment_type: experimentTypeSchema,
  task_name: z.string(),
  dataset_type: z.string(),
  case_id: z.string(),
  case_number: z.number().int(),
  prediction: z.number().int().nullable(),
  confidence: z.number().int().nullable(),
  ground_truth: z.number().int(),
  is_correct: z.boolean().nullable(),
  response_time_ms: z.number().int().nullable(),
  created_at: z.string(),
  completed: z.boolean(),
  response_metadata: z.record(z.string(), z.unknown()),
  case_data_json: z.string().nullable(),
  initial_prediction: z.number().int().nullable(),
  initial_confidence: z.number().int().nullable(),
  initial_correct: z.boolean().nullable(),
  final_prediction: z.number().int().nullable(),
  final_confidence: z.number().int().nullable(),
  judgment_changed: z.boolean().nullable(),
  ai_prediction: z.number().int().nullable(),
  alignment_alpha: z.number().nullable(),
});
export const responsesResponseSchema = z.object({ total: z.number().int(), responses: z.array(adminResponseSchema) });

export const adminStatsSchema = z.object({
  /** Rows the Users, pre- and main-experiment tabs list (everyone, whatever the population of the figures): the tabs' labels count these. */
  listed: z.object({ users: z.number().int(), pre_experiment_responses: z.number().int(), main_experiment_responses: z.number().int() }),
  total_users: z.number().int(),
  total_responses: z.number().int(),
  pre_experiment_responses: z.number().int(),
  main_experiment_responses: z.number().int(),
  responses_today: z.number().int(),
  responses_this_week: z.number().int(),
  /** Participants who withdrew (their data is gone; only the count and times remain). */
  withdrawals: z.number().int(),
  /** Prolific participants screened out after the understanding test. */
  screened_out: z.number().int(),
  /** Sessions by the furthest step they reached, in study order. */
  funnel: z.array(z.object({ step: z.enum(['created', 'consented', 'pre_completed', 'main_started', 'main_completed', 'completed']), sessions: z.number().int() })),
  dataset_balance: z.array(z.object({ dataset_type: z.string(), sessions: z.number().int() })),
  /** Whether synthetic participants and bypassed sessions are counted in these figures. */
  include_synthetic: z.boolean(),
  /** Whether only participants who finished the study are counted (false, the default: everyone with data). */
  completed_only: z.boolean(),
  /** Sessions whose main experiment started, per between-subject condition. */
  condition_balance: z.array(z.object({ condition: z.string(), sessions: z.number().int() })),
  /** Completed cases per condition by what they showed: each alpha of the human-aligned explanations, the AI-only fallbacks, the prediction alone, no AI. */
  by_alpha: z.array(
    z.object({
      condition: z.string(),
      explanation_kind: z.enum(SHOWN_KINDS),
      alignment_alpha: z.number().nullable(),
      cases: z.number().int(),
      /** Cases with an initial judgement: the denominator of the change rate and the initial accuracy. */
      cases_with_initial: z.number().int(),
      judgment_change_rate: z.number().nullable(),
      initial_accuracy: z.number().nullable(),
      final_accuracy: z.number().nullable(),
    }),
  ),
});

const phaseStatisticsSchema = z.object({
  total_responses: z.number().int(),
  unique_users: z.number().int(),
  /** judgment_changes ÷ judgment_change_trials: final ≠ initial among trials with the AI shown after an initial judgement. */
  judgment_change_rate: z.number().nullable(),
  judgment_change_trials: z.number().int(),
  judgment_changes: z.number().int(),
  /**
   * Completed cases per alpha of the human-aligned explanation shown, keyed by the alpha as written
   * in the configuration; the other kinds under their own names (`ai_explanation` the AI's own by
   * design, `ai_only` the fallback, `prediction_only`, `no_ai`).
   */
  alignment_distribution: z.record(z.string(), z.number().int()),
});
export const experimentStatisticsSchema = z.object({
  include_synthetic: z.boolean(),
  completed_only: z.boolean(),
  pre_experiment: phaseStatisticsSchema,
  main_experiment: phaseStatisticsSchema,
  /** The main experiment's figures per between-subject condition (the conditions are never pooled there). */
  main_by_condition: z.array(phaseStatisticsSchema.extend({ condition: z.string() })),
  last_updated: z.string(),
});

export const consentRecordSchema = z.object({
  id: z.number().int(),
  user: z.string(),
  user_id: z.number().int(),
  session_id: z.string(),
  study_version: z.string(),
  consent_items: z.record(z.string(), z.boolean()),
  consented_at: z.string(),
  ip_address: z.string().nullable(),
});
export const consentRecordsResponseSchema = z.object({ total: z.number().int(), consent_records: z.array(consentRecordSchema) });

export const adminPostSurveySchema = z.object({
  id: z.number().int(),
  user: z.string(),
  user_id: z.number().int(),
  session_id: z.string(),
  experiment_rating: z.number().int().nullable(),
  overall_feedback: z.string().nullable(),
  has_demographics: z.boolean(),
  has_personality_traits: z.boolean(),
  has_ai_literacy: z.boolean(),
  has_ethics_responses: z.boolean(),
  scores: z.record(z.string(), z.number().nullable()),
  sections: z.record(z.string(), z.record(z.string(), z.unknown())),
  created_at: z.string(),
});
export const postSurveysResponseSchema = z.object({ total: z.number().int(), post_surveys: z.array(adminPostSurveySchema) });

export const participantDeletionSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  user_id: z.number().int(),
  username: z.string(),
  deleted: z.record(z.string(), z.number().int()),
  deleted_model_files: z.number().int(),
});
export const rowDeletionSchema = z.object({ success: z.literal(true), message: z.string(), id: z.number().int() });

export const cleanupAllResultSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  total_database_records: z.number().int(),
  deleted_model_files: z.number().int(),
  localStorage_keys_to_clear: z.array(z.string()),
});
export const cleanupModelFilesResultSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  deleted_files: z.number().int(),
  deleted_db_records: z.number().int(),
});

const syntheticName = z.string().regex(SYNTHETIC_NAME, 'participant_name must start with test_ followed by 1–40 letters, digits, _ or -');
const rate01 = z.coerce.number().min(0).max(1);

export const registerUserResponsesQuerySchema = z.object({
  participant_name: syntheticName,
  experiment_type: z.literal('pre_experiment').default('pre_experiment'),
  dataset_type: datasetTypeSchema,
  num_responses: z.coerce.number().int().min(1).max(200).default(200),
  accuracy_rate: rate01.default(0.7),
  /** Shifts confidence from the scale's middle (3): −2 always unsure … +2 always sure. */
  confidence_bias: z.coerce.number().min(-2).max(2).default(0),
  use_fixed_case_set: z.enum(['true']).default('true'),
});
/** The registration tools' dataset check (part 2 §2.6): may this name be registered with this dataset? */
export const datasetConsistencyQuerySchema = z.object({ participant_name: syntheticName, dataset_type: datasetTypeSchema });
export const datasetConsistencyResponseSchema = z.object({
  /** success: registered with this dataset; mismatch: with another (registration is refused); new_user: not registered yet. */
  state: z.enum(['success', 'mismatch', 'new_user']),
  stored_dataset_type: datasetTypeSchema.nullable(),
});

export const registerMainResponsesQuerySchema = z.object({
  participant_name: syntheticName,
  dataset_type: datasetTypeSchema,
  num_responses: z.coerce.number().int().min(1).max(50).default(50),
  accuracy_rate: rate01.default(0.7),
  /** One alpha for every case; left out (or left empty in the form) the session's counterbalanced schedule applies. */
  ai_alignment_alpha: z.preprocess((v) => (v === '' ? undefined : v), rate01.optional()),
  /** The between-subject condition to register under (study configuration conditions[].name); left out, it is drawn as for a person. */
  condition: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .refine((name) => studyConfig.conditions.some((c) => c.name === name), { error: () => `unknown condition; expected one of ${studyConfig.conditions.map((c) => c.name).join(', ')}` })
      .optional(),
  ),
});

export const registerUserResponsesResultSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  user_id: z.number().int(),
  session_id: z.string(),
  experiment_stats: z.object({ total_responses: z.number().int(), accuracy_rate: z.number(), avg_response_time: z.number() }),
  case_set_info: z.object({ case_set: z.literal('fixed'), positive_cases: z.number().int(), negative_cases: z.number().int(), message: z.string() }),
  next_steps: z.object({ can_train_user_model: z.boolean(), can_resume_experiment: z.boolean() }),
});
export const registerMainResponsesResultSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  registered_cases: z.number().int(),
  /** Share of the registered initial judgements that are correct: the accuracy asked for, as it came out. */
  realised_accuracy_rate: z.number(),
  user_id: z.number().int(),
  session_id: z.string(),
  case_details: z.array(
    z.object({
      case_number: z.number().int(),
      case_id: z.string(),
      original_case_id: z.string(),
      /** Null where the condition asks one judgement only. */
      initial_prediction: z.number().int().nullable(),
      initial_confidence: z.number().int().nullable(),
      final_prediction: z.number().int(),
      final_confidence: z.number().int(),
      /** Mean of the per-case questions the condition asks; null where it asks none. */
      avg_subjective_rating: z.number().nullable(),
    }),
  ),
  /** The condition the participant is registered under. */
  condition: z.string(),
});

/** The running study configuration, read-only, and every configuration sessions have run under. */
export const studyConfigResponseSchema = z.object({
  version: z.string(),
  study_version: z.string(),
  config: z.record(z.string(), z.unknown()),
  recorded: z.array(
    z.object({ version: z.string(), study_version: z.string(), recorded_at: z.string(), sessions: z.number().int(), current: z.boolean() }),
  ),
});

/** A `true` / `false` query flag, false when left out. */
export const queryFlag = z.enum(['true', 'false']).default('false').transform((v) => v === 'true');

/**
 * Whom a research figure counts: by default every participant with data, finished or not, but not
 * the synthetic participants (registration tools, `test_` IDs) nor sessions whose main experiment
 * started through a debug or tutorial bypass. `completed_only`: only those who finished the study.
 */
export const populationQuerySchema = z.object({ include_synthetic: queryFlag, completed_only: queryFlag });

/** The reliance tab's participant table sorts by these: the ID, the name, the trials or a measure. */
export const RELIANCE_PARTICIPANT_COLUMNS = ['user_id', 'user_name', 'trials', ...MEASURES.map((m) => m.id)] as [string, ...string[]];

export const relianceQuerySchema = populationQuerySchema.extend({
  /** Leave participants with any data-quality flag out of the group figures (they stay in the table). */
  exclude_flagged: queryFlag,
  /** The participant table's page: at most `participants_limit` rows from `participants_offset`, in the order asked for (undefined values last). */
  participants_offset: z.coerce.number().int().min(0).default(0),
  participants_limit: z.coerce.number().int().min(1).max(1000).default(100),
  participants_sort: z.enum(RELIANCE_PARTICIPANT_COLUMNS).default('user_id'),
  participants_direction: z.enum(['ascending', 'descending']).default('ascending'),
});

/** POST /api/admin/export-jobs: the all-data export, written in steps by a Workflow. */
export const exportJobBodySchema = z
  .object({
    format: z.enum(['csv', 'tsv', 'excel']).default('csv'),
    user_name: z.string().trim().min(1).max(200).optional(),
    exclude_flagged: z.boolean().default(false),
    include_synthetic: z.boolean().default(false),
    completed_only: z.boolean().default(false),
  })
  .strict();
export const exportJobIdSchema = z.object({ id: z.uuid() });

/** An export job as the dashboard shows it: how far it got, and its file once complete. */
export const exportJobViewSchema = z.object({
  id: z.string(),
  kind: z.enum(['all_data', 'backup']),
  format: z.enum(['csv', 'tsv', 'excel']),
  user_name: z.string().nullable(),
  status: z.enum(['running', 'completed', 'failed']),
  /** Running, but no step has moved it on for EXPORT_STALLED_MINUTES: it may be resumed like a stopped one. */
  stalled: z.boolean(),
  file_name: z.string(),
  /** Files of the zip written whole, of `files_total`. */
  files_done: z.number().int(),
  files_total: z.number().int(),
  /** The file being written now (null once complete). */
  current_file: z.string().nullable(),
  rows: z.number().int(),
  bytes: z.number().int(),
  steps: z.number().int(),
  longest_step_ms: z.number().int(),
  failed_attempts: z.number().int(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  completed_at: z.string().nullable(),
});
export const exportJobsResponseSchema = z.object({ jobs: z.array(exportJobViewSchema) });
