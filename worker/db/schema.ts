/**
 * The whole study's D1 schema. Every table a later feature needs is here so features only add
 * queries and routes. Times are ISO-8601 UTC strings written by the Worker (one clock for the
 * whole study; D1's CURRENT_TIMESTAMP lacks the `T`/`Z` that browsers parse reliably).
 *
 * Idempotency lives in UNIQUE constraints: every write a participant's browser may retry
 * (answers, consent, surveys) targets a natural key, so a repeat becomes "already stored".
 */
import { sql } from 'drizzle-orm';
import {
  check,
  customType,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';
import { EXPLANATION_KINDS, LANGUAGES, type DatasetType, type RecruitmentTargets } from '../schemas/study';
import { ADMIN_ROLES } from '../schemas/admin-roles';
import { featureBars, modelBars, serveBars } from './feature-bars';

/** A dataset's id (a definition of ml-assets/datasets/; checked where it comes in). */
const datasetTypeColumn = () => text('dataset_type').$type<DatasetType>().notNull();

const timestamps = {
  createdAt: text('created_at').notNull(),
};

/**
 * One anonymous participant. `id` is the numeric user id the spec's payloads call `user_id`:
 * assigned by SQLite, so two participants can never share it (the original hashed the ID into
 * 1..999999, which collides).
 */
export const participants = sqliteTable(
  'participants',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The 8-character participant ID (or a legacy `session_…` id) shown to and typed by the person. */
    participantCode: text('participant_code').notNull(),
    displayName: text('display_name'),
    /** `participant` for real people, `admin_synthetic` for rows the admin registration tools create. */
    origin: text('origin', { enum: ['participant', 'admin_synthetic'] })
      .notNull()
      .default('participant'),
    language: text('language', { enum: LANGUAGES }).notNull().default('ja'),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
    prolificPid: text('prolific_pid'),
    prolificStudyId: text('prolific_study_id'),
    prolificSessionId: text('prolific_session_id'),
    ...timestamps,
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    // Entry, resume and every per-participant call look participants up by the typed code.
    uniqueIndex('participants_code_uq').on(t.participantCode),
    // Admin lists are newest first.
    index('participants_created_idx').on(t.createdAt),
  ],
);

/**
 * Which dataset a participant ID is bound to. Created before the session exists (the entry page
 * asks for it while the ID is still only generated), hence keyed by the session id string.
 */
export const datasetAssignments = sqliteTable(
  'dataset_assignments',
  {
    sessionId: text('session_id').primaryKey(),
    datasetType: datasetTypeColumn(),
    createdBy: text('created_by', {
      enum: ['user_query_parameter', 'user_query_parameter_on_reload', 'system', 'balanced', 'admin'],
    }).notNull(),
    isConfirmed: integer('is_confirmed', { mode: 'boolean' }).notNull().default(false),
    ...timestamps,
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    // Balanced assignment counts assignments per dataset on every new participant.
    index('dataset_assignments_dataset_idx').on(t.datasetType),
  ],
);

/** An experiment session of one participant; its phase timestamps drive resume. */
export const sessions = sqliteTable(
  'sessions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionId: text('session_id').notNull(),
    participantId: integer('participant_id')
      .notNull()
      .references(() => participants.id, { onDelete: 'cascade' }),
    datasetType: datasetTypeColumn(),
    currentPhase: text('current_phase', {
      enum: ['consent', 'pre_experiment', 'main_experiment', 'post_survey', 'completed'],
    })
      .notNull()
      .default('consent'),
    language: text('language', { enum: LANGUAGES }).notNull().default('ja'),
    consentedAt: text('consented_at'),
    preCompletedAt: text('pre_completed_at'),
    mainStartedAt: text('main_started_at'),
    mainCompletedAt: text('main_completed_at'),
    postSurveyCompletedAt: text('post_survey_completed_at'),
    ...timestamps,
    updatedAt: text('updated_at').notNull(),
    /**
     * The browser's ID for the request that created the participant: the same request sent again
     * (its answer was lost) is told it created the participant, a different one gets 409.
     */
    creationRequestId: text('creation_request_id'),
    /**
     * The AI model version this session's main experiment explains with, fixed when it starts, so
     * a retrain in the middle of a participant's study never changes the AI they see.
     */
    aiModelIdentifier: text('ai_model_identifier'),
    /** The study configuration the session runs under (`study_configurations.version`), fixed when it is created. */
    studyConfigVersion: text('study_config_version'),
    /** When a Prolific participant was screened out (failed the understanding test too often); null otherwise. */
    screenedOutAt: text('screened_out_at'),
    /** How often the participant's progress was fetched to continue (each return to the study); a data-quality signal. */
    resumeCount: integer('resume_count').notNull().default(0),
    /**
     * The participant's own code, drawn when the post-survey is stored and shown with the study's
     * completion code, so each submission on the recruiting platform matches one completed session.
     */
    completionVerificationCode: text('completion_verification_code'),
    /**
     * How the main experiment was entered when it started without the pre-experiment: through the
     * `debug` or `tutorial` bypass (null for the ordinary start). Such sessions are left out of the
     * research figures by default.
     */
    mainStartBypass: text('main_start_bypass', { enum: ['debug', 'tutorial'] }),
    /**
     * The between-subject condition (the study configuration's `conditions[].name`), drawn when
     * the main experiment starts, balanced within the dataset, and never changed; null before.
     */
    condition: text('condition'),
    /** When the completion page was first given the condition's debrief (a stated accuracy that was not the measured one); null: never. */
    debriefServedAt: text('debrief_served_at'),
    /**
     * The condition's incentive as the Worker worked it out from the stored trials when the
     * participant finished (null without one): the base payment and the bonus in cents of the
     * currency, the correct judgements it counted, and when it was worked out and marked paid.
     */
    bonusCurrency: text('bonus_currency'),
    bonusBaseCents: integer('bonus_base_cents'),
    bonusCents: integer('bonus_cents'),
    bonusCorrectFinal: integer('bonus_correct_final'),
    bonusCorrectPre: integer('bonus_correct_pre'),
    bonusComputedAt: text('bonus_computed_at'),
    bonusPaidAt: text('bonus_paid_at'),
  },
  (t) => [
    // Every participant call resolves the session by its string id.
    uniqueIndex('sessions_session_id_uq').on(t.sessionId),
    // Condition assignment counts a dataset's sessions per condition.
    index('sessions_dataset_condition_idx').on(t.datasetType, t.condition),
    // Resume and admin deletion walk a participant's sessions.
    index('sessions_participant_idx').on(t.participantId),
  ],
);

