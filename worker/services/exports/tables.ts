/**
 * The record's tables, each defined once: the participants, their consent, answers, served
 * explanations, models and withdrawals, every column with meaning, type, coding and units (the
 * codebook is generated from these) and how each cell is read from a stored row, and how rows
 * are paged out of D1 (keyset pages by id, so an export never holds a table in memory). The
 * post-survey's columns come from its instrument definition; the research measures' tables are
 * in ../analytics/exports.ts and the catalogue of all of them in ./export.ts.
 */
import { and, asc, eq, gt, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  aiModels,
  auditLog,
  caseSetItems,
  cases,
  consentRecords,
  mainExperimentResponses as main,
  participants,
  postSurveys,
  preExperimentResponses as pre,
  servedExplanations,
  sessions,
  STORED_CASE_PHASE,
  understandingTestAttempts,
  userModels,
  userModelVersions,
} from '../../db/schema';
import { datasetFeatures } from '../../schemas/dataset-features';
import { STUDY_CASE_COUNTS } from '../../schemas/study-counts';
import { originOf } from '../../schemas/model-verification';
import { answeredQuestions, parseMultiselect, postSurvey, scorePostSurvey, FACTORS, type AnsweredQuestion } from '../../schemas/post-survey';
import { CONSENT_ITEMS, datasetDefinitions, DATASET_TYPES, SPEC_DESIGN } from '../../schemas/study';
import {
  ALPHA_SHOWN,
  conditionColumn,
  FALLBACK_REASON_CODING,
  qualityFlagsColumn,
  SCHEDULED_ALPHA,
  SHOWN_KIND_CODING,
  type Column,
  type ExportFilter,
  type ExportTable,
  type PageCursor,
} from './columns';
import { qualityFlags } from '../analytics/quality-flags';
import { shownKind } from '../../db/queries/analytics';
import { lastActivityOf, placeOf } from '../../db/queries/sessions';
import { barsOfServe, serveColumns, servedBars, trialBars, trialServe } from '../../db/trial-record';
import { abandonCutoff } from '../recruitment';

/**
 * Rows per D1 page: fewer round trips the larger it is; 2,000 main-experiment rows with their
 * three explanations are about 10 MB, well inside the isolate's 128 MB.
 */
export const EXPORT_PAGE_ROWS = 2000;

/**
 * Pages through a query by an increasing integer key until a short page, or (`untilEmpty`: pages
 * of whole groups, whose size says nothing) until an empty one.
 */
async function* keysetPages<R>(
  fetch: (afterKey: number) => Promise<R[]>,
  keyOf: (row: R) => number,
  cursor: PageCursor = { after: 0 },
  options: { untilEmpty?: boolean } = {},
): AsyncGenerator<R[]> {
  for (;;) {
    const rows = await fetch(cursor.after);
    if (rows.length === 0) return;
    // Moved before the page is handed out: a reader that stops after it resumes past it.
    cursor.after = keyOf(rows[rows.length - 1]!);
    yield rows;
    if (!options.untilEmpty && rows.length < EXPORT_PAGE_ROWS) return;
  }
}

const byUser = (filter: ExportFilter): SQL | undefined =>
  filter.userName ? eq(participants.participantCode, filter.userName) : undefined;

/*
 * Codings that list the datasets are read when a table is written, not when the Worker starts: a
 * dataset an administrator added on the dashboard since then is described like the others.
 */

/** The outcome coding, in each dataset's own words (its definition's English answers). */
const predictionCoding = () =>
  `1 = positive class (${DATASET_TYPES.map((id) => `${id}: ${datasetDefinitions[id]!.texts.en.positive}`).join('; ')}), 0 = negative class`;

/** Which rows set-up reads of each dataset's source files, as its definition says, for `source_row`. */
const sourceRows = () =>
  DATASET_TYPES.map((id) => {
    const { source, missing } = datasetDefinitions[id]!;
    return `${id}: ${source.files.map((f) => f.path.split('/').at(-1)).join(' then ')}${missing.rows === 'drop' ? ' (only rows with every feature)' : ''}`;
  }).join('; ');

const datasetColumn = <R>(meaning: string, value: (r: R) => unknown): Column<R> => ({
  name: 'dataset_type',
  type: 'category',
  meaning,
  get coding() {
    return DATASET_TYPES.join(', ');
  },
  value,
});

const outcomeColumn = <R>(name: string, meaning: string, value: (r: R) => unknown): Column<R> => ({
  name,
  type: 'integer',
  meaning,
  get coding() {
    return predictionCoding();
  },
  value,
});
const CONFIDENCE = '1 全く確信がない (not at all confident) … 5 非常に確信がある (very confident)';
const UTC = 'ISO 8601, UTC';
const TRUE_FALSE = 'true or false';
const correctness = (prediction: number | null, truth: number) => (prediction === null ? null : prediction === truth);

const CONFIG_VERSION = 'Study configuration the session ran under: studyVersion+first 12 hex digits of the SHA-256 of the configuration (all recorded configurations are in study-configurations.json of the all-data zip and on the dashboard)';

const identity = <R extends { userId: number; username: string; sessionId: string; datasetType: string; studyConfigVersion: string | null }>(): Column<R>[] => [
  { name: 'user_id', type: 'integer', meaning: "Participant's numeric id (assigned by the database, never reused)", value: (r) => r.userId },
  { name: 'user_name', type: 'text', meaning: 'Participant ID (8 characters; test_ prefix for synthetic participants)', value: (r) => r.username },
  { name: 'session_id', type: 'text', meaning: 'Session ID (equal to the participant ID for sessions created by the entry page)', value: (r) => r.sessionId },
  datasetColumn('Dataset of the cases judged', (r) => r.datasetType),
  { name: 'study_config_version', type: 'text', meaning: CONFIG_VERSION, value: (r) => r.studyConfigVersion },
];

const BYPASS: Omit<Column<never>, 'value'> = {
  name: 'main_start_bypass',
  type: 'category',
  meaning: "How the main experiment was entered without the pre-experiment: empty for the ordinary start (after all pre-experiment answers); such sessions, like synthetic participants, are left out of the dashboard's research figures by default",
  coding: 'debug = ?debug=true bypass; tutorial = ?tutorial=true bypass; empty = ordinary start',
};

// ---------------------------------------------------------------------------------------------
type ParticipantRow = Awaited<ReturnType<typeof participantPage>>[number] & { flags?: string[] };
const participantPage = (db: Db, filter: ExportFilter, after: number) =>
  db
    .select({
      p: participants,
      s: sessions,
      lastActivityAt: sql<string | null>`(case when ${sessions.sessionId} is null then null else ${lastActivityOf('"sessions"')} end)`,
      place: placeOf('"sessions"', abandonCutoff(new Date().toISOString())),
    })
    .from(participants)
    .leftJoin(sessions, eq(sessions.participantId, participants.id))
    .where(and(gt(participants.id, after), byUser(filter)))
    .orderBy(asc(participants.id))
    .limit(EXPORT_PAGE_ROWS);