/** One signed consent: the seven items exactly as ticked, with the study version they refer to. */
export const consentRecords = sqliteTable(
  'consent_records',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    participantId: integer('participant_id')
      .notNull()
      .references(() => participants.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    studyVersion: text('study_version').notNull(),
    /** JSON object of the seven item ids to booleans. */
    consentItems: text('consent_items', { mode: 'json' }).$type<Record<string, boolean>>().notNull(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    consentedAt: text('consented_at').notNull(),
  },
  (t) => [
    // A re-sent consent for the same version is the same consent.
    uniqueIndex('consent_session_version_uq').on(t.sessionId, t.studyVersion),
    index('consent_participant_idx').on(t.participantId),
    index('consent_consented_idx').on(t.consentedAt),
  ],
);

/**
 * Experiment cases, generated from the held-out split of each dataset at set-up and seeded by the
 * seed step. `features` holds only the spec's feature fields: no names, birth dates or case numbers.
 */
export const cases = sqliteTable(
  'cases',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    caseId: text('case_id').notNull(),
    datasetType: datasetTypeColumn(),
    pool: text('pool', { enum: ['tutorial', 'pre_experiment', 'main_experiment'] }).notNull(),
    /** Main-experiment pools are lettered (a, b, …) so sessions can be given different fixed sets. */
    poolVariant: text('pool_variant'),
    caseNumber: integer('case_number').notNull(),
    features: text('features', { mode: 'json' }).$type<Record<string, string | number | null>>().notNull(),
    groundTruth: integer('ground_truth').notNull(),
    /**
     * Index of the case's row among the rows the set-up reads from the dataset's files (all of them,
     * in file order; the case itself is from the held-out split); traces a case without PII.
     */
    sourceRow: integer('source_row'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('cases_case_id_uq').on(t.caseId),
    // Case sets are drawn per dataset and pool (and variant) in case-number order.
    index('cases_pool_idx').on(t.datasetType, t.pool, t.poolVariant, t.caseNumber),
    check('cases_ground_truth_ck', sql`${t.groundTruth} in (0, 1)`),
  ],
);

/** How a case set's phase is stored: it is in the row and in both indexes of 250 rows per participant (issue #45). */
export const STORED_CASE_PHASE = { pre_experiment: 'pre', main_experiment: 'main' } as const;
type CasePhase = keyof typeof STORED_CASE_PHASE;
/** A case set's phase, stored short (`STORED_CASE_PHASE`, migration 0025) and read by its name. */
const casePhase = customType<{ data: CasePhase; driverData: string }>({
  dataType: () => 'text',
  toDriver: (phase) => STORED_CASE_PHASE[phase],
  fromDriver: (stored) => {
    const phase = (Object.keys(STORED_CASE_PHASE) as CasePhase[]).find((p) => STORED_CASE_PHASE[p] === stored);
    if (!phase) throw new Error(`case_set_items.phase holds ${JSON.stringify(stored)}`);
    return phase;
  },
});

/** The ordered cases of one session and phase; stored so the order survives resume. */
export const caseSetItems = sqliteTable(
  'case_set_items',
  {
    sessionId: text('session_id').notNull(),
    phase: casePhase('phase').notNull(),
    position: integer('position').notNull(),
    caseId: text('case_id').notNull(),
    /** Main phase only: the alignment alpha fixed for this case when the set was drawn. */
    alignmentAlpha: real('alignment_alpha'),
  },
  (t) => [
    // The only index (issue #45): a set's draw is seeded by its session, so a retried draw stores the
    // same case at each position and inserts nothing. A case is found in its set through this
    // index's session and phase, among at most 200 rows; the set's drawing keeps its cases distinct.
    // Its rows keep no time of their own (none was read or exported); the session records when each phase began.
    // The table is WITHOUT ROWID (migration 0029; drizzle-kit cannot say so, so a migration that
    // rebuilds it must): its rows are kept in this key alone, with no second copy in an index.
    primaryKey({ columns: [t.sessionId, t.phase, t.position] }),
  ],
);

/** One pre-experiment judgement: the participant alone, prediction plus confidence. */
export const preExperimentResponses = sqliteTable(
  'pre_experiment_responses',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    participantId: integer('participant_id')
      .notNull()
      .references(() => participants.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    datasetType: datasetTypeColumn(),
    caseId: text('case_id').notNull(),
    caseNumber: integer('case_number').notNull(),
    prediction: integer('prediction').notNull(),
    confidence: integer('confidence').notNull(),
    responseTimeMs: integer('response_time_ms').notNull(),
    reasoning: text('reasoning'),
    groundTruth: integer('ground_truth').notNull(),
    /**
     * The case as shown, when it is not the case's own stored row: null for every answer stored
     * since issue #45 (the case is `case_id` in `cases`, which is never rewritten); a copy kept
     * only where an older answer's differs from it.
     */
    caseData: text('case_data', { mode: 'json' }).$type<Record<string, unknown>>(),
    ...timestamps,
  },
  (t) => [
    // The phase is the table: session + case is the spec's per-phase uniqueness, so retries of the
    // per-case send and the final full send never store an answer twice.
    uniqueIndex('pre_responses_session_case_uq').on(t.sessionId, t.caseId),
    index('pre_responses_participant_idx').on(t.participantId),
    // The dashboard counts the answers since a moment (today, the last seven days), and lists the
    // answers newest first, through this index: on the time as a Julian day number (8 bytes, where
    // the text takes 24), which orders stored times exactly as their text does (issue #45).
    index('pre_responses_created_idx').on(sql`julianday(${t.createdAt})`),
    check('pre_prediction_ck', sql`${t.prediction} in (0, 1)`),
    check('pre_confidence_ck', sql`${t.confidence} between 1 and 5`),
  ],
);

/**
 * One main-experiment case: initial judgement, the AI explanation shown, final judgement and the
 * five-item survey (part 2 §3 "integrated case response"). Step saves may fill it progressively;
 * `completedAt` marks the integrated response, which is what counts towards the 50.
 */
export const mainExperimentResponses = sqliteTable(
  'main_experiment_responses',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    participantId: integer('participant_id')
      .notNull()
      .references(() => participants.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    datasetType: datasetTypeColumn(),
    caseId: text('case_id').notNull(),
    caseNumber: integer('case_number').notNull(),
    groundTruth: integer('ground_truth').notNull(),
    initialPrediction: integer('initial_prediction'),
    initialConfidence: integer('initial_confidence'),
    initialResponseTimeMs: integer('initial_response_time_ms'),
    initialReasoning: text('initial_reasoning'),
    finalPrediction: integer('final_prediction'),
    finalConfidence: integer('final_confidence'),
    finalResponseTimeMs: integer('final_response_time_ms'),
    finalReasoning: text('final_reasoning'),
    aiPrediction: integer('ai_prediction'),
    alignmentAlpha: real('alignment_alpha'),
    aiModelPrediction: integer('ai_model_prediction'),
    userModelPrediction: integer('user_model_prediction'),
    /**
     * The AI side's bars: null when the trial names its serve (`served_explanation_id`), whose bars
     * they are; `[]` when the condition shows no AI; the trial's own only for one stored before
     * serves were recorded.
     */
    aiFeatureImportance: modelBars('ai_feature_importance'),
    userFeatureImportance: modelBars('user_feature_importance'),
    comprehensibility: integer('comprehensibility'),
    transparency: integer('transparency'),
    satisfaction: integer('satisfaction'),
    trust: integer('trust'),
    alignment: integer('alignment'),
    /** As the pre-experiment's: null unless an older trial's copy differs from the case's stored row. */
    caseData: text('case_data', { mode: 'json' }).$type<Record<string, unknown>>(),
    explanationViewingTimeMs: integer('explanation_viewing_time_ms'),
    totalTaskTimeMs: integer('total_task_time_ms'),
    /** What was shown of the AI: the alpha mix (`human_aligned`), the AI's own (`ai_only`), or its prediction alone (`prediction_only`); null when the condition shows no AI. */
    explanationKind: text('explanation_kind', { enum: EXPLANATION_KINDS }),
    aiModelIdentifier: text('ai_model_identifier'),
    userModelIdentifier: text('user_model_identifier'),
    aiProbability: real('ai_probability'),
    userModelProbability: real('user_model_probability'),
    /** The bars shown, exactly as the participant saw them, so the screen can be replayed: the serve's, as the AI side's bars are. */
    shownFeatureImportance: featureBars('shown_feature_importance'),
    /**
     * Whether the bars shown, summed with their signs, lean toward the label the AI predicted
     * (computed by the server when the case is stored; null without bars): shares have no starting
     * point, so an explanation can lean against its own prediction.
     */
    shownLeansWithAi: integer('shown_leans_with_ai', { mode: 'boolean' }),
    /** The AI's base rate and probability were shown with its bars (study configuration showAiBaseline), derived from the serve; null without AI. */
    aiBaselineShown: integer('ai_baseline_shown', { mode: 'boolean' }),
    /** The AI's confidence (its probability for the class it predicts) was shown with its prediction (the condition's aiConfidence), from the serve; null without AI. */
    aiConfidenceShown: integer('ai_confidence_shown', { mode: 'boolean' }),
    ...timestamps,
    updatedAt: text('updated_at').notNull(),
    completedAt: text('completed_at'),
    /** The serve (`served_explanations.id`) the AI side of this trial was stored from; null when the condition shows no AI, or for a trial stored before serves were recorded. */
    servedExplanationId: integer('served_explanation_id'),
    /** Why the AI's own bars were shown (the serve's `ai_only_reason`); null otherwise. */
    aiOnlyReason: text('ai_only_reason'),
    /** When the server first gave the case's outcome feedback (a condition's outcomeFeedback); null: not given. */
    feedbackServedAt: text('feedback_served_at'),
    /** How long the feedback was on screen, from its first frame to the click that moved on, as the page measured it (at most the time since it was served); null: not reported. */
    feedbackViewingTimeMs: integer('feedback_viewing_time_ms'),
    /** Whether the participant asked for the AI on this case, where the condition gave it only on request (adviceOnRequest); null in other conditions. */
    adviceRequested: integer('advice_requested', { mode: 'boolean' }),
    /** Ms by the Worker's clock from the kept initial judgement to the AI's first serve (at least a forced wait); null without both. */
    adviceDelayMs: integer('advice_delay_ms'),
    /** The time limit each judgement step had (a condition's timeLimit), in ms; null without one. */
    timeLimitMs: integer('time_limit_ms'),
    /** The page's word that the initial (final) judgement step's countdown ran out before the judgement was given; the Worker refused it where its own clock said otherwise. Null without a limit. */
    initialTimedOut: integer('initial_timed_out', { mode: 'boolean' }),
    finalTimedOut: integer('final_timed_out', { mode: 'boolean' }),
    /** How long the initial (final) judgement step lasted by the Worker's clock: from when it opened (the page's word that the case was on screen; the final step: the kept initial judgement, or the move on from the AI's own step) to the judgement kept. Null without a limit, or where an end was not kept. */
    initialStepMs: integer('initial_step_ms'),
    finalStepMs: integer('final_step_ms'),
  },
  (t) => [
    uniqueIndex('main_responses_session_case_uq').on(t.sessionId, t.caseId),
    index('main_responses_participant_idx').on(t.participantId),
    // The dashboard lists the trials newest first through it, as it does the answers (pre_responses_created_idx).
    index('main_responses_created_idx').on(sql`julianday(${t.createdAt})`),
    check('main_initial_prediction_ck', sql`${t.initialPrediction} is null or ${t.initialPrediction} in (0, 1)`),
    check('main_final_prediction_ck', sql`${t.finalPrediction} is null or ${t.finalPrediction} in (0, 1)`),
    check('main_initial_confidence_ck', sql`${t.initialConfidence} is null or ${t.initialConfidence} between 1 and 5`),
    check('main_final_confidence_ck', sql`${t.finalConfidence} is null or ${t.finalConfidence} between 1 and 5`),
    check(
      'main_ratings_ck',
      sql`coalesce(${t.comprehensibility}, 1) between 1 and 5 and coalesce(${t.transparency}, 1) between 1 and 5 and coalesce(${t.satisfaction}, 1) between 1 and 5 and coalesce(${t.trust}, 1) between 1 and 5 and coalesce(${t.alignment}, 1) between 1 and 5`,
    ),
    check('main_alpha_ck', sql`${t.alignmentAlpha} is null or ${t.alignmentAlpha} between 0 and 1`),
  ],
);

/**
 * Every explanation or prediction the Worker served for a case of a session's main set: the
 * record a trial's AI side is stored from (never the browser's copy). A serve is a pure function
 * of the session's pinned AI model, its participant model, the case's alpha and the kind the
 * condition shows, so serving the same again (a reload) counts on the row it first made; a
 * different one (another model version, the AI-only fallback) is a row of its own.
 */
export const servedExplanations = sqliteTable(
  'served_explanations',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionId: text('session_id').notNull(),
    caseId: text('case_id').notNull(),
    /** `human_aligned`, `ai_only` (the AI's own bars) or `prediction_only` (no bars). */
    kind: text('kind', { enum: EXPLANATION_KINDS }).notNull(),
    /**
     * Why the AI's own bars were served: `no_user_model`, `user_model_failed` (its fit failed, e.g. one
     * answer to every case), `user_model_uninformative` (its bars are all zero), `requested` (the page
     * asked for the AI-only explanation: its fallback, or `main/predict`); null otherwise.
     */
    aiOnlyReason: text('ai_only_reason'),
    aiModelIdentifier: text('ai_model_identifier').notNull(),
    userModelIdentifier: text('user_model_identifier'),
    /** The alpha the bars mix with; null when no bars were served. */
    alignmentAlpha: real('alignment_alpha'),
    aiPrediction: integer('ai_prediction').notNull(),
    aiProbability: real('ai_probability').notNull(),
    aiBaseProbability: real('ai_base_probability').notNull(),
    userModelPrediction: integer('user_model_prediction'),
    userModelProbability: real('user_model_probability'),
    /**
     * The bars of the AI, of the participant model and on screen, packed in one text
     * (worker/db/feature-bars.ts, `serveBars`); null for a serve stored before migration 0024,
     * whose bars are the three columns below. Read either through `barsOfServe`.
     */
    bars: serveBars('bars'),
    aiFeatureImportance: modelBars('ai_feature_importance'),
    userFeatureImportance: modelBars('user_feature_importance'),
    shownFeatureImportance: featureBars('shown_feature_importance'),
    /**
     * What identifies the serve among the session's serves of the case: its kind, models, alpha
     * (all 17 significant digits, `%!.17g`: SQLite's plain `%.17g` stops at 16, so that 1 and the next double shared one; migration 0031) and AI-only reason. Generated and
     * virtual (migration 0027): kept in the unique index alone, not a second time in the row.
     */
    serveKey: text('serve_key').generatedAlwaysAs(
      sql.raw(
        `kind || '|' || ai_model_identifier || '|' || coalesce(user_model_identifier, '-') || '|' || (case when alignment_alpha is null then '-' else printf('%!.17g', alignment_alpha) end) || '|' || coalesce(ai_only_reason, '-')`,
      ),
      { mode: 'virtual' },
    ),
    /** The AI's confidence (its probability for the class it predicts) was served with the prediction: the condition's aiConfidence. */
    aiConfidenceShown: integer('ai_confidence_shown', { mode: 'boolean' }).notNull().default(false),
    /**
     * The accuracy the panel stated with the prediction (0–1), as the condition's statedAccuracy
     * says: the pinned model's measured test accuracy, or a stated figure; null when it stated none.
     */
    statedAccuracy: real('stated_accuracy'),
    serveCount: integer('serve_count').notNull().default(1),
    firstServedAt: text('first_served_at').notNull(),
    lastServedAt: text('last_served_at').notNull(),
  },
  (t) => [uniqueIndex('served_explanations_serve_uq').on(t.sessionId, t.caseId, t.serveKey)],
);