export const participantsTable: ExportTable<ParticipantRow> = {
  name: 'participants',
  description: 'One row per participant with their session and how far they got.',
  columns: [
    { name: 'user_id', type: 'integer', meaning: "Participant's numeric id", value: (r) => r.p.id },
    { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.p.participantCode },
    { name: 'origin', type: 'category', meaning: 'Who created the participant', coding: 'participant = a person; admin_synthetic = the registration tools', value: (r) => r.p.origin },
    { name: 'is_test', type: 'boolean', meaning: 'Synthetic test participant (ID starts with test_)', coding: TRUE_FALSE, value: (r) => r.p.participantCode.startsWith('test_') },
    { name: 'language', type: 'category', meaning: 'Interface language chosen', coding: 'ja, en', value: (r) => r.s?.language ?? r.p.language },
    datasetColumn('Dataset assigned', (r) => r.s?.datasetType ?? null),
    { name: 'session_id', type: 'text', meaning: 'Session ID', value: (r) => r.s?.sessionId ?? null },
    { name: 'current_phase', type: 'category', meaning: 'Phase the session is in', coding: 'consent, pre_experiment, main_experiment, post_survey, completed', value: (r) => r.s?.currentPhase ?? null },
    { name: 'prolific_pid', type: 'text', meaning: 'Prolific participant id from the study URL (empty without Prolific)', value: (r) => r.p.prolificPid },
    { name: 'prolific_study_id', type: 'text', meaning: 'Prolific study id from the study URL', value: (r) => r.p.prolificStudyId },
    { name: 'prolific_session_id', type: 'text', meaning: 'Prolific session id from the study URL', value: (r) => r.p.prolificSessionId },
    { name: 'study_config_version', type: 'text', meaning: CONFIG_VERSION, value: (r) => r.s?.studyConfigVersion ?? null },
    conditionColumn((r) => (r.s?.mainStartedAt ? (r.s.condition ?? SPEC_DESIGN.name) : null)),
    { name: 'screened_out_at', type: 'timestamp', meaning: 'When a Prolific participant was screened out after failing the understanding test too often (empty otherwise)', coding: UTC, value: (r) => r.s?.screenedOutAt ?? null },
    { name: 'debrief_served_at', type: 'timestamp', meaning: "When the completion page first gave the participant their condition's debrief (its panel stated an accuracy that was not the measured one: statedAccuracy); empty otherwise", coding: UTC, value: (r) => r.s?.debriefServedAt ?? null },
    { name: 'bonus_currency', type: 'text', meaning: "Currency of the condition's incentive (ISO 4217); empty without an incentive or before the participant finished", value: (r) => r.s?.bonusCurrency ?? null },
    {
      name: 'base_payment',
      type: 'number',
      meaning: "The incentive's base payment, fixed when the participant finished",
      units: 'bonus_currency',
      value: (r) => (r.s?.bonusBaseCents == null ? null : r.s.bonusBaseCents / 100),
    },
    {
      name: 'bonus',
      type: 'number',
      meaning: "The performance bonus the Worker worked out from the stored trials when the participant finished: bonus_correct_final × the condition's bonusPerCorrect + bonus_correct_pre × its bonusPerCorrectPre, at most its cap",
      units: 'bonus_currency',
      value: (r) => (r.s?.bonusCents == null ? null : r.s.bonusCents / 100),
    },
    { name: 'bonus_correct_final', type: 'integer', meaning: 'Stored main-experiment trials whose final judgement was correct, as the bonus counted them', value: (r) => r.s?.bonusCorrectFinal ?? null },
    { name: 'bonus_correct_pre', type: 'integer', meaning: "Pre-experiment judgements that were correct, as the bonus counted them (empty where the condition's incentive pays nothing for them)", value: (r) => r.s?.bonusCorrectPre ?? null },
    { name: 'bonus_paid_at', type: 'timestamp', meaning: 'When the dashboard marked the bonus paid (a payment batch); empty: not yet', coding: UTC, value: (r) => r.s?.bonusPaidAt ?? null },
    { name: 'created_at', type: 'timestamp', meaning: 'When the participant ID was registered', coding: UTC, value: (r) => r.p.createdAt },
    { name: 'consented_at', type: 'timestamp', meaning: 'When consent was given', coding: UTC, value: (r) => r.s?.consentedAt ?? null },
    { name: 'pre_completed_at', type: 'timestamp', meaning: 'When the pre-experiment was completed', coding: UTC, value: (r) => r.s?.preCompletedAt ?? null },
    { name: 'main_started_at', type: 'timestamp', meaning: 'When the main experiment started (its case set was drawn)', coding: UTC, value: (r) => r.s?.mainStartedAt ?? null },
    { ...BYPASS, value: (r) => r.s?.mainStartBypass ?? null },
    { name: 'main_completed_at', type: 'timestamp', meaning: 'When the main experiment was completed', coding: UTC, value: (r) => r.s?.mainCompletedAt ?? null },
    { name: 'post_survey_completed_at', type: 'timestamp', meaning: 'When the post-survey was submitted (study complete)', coding: UTC, value: (r) => r.s?.postSurveyCompletedAt ?? null },
    {
      name: 'completion_verification_code',
      type: 'text',
      meaning: "The participant's own code shown with the completion code, to match a submission on the recruiting platform to this session (empty until the post-survey is stored)",
      value: (r) => r.s?.completionVerificationCode ?? null,
    },
    {
      name: 'last_activity_at',
      type: 'timestamp',
      meaning: 'When the session last did something: its last stored answer, consent or start',
      coding: UTC,
      value: (r) => r.lastActivityAt,
    },
    {
      name: 'recruitment_place',
      type: 'category',
      meaning: `Where the session stood for recruitment when exported: a session with no stored answer for the study's time-out (recruitment.abandonAfterMinutes) is abandoned and its place went back to its cell`,
      coding: 'completed; in_progress (holds a place); abandoned (place given back; it may still come back and finish); screened_out; empty without a session',
      value: (r) => r.place,
    },
    qualityFlagsColumn<ParticipantRow>((r) => r.flags),
  ],
  resumable: true,
  async *pages(db, filter, cursor) {
    const quality = await qualityFlags(db);
    for await (const rows of keysetPages((after) => participantPage(db, filter, after), (r) => r.p.id, cursor)) {
      yield rows.map((r) => ({ ...r, flags: quality.get(r.p.id)?.flags ?? [] }));
    }
  },
};

// ---------------------------------------------------------------------------------------------
/** A pre-experiment answer as the export reads it: the exported columns only (the case's features are in case-data, once per case). */
type PreRow = {
  r: Pick<typeof pre.$inferSelect, 'id' | 'caseId' | 'caseNumber' | 'prediction' | 'confidence' | 'groundTruth' | 'responseTimeMs' | 'reasoning' | 'createdAt'>;
  userId: number;
  username: string;
  sessionId: string;
  datasetType: string;
  studyConfigVersion: string | null;
};
type PreValues = [...Parameters<typeof preRow>];
const preRow = (
  id: number,
  caseId: string,
  caseNumber: number,
  prediction: number,
  confidence: number,
  groundTruth: number,
  responseTimeMs: number,
  reasoning: string | null,
  createdAt: string,
  userId: number,
  username: string,
  sessionId: string,
  datasetType: string,
  studyConfigVersion: string | null,
): PreRow => ({ r: { id, caseId, caseNumber, prediction, confidence, groundTruth, responseTimeMs, reasoning, createdAt }, userId, username, sessionId, datasetType, studyConfigVersion });

/**
 * Read as arrays in the selection's order (preRow's parameters) and made into rows here: every
 * column is a plain integer or text, and drizzle's general mapping of a page cost more than
 * writing its CSV (bench:export). The bulk of every export is this table.
 */
const prePage = async (db: Db, filter: ExportFilter, after: number): Promise<PreRow[]> => {
  const values = (await db
    .select({
      id: pre.id,
      caseId: pre.caseId,
      caseNumber: pre.caseNumber,
      prediction: pre.prediction,
      confidence: pre.confidence,
      groundTruth: pre.groundTruth,
      responseTimeMs: pre.responseTimeMs,
      reasoning: pre.reasoning,
      createdAt: pre.createdAt,
      userId: pre.participantId,
      username: participants.participantCode,
      sessionId: pre.sessionId,
      datasetType: pre.datasetType,
      studyConfigVersion: sessions.studyConfigVersion,
    })
    .from(pre)
    .innerJoin(participants, eq(participants.id, pre.participantId))
    .leftJoin(sessions, eq(sessions.sessionId, pre.sessionId))
    .where(and(gt(pre.id, after), byUser(filter)))
    .orderBy(asc(pre.id))
    .limit(EXPORT_PAGE_ROWS)
    .values()) as PreValues[];
  return values.map((v) => preRow(...v));
};

export const preExperimentTable: ExportTable<PreRow> = {
  name: 'pre-experiment',
  description: 'One row per pre-experiment judgement (the participant alone, no AI).',
  columns: [
    { name: 'id', type: 'integer', meaning: 'Response id', value: (r) => r.r.id },
    ...identity<PreRow>(),
    { name: 'case_id', type: 'text', meaning: 'Case judged (see case-data)', value: (r) => r.r.caseId },
    { name: 'case_number', type: 'integer', meaning: 'Position-independent number of the case in its pool', value: (r) => r.r.caseNumber },
    outcomeColumn('prediction', "Participant's prediction", (r) => r.r.prediction),
    { name: 'confidence', type: 'integer', meaning: 'Confidence in the prediction', coding: CONFIDENCE, value: (r) => r.r.confidence },
    outcomeColumn('ground_truth', 'True outcome of the case', (r) => r.r.groundTruth),
    { name: 'is_correct', type: 'boolean', meaning: 'prediction equals ground_truth', coding: TRUE_FALSE, value: (r) => r.r.prediction === r.r.groundTruth },
    { name: 'response_time_ms', type: 'integer', meaning: 'From the first frame that showed the case to the click that submitted the answer (decision time; the 300 ms "sending" pause after the click is not included)', units: 'milliseconds', value: (r) => r.r.responseTimeMs },
    { name: 'reasoning', type: 'text', meaning: 'Optional free-text reason given with the answer', value: (r) => r.r.reasoning },
    { name: 'created_at', type: 'timestamp', meaning: 'When the server stored the answer', coding: UTC, value: (r) => r.r.createdAt },
  ],
  pages: (db, filter, cursor) => keysetPages((after) => prePage(db, filter, after), (r) => r.r.id, cursor),
  resumable: true,
};

// ---------------------------------------------------------------------------------------------
const mainPage = (db: Db, filter: ExportFilter, after: number) =>
  db
    .select({
      r: main,
      userId: main.participantId,
      username: participants.participantCode,
      origin: participants.origin,
      sessionId: main.sessionId,
      datasetType: main.datasetType,
      studyConfigVersion: sessions.studyConfigVersion,
      mainStartBypass: sessions.mainStartBypass,
      condition: sessions.condition,
      shown: shownKind(),
      // The bars are the serve's, kept there once; a trial stored before serves keeps its own.
      served: servedBars,
      statedAccuracy: servedExplanations.statedAccuracy,
    })
    .from(main)
    .innerJoin(participants, eq(participants.id, main.participantId))
    .leftJoin(sessions, eq(sessions.sessionId, main.sessionId))
    .leftJoin(servedExplanations, trialServe)
    .where(and(gt(main.id, after), isNotNull(main.completedAt), byUser(filter)))
    .orderBy(asc(main.id))
    .limit(EXPORT_PAGE_ROWS);
type MainRow = Awaited<ReturnType<typeof mainPage>>[number];

const RATING = '1 (lowest) … 5 (highest)';
const rating = (name: 'comprehensibility' | 'transparency' | 'satisfaction' | 'trust' | 'alignment', meaning: string): Column<MainRow> => ({
  name,
  type: 'integer',
  meaning,
  coding: RATING,
  value: (r) => r.r[name],
});