/**
 * The lists of feature names a serve's packed bars are in (issue #45): every serve of a model
 * names the same features in the same order, so each list is kept once and a serve's `bars` holds
 * its id (`f`). Rows are never changed or deleted; a serve's bars are read with its list put back
 * (worker/db/trial-record.ts, `servedBarsText`).
 */
export const featureLists = sqliteTable(
  'feature_lists',
  {
    id: integer('id').primaryKey(),
    /** The names as a JSON array, as SQLite's `json_extract` writes it. */
    names: text('names').notNull(),
  },
  (t) => [uniqueIndex('feature_lists_names_uq').on(t.names)],
);

/**
 * What the server has kept of a main-experiment case that is under way (not yet stored as a
 * trial): the initial judgement, kept by the request that reveals the AI (or, without AI, when
 * it is given), the explanation's viewing time once the participant moves on from it, and the
 * final judgement before the per-case questions. Each part is kept once (the first word counts)
 * and the stored trial takes it from here, so a reload or another device resumes the case at the
 * step it left and no judgement can be given again after the AI appeared. The row goes when the
 * trial is stored.
 */
export const mainTrialProgress = sqliteTable(
  'main_trial_progress',
  {
    sessionId: text('session_id').notNull(),
    caseId: text('case_id').notNull(),
    initialPrediction: integer('initial_prediction'),
    initialConfidence: integer('initial_confidence'),
    initialResponseTimeMs: integer('initial_response_time_ms'),
    initialReasoning: text('initial_reasoning'),
    initialKeptAt: text('initial_kept_at'),
    explanationViewingTimeMs: integer('explanation_viewing_time_ms'),
    explanationViewedAt: text('explanation_viewed_at'),
    finalPrediction: integer('final_prediction'),
    finalConfidence: integer('final_confidence'),
    finalResponseTimeMs: integer('final_response_time_ms'),
    finalReasoning: text('final_reasoning'),
    finalKeptAt: text('final_kept_at'),
    /** When the case's first judgement step was on screen, by the page's word and the Worker's clock (a condition with a time limit): its step is timed from here. */
    openedAt: text('opened_at'),
    /** The page's word that the initial (final) step's countdown ran out, kept with the judgement. */
    initialTimedOut: integer('initial_timed_out', { mode: 'boolean' }),
    finalTimedOut: integer('final_timed_out', { mode: 'boolean' }),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.caseId] })],
);