export const mainExperimentTable: ExportTable<MainRow> = {
  name: 'main-experiment',
  description: 'One row per completed main-experiment case: initial judgement, the AI advice and explanation shown, final judgement, and the five ratings.',
  columns: [
    { name: 'id', type: 'integer', meaning: 'Response id', value: (r) => r.r.id },
    ...identity<MainRow>(),
    conditionColumn((r) => r.condition ?? SPEC_DESIGN.name),
    { name: 'origin', type: 'category', meaning: 'Who created the participant', coding: 'participant = a person; admin_synthetic = the registration tools', value: (r) => r.origin },
    { ...BYPASS, value: (r) => r.mainStartBypass },
    { name: 'case_id', type: 'text', meaning: 'Case judged (see case-data)', value: (r) => r.r.caseId },
    { name: 'case_number', type: 'integer', meaning: 'Number of the case in its set (1–50; 201–250 for admin-registered cases)', value: (r) => r.r.caseNumber },
    outcomeColumn('ground_truth', 'True outcome of the case', (r) => r.r.groundTruth),
    outcomeColumn('initial_prediction', 'Prediction before seeing the AI', (r) => r.r.initialPrediction),
    { name: 'initial_confidence', type: 'integer', meaning: 'Confidence before seeing the AI', coding: CONFIDENCE, value: (r) => r.r.initialConfidence },
    { name: 'initial_correct', type: 'boolean', meaning: 'initial_prediction equals ground_truth', coding: TRUE_FALSE, value: (r) => correctness(r.r.initialPrediction, r.r.groundTruth) },
    { name: 'initial_response_time_ms', type: 'integer', meaning: 'From the first frame that showed the case to the click that submitted the initial judgement (decision time; the 300 ms "sending" pause after the click is not included)', units: 'milliseconds', value: (r) => r.r.initialResponseTimeMs },
    { name: 'initial_reasoning', type: 'text', meaning: 'Optional reason given with the initial judgement', value: (r) => r.r.initialReasoning },
    outcomeColumn('ai_prediction', 'Prediction the AI showed', (r) => r.r.aiPrediction),
    { name: 'ai_probability', type: 'number', meaning: "AI model's probability of the positive class", units: 'probability 0–1', value: (r) => r.r.aiProbability },
    { name: 'ai_correct', type: 'boolean', meaning: 'ai_prediction equals ground_truth', coding: TRUE_FALSE, value: (r) => correctness(r.r.aiPrediction, r.r.groundTruth) },
    { name: 'ai_model_identifier', type: 'text', meaning: 'Version of the AI model that explained the case', value: (r) => r.r.aiModelIdentifier },
    { ...ALPHA_SHOWN, value: (r) => (r.shown === 'human_aligned' ? r.r.alignmentAlpha : null) },
    { ...SCHEDULED_ALPHA, value: (r) => r.r.alignmentAlpha },
    {
      name: 'explanation_kind',
      type: 'category',
      meaning: "What the Worker served of the AI for the case, and why (its record of the serve, not the browser's word; a case of a condition that shows the AI's own explanation by design is ai_explanation, also when stored before that kind existed)",
      coding: `${SHOWN_KIND_CODING.replace('; no_ai = nothing of the AI', '')}; empty = no AI shown`,
      value: (r) => (r.shown === 'no_ai' ? null : r.shown),
    },
    {
      name: 'ai_only_reason',
      type: 'category',
      meaning: "Why the AI's own bars were served instead of the alpha mix",
      coding: `${FALLBACK_REASON_CODING}; empty otherwise`,
      value: (r) => r.r.aiOnlyReason,
    },
    {
      name: 'served_explanation_id',
      type: 'integer',
      meaning: 'The Worker\'s record of the serve this case was stored from (every AI field of the row is copied from it); empty without AI, or for a case stored before serves were recorded',
      value: (r) => r.r.servedExplanationId,
    },
    {
      name: 'shown_leans_with_ai',
      type: 'boolean',
      meaning: "Whether the bars shown, their signed shares summed, lean toward the label the AI predicted (shares carry no starting point, so an explanation can lean against its own prediction); computed by the server when the case was stored",
      coding: 'true or false; empty without bars',
      value: (r) => r.r.shownLeansWithAi,
    },
    {
      name: 'ai_baseline_shown',
      type: 'boolean',
      meaning: "Whether the AI's starting point (base rate) and its probability for the case were shown with its bars (study configuration mainExperiment.showAiBaseline; only with the AI's own bars), derived by the server from the serve",
      coding: 'true or false; empty without AI (or for a case stored before serves were recorded, when the browser reported it)',
      value: (r) => r.r.aiBaselineShown,
    },
    {
      name: 'ai_confidence_shown',
      type: 'boolean',
      meaning: "Whether the AI's confidence, its probability for the class it predicts, was shown with its prediction (the condition's aiConfidence), from the serve",
      coding: 'true or false; empty without AI (or for a case stored before the confidence could be shown)',
      value: (r) => r.r.aiConfidenceShown,
    },
    {
      name: 'ai_accuracy_stated',
      type: 'number',
      meaning:
        "The accuracy the panel stated with the AI's prediction, from the serve: the pinned model's measured test accuracy, or the figure the condition's statedAccuracy states (a deception its participants were debriefed about)",
      units: 'proportion 0–1',
      coding: 'empty: no accuracy stated (statedAccuracy "none"), no AI, or a case stored before serves were recorded',
      value: (r) => r.statedAccuracy ?? null,
    },
    {
      name: 'outcome_feedback_served_at',
      type: 'timestamp',
      meaning: "When the server first gave the case's outcome feedback (true outcome, whether the final judgement and the AI were right), once the case was stored: a condition's outcomeFeedback",
      coding: `${UTC}; empty: no feedback given`,
      value: (r) => r.r.feedbackServedAt,
    },
    {
      name: 'outcome_feedback_viewing_time_ms',
      type: 'integer',
      meaning: "How long the outcome feedback was on screen, from its first frame to the click that moved on, as the page measured it (never longer than the time since the server gave it)",
      units: 'milliseconds',
      coding: 'empty: no feedback given, or the participant left before moving on',
      value: (r) => r.r.feedbackViewingTimeMs,
    },
    {
      name: 'advice_requested',
      type: 'boolean',
      meaning: "Whether the participant asked for the AI's advice on this case, where the condition gave it only on request (adviceOnRequest); a case without it has no AI columns and no ratings",
      coding: 'true or false; empty in a condition that showed the AI on every case, or none',
      value: (r) => r.r.adviceRequested,
    },
    {
      name: 'advice_delay_ms',
      type: 'integer',
      meaning: "Time by the Worker's clock from the kept initial judgement to the AI's first serve for the case (when it was asked for, and never shorter than the condition's adviceWaitSeconds)",
      units: 'milliseconds',
      coding: 'empty: no initial judgement, no AI served, or a case stored before the delay was recorded',
      value: (r) => r.r.adviceDelayMs,
    },
    {
      name: 'time_limit_ms',
      type: 'integer',
      meaning: "The time limit each judgement step had (the condition's timeLimit)",
      units: 'milliseconds',
      coding: 'empty: no time limit',
      value: (r) => r.r.timeLimitMs,
    },
    {
      name: 'initial_timed_out',
      type: 'boolean',
      meaning: "The page's word that the initial judgement step's countdown ran out before the judgement was given (onTimeout submit: the choice on screen was taken; overrun: given after); the Worker refused it where its own clock had counted less than the limit",
      coding: 'true or false; empty without a time limit or an initial judgement',
      value: (r) => r.r.initialTimedOut,
    },
    {
      name: 'final_timed_out',
      type: 'boolean',
      meaning: "The page's word that the final (or only) judgement step's countdown ran out, checked as initial_timed_out is",
      coding: 'true or false; empty without a time limit',
      value: (r) => r.r.finalTimedOut,
    },
    {
      name: 'initial_step_ms',
      type: 'integer',
      meaning: "The initial judgement step's length by the Worker's clock: from the page's word that the case was on screen to the judgement kept",
      units: 'milliseconds',
      coding: "empty: no time limit, or the step's start or end did not reach the Worker",
      value: (r) => r.r.initialStepMs,
    },
    {
      name: 'final_step_ms',
      type: 'integer',
      meaning: "The final (or only) judgement step's length by the Worker's clock: from when it opened (the case on screen, the kept initial judgement, or the move on from the AI's own step) to the judgement kept",
      units: 'milliseconds',
      coding: "empty: no time limit, or the step's start or end did not reach the Worker",
      value: (r) => r.r.finalStepMs,
    },
    outcomeColumn('user_model_prediction', "Prediction of the participant's own model", (r) => r.r.userModelPrediction),
    { name: 'user_model_probability', type: 'number', meaning: "Participant model's probability of the positive class", units: 'probability 0–1', value: (r) => r.r.userModelProbability },
    { name: 'user_model_identifier', type: 'text', meaning: "Version of the participant's model", value: (r) => r.r.userModelIdentifier },
    outcomeColumn('final_prediction', 'Prediction after seeing the AI', (r) => r.r.finalPrediction),
    { name: 'final_confidence', type: 'integer', meaning: 'Confidence after seeing the AI', coding: CONFIDENCE, value: (r) => r.r.finalConfidence },
    { name: 'final_correct', type: 'boolean', meaning: 'final_prediction equals ground_truth', coding: TRUE_FALSE, value: (r) => correctness(r.r.finalPrediction, r.r.groundTruth) },
    { name: 'final_response_time_ms', type: 'integer', meaning: 'From the first frame that showed the final-judgement step (after the explanation was confirmed, after the initial judgement\'s 300 ms pause without AI, or once the AI shown with the case has rendered) to the click that submitted the final judgement (decision time; the 300 ms "sending" pause after the click is not included); the same in every condition', units: 'milliseconds', value: (r) => r.r.finalResponseTimeMs },
    { name: 'final_reasoning', type: 'text', meaning: 'Optional reason given with the final judgement', value: (r) => r.r.finalReasoning },
    {
      name: 'judgment_changed',
      type: 'boolean',
      meaning: 'final_prediction differs from initial_prediction',
      coding: TRUE_FALSE,
      value: (r) => (r.r.finalPrediction === null || r.r.initialPrediction === null ? null : r.r.finalPrediction !== r.r.initialPrediction),
    },
    {
      name: 'agrees_with_ai',
      type: 'boolean',
      meaning: 'final_prediction equals ai_prediction',
      coding: TRUE_FALSE,
      value: (r) => (r.r.finalPrediction === null || r.r.aiPrediction === null ? null : r.r.finalPrediction === r.r.aiPrediction),
    },
    rating('comprehensibility', 'Rating: the explanation was easy to understand'),
    rating('transparency', "Rating: the explanation made the AI's reasoning transparent"),
    rating('satisfaction', 'Rating: satisfied with the explanation'),
    rating('trust', 'Rating: trust in the AI for this case'),
    rating('alignment', 'Rating: the explanation matched how the participant reasons'),
    { name: 'explanation_viewing_time_ms', type: 'integer', meaning: 'From the first frame that showed the explanation (its chart rendered) to the click that confirmed it', units: 'milliseconds', value: (r) => r.r.explanationViewingTimeMs },
    { name: 'total_task_time_ms', type: 'integer', meaning: 'The whole case: from the case being shown to the click that submitted the ratings (the sending pauses and the explanation\'s loading included)', units: 'milliseconds', value: (r) => r.r.totalTaskTimeMs },
    { name: 'created_at', type: 'timestamp', meaning: 'When the server first stored a step of this case', coding: UTC, value: (r) => r.r.createdAt },
    { name: 'completed_at', type: 'timestamp', meaning: 'When the server stored the completed case', coding: UTC, value: (r) => r.r.completedAt },
  ],
  pages: (db, filter, cursor) => keysetPages((after) => mainPage(db, filter, after), (r) => r.r.id, cursor),
  resumable: true,
};

// ---------------------------------------------------------------------------------------------
type Contribution = { feature: string; importance: number; abs_importance: number; raw_shap: number };
type ImportanceRow = { m: MainRow; source: 'ai' | 'user' | 'shown'; c: Contribution; rank: number };

const contributionsOf = (value: unknown): Contribution[] => (Array.isArray(value) ? (value as Contribution[]) : []);

export const featureImportanceTable: ExportTable<ImportanceRow> = {
  name: 'feature-importance',
  description: "One row per feature of each explanation of a completed main-experiment case: the AI's own contributions, the participant model's, and the bars shown.",
  columns: [
    { name: 'response_id', type: 'integer', meaning: 'Main-experiment response id', value: (r) => r.m.r.id },
    { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.m.username },
    { name: 'session_id', type: 'text', meaning: 'Session ID', value: (r) => r.m.sessionId },
    datasetColumn('Dataset', (r) => r.m.datasetType),
    { name: 'case_id', type: 'text', meaning: 'Case explained', value: (r) => r.m.r.caseId },
    { name: 'alignment_alpha', type: 'number', meaning: 'Alpha of the case', units: '0–1', value: (r) => r.m.r.alignmentAlpha },
    {
      name: 'source',
      type: 'category',
      meaning: 'Whose contributions the row holds',
      coding: "ai = the AI model's TreeSHAP; user = the participant model's TreeSHAP; shown = the bars on screen (alpha mix, renormalised)",
      value: (r) => r.source,
    },
    { name: 'feature', type: 'text', meaning: 'Feature name (see the dataset columns of case-data)', value: (r) => r.c.feature },
    { name: 'importance', type: 'number', meaning: 'Signed share of the feature; absolute values of one explanation sum to 1', units: 'share −1…1', value: (r) => r.c.importance },
    { name: 'abs_importance', type: 'number', meaning: 'Absolute value of importance', units: 'share 0…1', value: (r) => r.c.abs_importance },
    { name: 'raw_shap', type: 'number', meaning: 'TreeSHAP contribution before normalisation', units: 'log-odds', value: (r) => r.c.raw_shap },
    { name: 'rank', type: 'integer', meaning: 'Rank by abs_importance within the explanation (1 = largest)', value: (r) => r.rank },
  ],
  resumable: true,
  async *pages(db, filter, cursor) {
    for await (const page of keysetPages((after) => mainPage(db, filter, after), (r) => r.r.id, cursor)) {
      const rows: ImportanceRow[] = [];
      for (const m of page) {
        const bars = trialBars(m.r, m.served);
        const sources = [
          ['ai', bars.ai],
          ['user', bars.user],
          ['shown', bars.shown],
        ] as const;
        for (const [source, list] of sources) {
          const ranked = [...contributionsOf(list)].sort((a, b) => b.abs_importance - a.abs_importance);
          ranked.forEach((c, i) => rows.push({ m, source, c, rank: i + 1 }));
        }
      }
      if (rows.length > 0) yield rows;
    }
  },
};

// ---------------------------------------------------------------------------------------------
/** Sessions per page of case sets: a session's sets are 250 cases, and a page holds whole sessions. */
const CASE_SET_SESSIONS_PER_PAGE = Math.max(1, Math.floor(EXPORT_PAGE_ROWS / (STUDY_CASE_COUNTS.pre + STUDY_CASE_COUNTS.main)));

/**
 * The case sets of the next sessions after session id `after` that have any, session by session
 * (in the order sessions began), each session's pre-experiment set before its main set, each in
 * the order shown. The sets are kept by their key alone (no rowid, migration 0029): a page's key
 * is its last session's id.
 */
const casePage = (db: Db, filter: ExportFilter, after: number) => {
  const next = db
    .select({ id: sessions.id })
    .from(sessions)
    .innerJoin(participants, eq(participants.id, sessions.participantId))
    .where(and(gt(sessions.id, after), byUser(filter), sql`exists (select 1 from ${caseSetItems} where ${caseSetItems.sessionId} = ${sessions.sessionId})`))
    .orderBy(asc(sessions.id))
    .limit(CASE_SET_SESSIONS_PER_PAGE);
  return db
    .select({
      rowKey: sessions.id,
      item: caseSetItems,
      c: cases,
      username: participants.participantCode,
    })
    .from(caseSetItems)
    .innerJoin(cases, eq(cases.caseId, caseSetItems.caseId))
    .innerJoin(sessions, eq(sessions.sessionId, caseSetItems.sessionId))
    .innerJoin(participants, eq(participants.id, sessions.participantId))
    .where(inArray(sessions.id, next))
    .orderBy(asc(sessions.id), sql`${caseSetItems.phase} = ${STORED_CASE_PHASE.main_experiment}`, asc(caseSetItems.position));
};
type CaseRow = Awaited<ReturnType<typeof casePage>>[number];

/** Every dataset's features, once each, in dataset order; a case has values only for its own dataset's. */
function featureColumns(): Column<CaseRow>[] {
  const columns: Column<CaseRow>[] = [];
  for (const dataset of DATASET_TYPES) {
    for (const feature of datasetFeatures(dataset)) {
      const existing = columns.find((c) => c.name === feature.name);
      if (existing) {
        existing.meaning += `; ${dataset}: ${feature.meaning}`;
        continue;
      }
      columns.push({
        name: feature.name,
        type: feature.type,
        meaning: `${dataset}: ${feature.meaning}`,
        units: feature.units,
        value: (r) => r.c.features[feature.name] ?? null,
      });
    }
  }
  return columns;
}