/**
 * One finished attempt at the main experiment's understanding test: the questions drawn, the
 * answers given and the score the Worker computed from the pool, so comprehension can be reported.
 */
export const understandingTestAttempts = sqliteTable(
  'understanding_test_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    participantId: integer('participant_id')
      .notNull()
      .references(() => participants.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    datasetType: datasetTypeColumn(),
    attemptId: text('attempt_id').notNull(),
    attemptNumber: integer('attempt_number').notNull(),
    /** [{question_id, answer, correct}] in the order they were asked. */
    answers: text('answers', { mode: 'json' }).$type<{ question_id: string; answer: string; correct: boolean }[]>().notNull(),
    correctCount: integer('correct_count').notNull(),
    totalQuestions: integer('total_questions').notNull(),
    passed: integer('passed', { mode: 'boolean' }).notNull(),
    ...timestamps,
  },
  (t) => [
    // The browser re-sends an attempt until it is stored: the same attempt ID is one row.
    uniqueIndex('understanding_attempts_session_attempt_uq').on(t.sessionId, t.attemptId),
    index('understanding_attempts_participant_idx').on(t.participantId),
    check('understanding_attempts_score_ck', sql`${t.correctCount} between 0 and ${t.totalQuestions}`),
  ],
);

/** The post-survey of one session; sections are validated JSON objects keyed by question name. */
export const postSurveys = sqliteTable(
  'post_surveys',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    participantId: integer('participant_id')
      .notNull()
      .references(() => participants.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    demographics: text('demographics', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    benevolent: text('benevolent', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    bigfive: text('bigfive', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    locus: text('locus', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    cognition: text('cognition', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    experimentRating: integer('experiment_rating'),
    overallFeedback: text('overall_feedback'),
    ...timestamps,
  },
  (t) => [
    // One post-survey per session: a second submit is the spec's 409 "already answered".
    uniqueIndex('post_surveys_session_uq').on(t.sessionId),
    index('post_surveys_participant_idx').on(t.participantId),
  ],
);

/** What a participant-model record holds, in the current table and among the versions it replaced. */
const userModelColumns = () => ({
  id: integer('id').primaryKey({ autoIncrement: true }),
  participantId: integer('participant_id')
    .notNull()
    .references(() => participants.id, { onDelete: 'cascade' }),
  sessionId: text('session_id').notNull(),
  datasetType: datasetTypeColumn(),
  status: text('status', { enum: ['trained', 'training_failed'] }).notNull(),
  r2Key: text('r2_key'),
  modelIdentifier: text('model_identifier').notNull(),
  formatVersion: integer('format_version'),
  trainingSamples: integer('training_samples').notNull(),
  numTrees: integer('num_trees'),
  numLeaves: integer('num_leaves'),
  maxDepth: integer('max_depth'),
  learningRate: real('learning_rate'),
  dataSizeCategory: text('data_size_category'),
  trainAccuracy: real('train_accuracy'),
  trainingDurationMs: real('training_duration_ms'),
  fileSizeBytes: integer('file_size_bytes'),
  failureReason: text('failure_reason'),
  trainedAt: text('trained_at').notNull(),
});

/** A participant's own model, fitted on their pre-experiment answers; the file lives in R2. */
export const userModels = sqliteTable('user_models', userModelColumns(), (t) => [
  // One current model per session; retraining replaces it (the replaced one moves to user_model_versions).
  uniqueIndex('user_models_session_uq').on(t.sessionId),
  index('user_models_participant_idx').on(t.participantId),
  index('user_models_dataset_idx').on(t.datasetType),
]);

/**
 * Participant models a retrain replaced, with their files kept under their own R2 key, so every
 * stored main-experiment case's user_model_identifier still names a record and a file.
 */
export const userModelVersions = sqliteTable(
  'user_model_versions',
  { ...userModelColumns(), supersededAt: text('superseded_at').notNull() },
  (t) => [index('user_model_versions_session_idx').on(t.sessionId), index('user_model_versions_participant_idx').on(t.participantId)],
);

/** An AI model trained at set-up (or retrained by an admin); the active one serves predictions. */
export const aiModels = sqliteTable(
  'ai_models',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    datasetType: datasetTypeColumn(),
    modelIdentifier: text('model_identifier').notNull(),
    /** `candidate`: an uploaded model validated but not yet confirmed by an administrator. */
    status: text('status', { enum: ['active', 'retired', 'candidate'] }).notNull(),
    r2Key: text('r2_key').notNull(),
    formatVersion: integer('format_version').notNull(),
    fileSizeBytes: integer('file_size_bytes').notNull(),
    /** Test accuracy, precision, recall, F1, CV score and sample counts (part 2 §3 "AI model status"). */
    metrics: text('metrics', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** Samples, positives, negatives, balance ratio, feature count. */
    datasetInfo: text('dataset_info', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    params: text('params', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    trainingTimeSeconds: real('training_time_seconds').notNull(),
    trainedAt: text('trained_at').notNull(),
  },
  (t) => [
    uniqueIndex('ai_models_identifier_uq').on(t.modelIdentifier),
    // Every explanation looks up the active model of a dataset.
    index('ai_models_dataset_status_idx').on(t.datasetType, t.status),
  ],
);

/**
 * Datasets an administrator added on the dashboard, beside those the Worker was built with: the
 * validated definition and what the Worker built from it (its cases are in `cases`, its AI model
 * in `ai_models` and R2, its encoded training split in R2). The uploaded CSV itself is never
 * kept, only its SHA-256: columns the definition does not read (names, identifiers) never leave
 * the parser. A dataset is never changed once built; `enabled` offers it to new sessions, and
 * sessions that have it keep it whatever `enabled` becomes.
 */
export const addedDatasets = sqliteTable('added_datasets', {
  datasetType: text('dataset_type').$type<DatasetType>().primaryKey(),
  definition: text('definition', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  sourceSha256: text('source_sha256').notNull(),
  sourceRows: integer('source_rows').notNull(),
  caseCount: integer('case_count').notNull(),
  modelIdentifier: text('model_identifier').notNull(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull(),
  updatedAt: text('updated_at').notNull(),
  ...timestamps,
});

/**
 * Per-participant signals of the pre-experiment answers that the data-quality flags read (window
 * functions over every answer, too slow to recompute for 1,000 participants on each request).
 * A cache: triggers on `pre_experiment_responses` delete a participant's row whenever one of
 * their answers is written, changed or deleted, and the analytics recompute only missing rows.
 */
export const participantSignals = sqliteTable('participant_signals', {
  participantId: integer('participant_id').primaryKey(),
  preMedianResponseMs: real('pre_median_response_ms'),
  preLongestRun: integer('pre_longest_run'),
  computedAt: text('computed_at').notNull(),
});

/**
 * One counter (row id 1) of the writes to every row the research figures read: triggers on the
 * trials, pre-experiment answers, post-surveys, understanding tests, participants and the session
 * columns the figures use (migration 0023) add one to it in the same statement as the write, so no
 * write path can forget it. A kept reliance report computed at revision r is current while the
 * counter still reads r.
 */
export const dataRevision = sqliteTable('data_revision', {
  id: integer('id').primaryKey(),
  revision: integer('revision').notNull(),
  /** Participants deleted (withdrawn or deleted by an administrator): a report computed before one is never served after it. */
  erasures: integer('erasures').notNull(),
});

/**
 * The dashboard's reliance reports kept in R2 (`EXPORTS`, `analytics/…`), one per population: which
 * one a Worker is recomputing in the background and since when, so that viewers of a large study
 * share one recomputation instead of starting one each.
 */
export const analyticsReports = sqliteTable('analytics_reports', {
  reportKey: text('report_key').primaryKey(),
  computingSince: text('computing_since'),
});

/**
 * Every study configuration sessions have run under, recorded by the first session that used it,
 * so each exported row traces back (through its session) to the exact settings it ran with.
 */
export const studyConfigurations = sqliteTable('study_configurations', {
  version: text('version').primaryKey(),
  studyVersion: text('study_version').notNull(),
  config: text('config', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  recordedAt: text('recorded_at').notNull(),
});

/**
 * Whether the study admits newcomers, as the dashboard last set it (one row, id 1; no row is
 * `open`): `paused` admits nobody new, everyone in progress continues; `closed` admits nobody new,
 * and those in progress may finish only while `inProgressMayFinish` holds.
 */
export const RECRUITMENT_STATUSES = ['open', 'paused', 'closed'] as const;
export const recruitment = sqliteTable(
  'recruitment',
  {
    id: integer('id').primaryKey(),
    status: text('status', { enum: RECRUITMENT_STATUSES }).notNull(),
    inProgressMayFinish: integer('in_progress_may_finish', { mode: 'boolean' }).notNull(),
    changedAt: text('changed_at').notNull(),
    /** The dashboard's targets, replacing the study configuration's `recruitment` targets; null keeps those. */
    targets: text('targets', { mode: 'json' }).$type<RecruitmentTargets>(),
  },
  (t) => [
    check('recruitment_single_row_ck', sql`${t.id} = 1`),
    check('recruitment_status_ck', sql`${t.status} in ('open', 'paused', 'closed')`),
  ],
);

/** Server-side admin sessions: the browser holds only an opaque token; its SHA-256 is stored. */
export const adminSessions = sqliteTable(
  'admin_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    /** The role the session acts in (issue #60); the administrator password signs in an owner. */
    role: text('role', { enum: ADMIN_ROLES }).notNull().default('owner'),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    ...timestamps,
    expiresAt: text('expires_at').notNull(),
    revokedAt: text('revoked_at'),
  },
  (t) => [index('admin_sessions_expires_idx').on(t.expiresAt)],
);

/**
 * Every export copy kept in the EXPORTS bucket, with the participant IDs whose rows it holds (a
 * JSON array of `participant_code`s, read from the tables' user_name column as they were
 * written), so a withdrawal deletes exactly the copies that hold the withdrawing participant.
 */
export const exportCopies = sqliteTable('export_copies', {
  objectKey: text('object_key').primaryKey(),
  participantCodes: text('participant_codes', { mode: 'json' }).$type<string[]>().notNull(),
  ...timestamps,
});

/**
 * An all-data export written in steps (worker/services/exports/stepwise.ts): each step reads some
 * pages, appends their deflated text to the zip in R2 and commits here where it stopped, so the
 * next step (or a retry of a failed one) goes on from exactly there. `cursor` holds the zip's
 * running state (entry, page key, checksum, sizes, uploaded parts, the R2 object holding the bytes
 * past the last full part); it is replaced whole, and only by the step that read it (`steps`).
 */
export const exportJobs = sqliteTable(
  'export_jobs',
  {
    id: text('id').primaryKey(),
    /** `all_data`: asked for on the dashboard; `backup`: the daily Cron Trigger's. */
    kind: text('kind', { enum: ['all_data', 'backup'] }).notNull(),
    format: text('format', { enum: ['csv', 'tsv', 'excel'] }).notNull(),
    filter: text('filter', { mode: 'json' }).$type<{ userName?: string; excludeFlagged?: boolean; includeSynthetic?: boolean; completedOnly?: boolean }>().notNull(),
    status: text('status', { enum: ['running', 'completed', 'failed'] }).notNull(),
    objectKey: text('object_key').notNull(),
    fileName: text('file_name').notNull(),
    cursor: text('cursor', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** Participant IDs of the rows written so far (export_copies' list once it completes). */
    holds: text('holds', { mode: 'json' }).$type<string[]>().notNull(),
    rows: integer('rows').notNull().default(0),
    bytes: integer('bytes').notNull().default(0),
    steps: integer('steps').notNull().default(0),
    /** The longest step's time as the Worker saw it (its clock moves on I/O, so it is close to wall time). */
    longestStepMs: integer('longest_step_ms').notNull().default(0),
    failedAttempts: integer('failed_attempts').notNull().default(0),
    lastError: text('last_error'),
    /**
     * Who runs the job's steps (its Workflow instance, or the request that runs a small export
     * itself), and until when it holds them: each step renews the lease as it starts and as it
     * commits, so a job whose runner is gone (a killed server, a lost instance) is known as such
     * once the lease runs out, and may be resumed then; null for a job from before leases.
     */
    runner: text('runner'),
    leaseUntil: text('lease_until'),
    ...timestamps,
    updatedAt: text('updated_at').notNull(),
    completedAt: text('completed_at'),
  },
  (t) => [
    check('export_jobs_kind_ck', sql`${t.kind} in ('all_data', 'backup')`),
    check('export_jobs_status_ck', sql`${t.status} in ('running', 'completed', 'failed')`),
    index('export_jobs_created_idx').on(t.createdAt),
  ],
);

/** Who deleted or exported what and when; kept when the data it describes is gone. */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>(),
    ipAddress: text('ip_address'),
    ...timestamps,
  },
  (t) => [index('audit_log_created_idx').on(t.createdAt), index('audit_log_action_idx').on(t.action)],
);

/**
 * Fixed-window request counters (e.g. participant-ID lookups per client), so IDs cannot be
 * enumerated. Rows expire with their window and are pruned opportunistically.
 */
export const rateLimitBuckets = sqliteTable(
  'rate_limit_buckets',
  {
    bucketKey: text('bucket_key').notNull(),
    windowStart: integer('window_start').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.bucketKey, t.windowStart] }),
    index('rate_limit_window_idx').on(t.windowStart),
  ],
);