export const caseDataTable: ExportTable<CaseRow> = {
  name: 'case-data',
  description:
    "One row per case of each session's case sets, session by session in the order sessions began, the pre-experiment set before the main one, each in the order shown, with the case's features (empty for other datasets' features).",
  get columns() {
    return [
      { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.username },
      { name: 'session_id', type: 'text', meaning: 'Session ID', value: (r) => r.item.sessionId },
      { name: 'phase', type: 'category', meaning: 'Phase the case set belongs to', coding: 'pre_experiment, main_experiment', value: (r) => r.item.phase },
      { name: 'position', type: 'integer', meaning: 'Position in the set (0 = first shown)', value: (r) => r.item.position },
      { name: 'case_id', type: 'text', meaning: 'Case id', value: (r) => r.c.caseId },
      datasetColumn('Dataset of the case', (r) => r.c.datasetType),
      { name: 'pool', type: 'category', meaning: 'Case pool', coding: 'tutorial, pre_experiment, main_experiment', value: (r) => r.c.pool },
      outcomeColumn('ground_truth', 'True outcome', (r) => r.c.groundTruth),
      { name: 'alignment_alpha', type: 'number', meaning: 'Alpha fixed for the case when the main set was drawn', units: '0–1', value: (r) => r.item.alignmentAlpha },
      {
        name: 'source_row',
        type: 'integer',
        meaning: `0-based index of the case's row among the rows the set-up reads from the dataset's source files, in file order (${sourceRows()}). Every case comes from the set-up's held-out test split, which its AI model never trained on; the index itself numbers all rows, not that split`,
        value: (r) => r.c.sourceRow,
      },
      ...featureColumns(),
    ] satisfies Column<CaseRow>[];
  },
  pages: (db, filter, cursor) => keysetPages((after) => casePage(db, filter, after), (r) => r.rowKey, cursor, { untilEmpty: true }),
  resumable: true,
};

// ---------------------------------------------------------------------------------------------
const surveyPage = (db: Db, filter: ExportFilter, after: number) =>
  db
    .select({ r: postSurveys, username: participants.participantCode })
    .from(postSurveys)
    .innerJoin(participants, eq(participants.id, postSurveys.participantId))
    .where(and(gt(postSurveys.id, after), byUser(filter)))
    .orderBy(asc(postSurveys.id))
    .limit(EXPORT_PAGE_ROWS);
type SurveyRow = Awaited<ReturnType<typeof surveyPage>>[number];

/**
 * A multiselect's tidy form beside its JSON cell: one 0/1 column per option (1 = chosen), named
 * `<question>__<option>`, empty when the question was not answered.
 */
function optionColumns(sectionId: string, q: AnsweredQuestion): Column<SurveyRow>[] {
  if (q.kind !== 'multiselect') return [];
  const read = (r: SurveyRow) => (r.r[sectionId as 'demographics'] as Record<string, unknown>)[q.name];
  return q.options.map((o) => ({
    name: `${q.name}__${o.value}`,
    type: 'integer',
    meaning: `${q.label.en}: option "${o.label.en}" chosen`,
    coding: `1 = chosen, 0 = not chosen, empty = question not answered (the same answer as the JSON column ${q.name})`,
    value: (r: SurveyRow) => {
      const answer = parseMultiselect(read(r));
      return answer ? Number(answer.selections.includes(o.value)) : null;
    },
  }));
}

function questionColumn(sectionId: string, q: AnsweredQuestion): Column<SurveyRow> {
  const read = (r: SurveyRow) => (r.r[sectionId as 'demographics'] as Record<string, unknown>)[q.name] ?? null;
  const meaning = q.label.en;
  switch (q.kind) {
    case 'scale':
      return {
        name: q.name,
        type: 'integer',
        meaning: `${meaning}${q.factor ? ` (factor ${q.factor}${q.reverse ? ', reverse-keyed' : ''})` : ''}`,
        coding: `${q.min}–${q.max} (${q.anchors})`,
        value: read,
      };
    case 'number':
      return { name: q.name, type: 'number', meaning, coding: `${q.min}–${q.max}`, units: q.unit?.en, value: read };
    case 'radio':
      return { name: q.name, type: 'category', meaning, coding: q.options.map((o) => `${o.value} = ${o.label.en}`).join('; '), value: read };
    case 'multiselect':
      return {
        name: q.name,
        type: 'json',
        meaning,
        coding: `JSON {"selections": [...], "other_text": "..."}; options: ${q.options.map((o) => o.value).join(', ')}`,
        value: read,
      };
    case 'text':
      return { name: q.name, type: 'text', meaning, coding: `free text, at most ${q.maxLength} characters`, value: read };
  }
}

export const postSurveyTable: ExportTable<SurveyRow> = {
  name: 'post-survey',
  description: 'One row per submitted post-survey: every answer by question name, then the factor scores.',
  columns: [
    { name: 'id', type: 'integer', meaning: 'Post-survey id', value: (r) => r.r.id },
    { name: 'user_id', type: 'integer', meaning: "Participant's numeric id", value: (r) => r.r.participantId },
    { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.username },
    { name: 'session_id', type: 'text', meaning: 'Session ID', value: (r) => r.r.sessionId },
    { name: 'experiment_rating', type: 'integer', meaning: 'Overall rating of the experiment', coding: '1–7', value: (r) => r.r.experimentRating },
    { name: 'overall_feedback', type: 'text', meaning: 'Overall free-text feedback', value: (r) => r.r.overallFeedback },
    ...postSurvey.sections.flatMap((section) =>
      answeredQuestions(section)
        .filter((q) => q.name !== 'experiment_rating' && q.name !== 'overall_feedback')
        .flatMap((q) => [questionColumn(section.id, q), ...optionColumns(section.id, q)]),
    ),
    ...FACTORS.map(
      (factor): Column<SurveyRow> => ({
        name: `score_${factor}`,
        type: 'number',
        meaning: `Score of ${factor}, reverse-keyed items reversed`,
        coding: 'mean or sum of the factor items as configured (FACTOR_SCORING); empty when an item is missing',
        value: (r) => scorePostSurvey(r.r)[factor],
      }),
    ),
    { name: 'created_at', type: 'timestamp', meaning: 'When the post-survey was stored', coding: UTC, value: (r) => r.r.createdAt },
  ],
  pages: (db, filter, cursor) => keysetPages((after) => surveyPage(db, filter, after), (r) => r.r.id, cursor),
  resumable: true,
};

// ---------------------------------------------------------------------------------------------
const consentPage = (db: Db, filter: ExportFilter, after: number) =>
  db
    .select({ r: consentRecords, username: participants.participantCode })
    .from(consentRecords)
    .innerJoin(participants, eq(participants.id, consentRecords.participantId))
    .where(and(gt(consentRecords.id, after), byUser(filter)))
    .orderBy(asc(consentRecords.id))
    .limit(EXPORT_PAGE_ROWS);
type ConsentRow = Awaited<ReturnType<typeof consentPage>>[number];

export const consentTable: ExportTable<ConsentRow> = {
  name: 'consent-records',
  description: 'One row per consent given, with each of the seven items.',
  columns: [
    { name: 'id', type: 'integer', meaning: 'Consent record id', value: (r) => r.r.id },
    { name: 'user_id', type: 'integer', meaning: "Participant's numeric id", value: (r) => r.r.participantId },
    { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.username },
    { name: 'session_id', type: 'text', meaning: 'Session ID', value: (r) => r.r.sessionId },
    { name: 'study_version', type: 'text', meaning: 'Version of the consent text agreed to (consentVersion of the study configuration)', value: (r) => r.r.studyVersion },
    ...CONSENT_ITEMS.map(
      (item): Column<ConsentRow> => ({
        name: `consent_${item}`,
        type: 'boolean',
        meaning: `Consent item "${item}" was ticked`,
        coding: TRUE_FALSE,
        value: (r) => r.r.consentItems[item] === true,
      }),
    ),
    { name: 'consented_at', type: 'timestamp', meaning: 'When consent was given', coding: UTC, value: (r) => r.r.consentedAt },
    { name: 'ip_address', type: 'text', meaning: "Client address as Cloudflare's edge reported it (empty in local runs)", value: (r) => r.r.ipAddress },
  ],
  pages: (db, filter, cursor) => keysetPages((after) => consentPage(db, filter, after), (r) => r.r.id, cursor),
  resumable: true,
};

// ---------------------------------------------------------------------------------------------
const attemptPage = (db: Db, filter: ExportFilter, after: number) =>
  db
    .select({ r: understandingTestAttempts, username: participants.participantCode })
    .from(understandingTestAttempts)
    .innerJoin(participants, eq(participants.id, understandingTestAttempts.participantId))
    .where(and(gt(understandingTestAttempts.id, after), byUser(filter)))
    .orderBy(asc(understandingTestAttempts.id))
    .limit(EXPORT_PAGE_ROWS);
type AttemptRow = Awaited<ReturnType<typeof attemptPage>>[number];

export const understandingTestTable: ExportTable<AttemptRow> = {
  name: 'understanding-test',
  description: "One row per attempt at the main experiment's understanding test.",
  columns: [
    { name: 'id', type: 'integer', meaning: 'Attempt id', value: (r) => r.r.id },
    { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.username },
    { name: 'session_id', type: 'text', meaning: 'Session ID', value: (r) => r.r.sessionId },
    { name: 'attempt_number', type: 'integer', meaning: 'Attempt number within the session (1 = first)', value: (r) => r.r.attemptNumber },
    { name: 'correct_count', type: 'integer', meaning: 'Questions answered correctly', value: (r) => r.r.correctCount },
    { name: 'total_questions', type: 'integer', meaning: 'Questions asked', value: (r) => r.r.totalQuestions },
    { name: 'passed', type: 'boolean', meaning: 'All questions correct (pass mark 100 %)', coding: TRUE_FALSE, value: (r) => r.r.passed },
    { name: 'answers', type: 'json', meaning: 'Questions in the order asked with the answer given', coding: 'JSON [{"question_id", "answer", "correct"}]', value: (r) => r.r.answers },
    { name: 'created_at', type: 'timestamp', meaning: 'When the attempt was stored', coding: UTC, value: (r) => r.r.createdAt },
  ],
  pages: (db, filter, cursor) => keysetPages((after) => attemptPage(db, filter, after), (r) => r.r.id, cursor),
  resumable: true,
};

// ---------------------------------------------------------------------------------------------
const servedPage = (db: Db, filter: ExportFilter, after: number) =>
  db
    .select({ r: serveColumns, username: participants.participantCode, pool: cases.pool })
    .from(servedExplanations)
    .innerJoin(sessions, eq(sessions.sessionId, servedExplanations.sessionId))
    .leftJoin(cases, eq(cases.caseId, servedExplanations.caseId))
    .innerJoin(participants, eq(participants.id, sessions.participantId))
    .where(and(gt(servedExplanations.id, after), byUser(filter)))
    .orderBy(asc(servedExplanations.id))
    .limit(EXPORT_PAGE_ROWS);
type ServedRow = Awaited<ReturnType<typeof servedPage>>[number];

export const servedExplanationsTable: ExportTable<ServedRow> = {
  name: 'served-explanations',
  description:
    "One row per distinct explanation or prediction the Worker served a participant, for a case of their main set or the practice case: every piece of the AI a participant was shown, the record each main-experiment row's AI side is copied from (its served_explanation_id), including serves no stored case names (the practice case, a case the participant left), with how often and when each was served.",
  columns: [
    { name: 'id', type: 'integer', meaning: 'Serve id (main-experiment served_explanation_id)', value: (r) => r.r.id },
    { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.username },
    { name: 'session_id', type: 'text', meaning: 'Session ID', value: (r) => r.r.sessionId },
    { name: 'case_id', type: 'text', meaning: 'Case served (see case-data)', value: (r) => r.r.caseId },
    {
      name: 'practice',
      type: 'boolean',
      meaning: "The case is the tutorial's practice case (no participant judges it for the record); false: a case of the participant's main set",
      coding: TRUE_FALSE,
      value: (r) => r.pool === 'tutorial',
    },
    {
      name: 'kind',
      type: 'category',
      meaning: 'What was served',
      coding:
        "human_aligned = alpha mix of AI and participant's model; ai_explanation = the AI's own bars because the condition shows them by design; ai_only = the AI's own bars as the fallback for an unusable participant model (see ai_only_reason); prediction_only = the prediction without bars",
      value: (r) => r.r.kind,
    },
    { name: 'ai_only_reason', type: 'category', meaning: "Why the AI's own bars were served (as in main-experiment)", coding: `${FALLBACK_REASON_CODING}; empty otherwise`, value: (r) => r.r.aiOnlyReason },
    { name: 'ai_model_identifier', type: 'text', meaning: 'AI model version (the one pinned to the session)', value: (r) => r.r.aiModelIdentifier },
    { name: 'user_model_identifier', type: 'text', meaning: "Participant model version (empty when none was used)", value: (r) => r.r.userModelIdentifier },
    { ...ALPHA_SHOWN, value: (r) => (r.r.kind === 'human_aligned' ? r.r.alignmentAlpha : null) },
    { name: 'ai_prediction', type: 'integer', meaning: "The AI's prediction", coding: '0 or 1 (see ground_truth in main-experiment)', value: (r) => r.r.aiPrediction },
    { name: 'ai_probability', type: 'number', meaning: "AI model's probability of the positive class (computed whether or not it was shown)", units: 'probability 0–1', value: (r) => r.r.aiProbability },
    { name: 'ai_base_probability', type: 'number', meaning: "The AI's starting point before any feature (sigmoid of TreeSHAP's base value)", units: 'probability 0–1', value: (r) => r.r.aiBaseProbability },
    { name: 'ai_confidence_shown', type: 'boolean', meaning: "Whether the AI's confidence (its probability for the class it predicts) was served with its prediction: the condition's aiConfidence", coding: 'true or false', value: (r) => r.r.aiConfidenceShown },
    { name: 'stated_accuracy', type: 'number', meaning: "The accuracy the panel stated: the model's measured test accuracy or the condition's stated figure (statedAccuracy)", units: 'proportion 0–1', coding: 'empty: none stated', value: (r) => r.r.statedAccuracy },
    { name: 'user_model_prediction', type: 'integer', meaning: "Participant model's prediction by the spec's rule (shares summing above 0)", value: (r) => r.r.userModelPrediction },
    { name: 'user_model_probability', type: 'number', meaning: "Participant model's probability of the positive class", units: 'probability 0–1', value: (r) => r.r.userModelProbability },
    { name: 'shown_feature_importance', type: 'json', meaning: 'The bars served, in order', coding: 'JSON [{"feature", "importance", "abs_importance", "raw_shap"}]', value: (r) => barsOfServe(r.r).shown },
    { name: 'serve_count', type: 'integer', meaning: 'How many times this same serve was given (reloads, retries)', value: (r) => r.r.serveCount },
    { name: 'first_served_at', type: 'timestamp', meaning: 'First served', coding: UTC, value: (r) => r.r.firstServedAt },
    { name: 'last_served_at', type: 'timestamp', meaning: 'Last served', coding: UTC, value: (r) => r.r.lastServedAt },
  ],
  pages: (db, filter, cursor) => keysetPages((after) => servedPage(db, filter, after), (r) => r.r.id, cursor),
  resumable: true,
};

// ---------------------------------------------------------------------------------------------
const modelPage = (db: Db, filter: ExportFilter, after: number) =>
  db
    .select({ r: userModels, username: participants.participantCode, supersededAt: sql<string | null>`null` })
    .from(userModels)
    .innerJoin(participants, eq(participants.id, userModels.participantId))
    .where(and(gt(userModels.id, after), byUser(filter)))
    .orderBy(asc(userModels.id))
    .limit(EXPORT_PAGE_ROWS);
const replacedModelPage = (db: Db, filter: ExportFilter, after: number) =>
  db
    .select({ r: userModelVersions, username: participants.participantCode, supersededAt: userModelVersions.supersededAt })
    .from(userModelVersions)
    .innerJoin(participants, eq(participants.id, userModelVersions.participantId))
    .where(and(gt(userModelVersions.id, after), byUser(filter)))
    .orderBy(asc(userModelVersions.id))
    .limit(EXPORT_PAGE_ROWS);
type ModelRow = Awaited<ReturnType<typeof modelPage>>[number];

export const userModelsTable: ExportTable<ModelRow> = {
  name: 'user-models',
  description: "One row per participant model fitted on the participant's pre-experiment answers: each session's current model, then every version a retrain replaced (main-experiment rows name the version that explained each case).",
  columns: [
    { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.username },
    { name: 'session_id', type: 'text', meaning: 'Session ID', value: (r) => r.r.sessionId },
    datasetColumn('Dataset', (r) => r.r.datasetType),
    { name: 'status', type: 'category', meaning: 'Training outcome', coding: 'trained, training_failed', value: (r) => r.r.status },
    { name: 'model_identifier', type: 'text', meaning: 'Model version', value: (r) => r.r.modelIdentifier },
    { name: 'training_samples', type: 'integer', meaning: 'Pre-experiment answers trained on', value: (r) => r.r.trainingSamples },
    { name: 'num_trees', type: 'integer', meaning: 'Boosted trees', value: (r) => r.r.numTrees },
    { name: 'num_leaves', type: 'integer', meaning: 'Leaves per tree at most', value: (r) => r.r.numLeaves },
    { name: 'max_depth', type: 'integer', meaning: 'Tree depth at most', value: (r) => r.r.maxDepth },
    { name: 'learning_rate', type: 'number', meaning: 'Shrinkage', value: (r) => r.r.learningRate },
    { name: 'train_accuracy', type: 'number', meaning: "Share of the participant's own answers the model reproduces", units: '0–1', value: (r) => r.r.trainAccuracy },
    { name: 'training_duration_ms', type: 'number', meaning: 'Training time in the Worker', units: 'milliseconds', value: (r) => r.r.trainingDurationMs },
    { name: 'failure_reason', type: 'text', meaning: 'Why training failed', value: (r) => r.r.failureReason },
    { name: 'trained_at', type: 'timestamp', meaning: 'When the model was fitted', coding: UTC, value: (r) => r.r.trainedAt },
    { name: 'superseded_at', type: 'timestamp', meaning: "When a retrain replaced this version (empty for the session's current model)", coding: UTC, value: (r) => r.supersededAt },
  ],
  async *pages(db, filter) {
    yield* keysetPages((after) => modelPage(db, filter, after), (r) => r.r.id);
    yield* keysetPages((after) => replacedModelPage(db, filter, after), (r) => r.r.id);
  },
};

// ---------------------------------------------------------------------------------------------
const aiModelPage = (db: Db, _filter: ExportFilter, after: number) =>
  db.select().from(aiModels).where(gt(aiModels.id, after)).orderBy(asc(aiModels.id)).limit(EXPORT_PAGE_ROWS);
type AiModelRow = Awaited<ReturnType<typeof aiModelPage>>[number];
const metric = (r: AiModelRow, name: string) => (typeof r.metrics[name] === 'number' ? r.metrics[name] : null);

export const aiModelsTable: ExportTable<AiModelRow> = {
  name: 'ai-models',
  description: "Every AI model version the study has held (set-up, an administrator's retrain, or a researcher's upload); main-experiment rows name the one that explained each case.",
  columns: [
    { name: 'model_identifier', type: 'text', meaning: 'Model version (ai_<dataset>_<first 12 hex digits of the SHA-256 of its file>)', value: (r) => r.modelIdentifier },
    datasetColumn('Dataset', (r) => r.datasetType),
    { name: 'status', type: 'category', meaning: 'Status at export', coding: 'active = serves new sessions; retired = an earlier version (sessions that started with it keep it); candidate = uploaded, never activated', value: (r) => r.status },
    { name: 'origin', type: 'category', meaning: 'Where the model came from', coding: 'setup = npm start from the datasets; admin_dataset = built when the dataset was added on the dashboard; admin_retrain = retrained on the dashboard; admin_upload = a researcher\'s own model', value: (r) => originOf(r.params.trained_by) },
    { name: 'source_format', type: 'category', meaning: 'Format an uploaded model came in', coding: 'lightgbm (dump_model JSON), xdl-gbdt; empty for models trained here', value: (r) => (typeof r.params.source_format === 'string' ? r.params.source_format : null) },
    { name: 'test_accuracy', type: 'number', meaning: "Accuracy on rows its training did not use: the set-up's and a retrain's own test rows. For an uploaded model: on the experiment cases, which the set-up's model never trained on but the uploaded model may have been trained on (the shipped LightGBM fixtures were trained on most of adult income's), so for it this is no held-out estimate", units: '0–1', value: (r) => metric(r, 'test_accuracy') },
    { name: 'test_f1_score', type: 'number', meaning: 'F1 score on the same rows', units: '0–1', value: (r) => metric(r, 'test_f1_score') },
    { name: 'test_samples', type: 'integer', meaning: 'Rows the test metrics were computed on', value: (r) => metric(r, 'test_samples') },
    { name: 'file_size_bytes', type: 'integer', meaning: 'Size of the model file in R2', units: 'bytes', value: (r) => r.fileSizeBytes },
    { name: 'trained_at', type: 'timestamp', meaning: 'When the model was trained or uploaded', coding: UTC, value: (r) => r.trainedAt },
  ],
  pages: (db, filter, cursor) => keysetPages((after) => aiModelPage(db, filter, after), (r) => r.id, cursor),
  resumable: true,
};

// ---------------------------------------------------------------------------------------------
const withdrawalPage = (db: Db, after: number) =>
  db
    .select({ id: auditLog.id, createdAt: auditLog.createdAt })
    .from(auditLog)
    .where(and(gt(auditLog.id, after), eq(auditLog.action, 'participant_withdrawal')))
    .orderBy(asc(auditLog.id))
    .limit(EXPORT_PAGE_ROWS);
type WithdrawalRow = Awaited<ReturnType<typeof withdrawalPage>>[number];

export const withdrawalsTable: ExportTable<WithdrawalRow> = {
  name: 'withdrawals',
  description: 'One row per participant who withdrew: only the time (their data was deleted, so nothing else about them exists).',
  columns: [{ name: 'withdrawn_at', type: 'timestamp', meaning: 'When a participant withdrew and their data was deleted', coding: UTC, value: (r) => r.createdAt }],
  // Not anyone's rows: an export for one participant has none.
  async *pages(db, filter) {
    if (!filter.userName) yield* keysetPages((after) => withdrawalPage(db, after), (r) => r.id);
  },
};
