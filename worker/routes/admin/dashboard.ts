import { Hono } from 'hono';
import type { z } from 'zod';
import {
  activeSessions,
  dashboardStats,
  deleteMainResponse,
  deletePostSurvey,
  deletePreResponse,
  findMainResponse,
  listConsentRecords,
  listPostSurveys,
  listResponses,
  listSessions,
  listUsers,
  studyConfigUsage,
  TEST_USER_PREFIX,
} from '../../db/queries/admin';
import type { AppEnv } from '../../env';
import { notFound } from '../../errors';
import {
  activeQuerySchema,
  type activeSessionsSchema,
  populationQuerySchema,
  numericIdParamSchema,
  paginationQuerySchema,
  responseDeleteQuerySchema,
  responseListQuerySchema,
  userListQuerySchema,
  type adminPostSurveySchema,
  type adminResponseSchema,
  type adminStatsSchema,
  type consentRecordsResponseSchema,
  type participantDeletionSchema,
  type rowDeletionSchema,
  type sessionsResponseSchema,
  type studyConfigResponseSchema,
  type usersResponseSchema,
} from '../../schemas/admin';
import { scorePostSurvey } from '../../schemas/post-survey';
import { deleteParticipant } from '../../services/admin-data';
import { qualityFlags } from '../../services/analytics/quality-flags';
import { dropKeptReliance } from '../../services/analytics/report-cache';
import { currentStudyConfig } from '../../services/study-configuration';
import { abandonCutoff } from '../../services/recruitment';
import { validate } from '../../validate';

type ListedResponse = Awaited<ReturnType<typeof listResponses>>['rows'][number];

const correct = (prediction: number | null, truth: number) => (prediction === null ? null : prediction === truth);

/** Part 2 §3 "Response (admin)" from either phase's row. */
function toAdminResponse(r: ListedResponse): z.infer<typeof adminResponseSchema> {
  const isMain = r.experimentType === 'main_experiment';
  const completed = r.completedAt !== null;
  return {
    id: r.id,
    user: r.username,
    user_id: r.userId,
    user_name: r.username,
    session_id: r.sessionId,
    experiment_type: r.experimentType,
    task_name: `${r.datasetType}:${r.experimentType}`,
    dataset_type: r.datasetType,
    case_id: r.caseId,
    case_number: r.caseNumber,
    prediction: r.prediction,
    confidence: r.confidence,
    ground_truth: r.groundTruth,
    is_correct: correct(r.prediction, r.groundTruth),
    response_time_ms: r.responseTimeMs,
    created_at: r.createdAt,
    completed,
    response_metadata: { reasoning: r.reasoning, completed_at: r.completedAt },
    case_data_json: r.caseData === null ? null : JSON.stringify(r.caseData),
    initial_prediction: isMain ? r.initialPrediction : null,
    initial_confidence: isMain ? r.initialConfidence : null,
    initial_correct: isMain ? correct(r.initialPrediction, r.groundTruth) : null,
    final_prediction: isMain ? r.prediction : null,
    final_confidence: isMain ? r.confidence : null,
    judgment_changed: isMain && r.prediction !== null && r.initialPrediction !== null ? r.prediction !== r.initialPrediction : null,
    ai_prediction: r.aiPrediction,
    alignment_alpha: r.alignmentAlpha,
  };
}

const rate = (part: number | null, whole: number) => (whole > 0 && part !== null ? part / whole : null);
const nonEmpty = (section: Record<string, unknown>) => Object.values(section).some((v) => v !== null && v !== undefined && v !== '');
const AI_LITERACY_ITEMS = ['ai_trust_before_disclosure', 'ai_understanding_before_disclosure', 'ai_explanation_helpfulness_before'];

type PostSurveyRow = Awaited<ReturnType<typeof listPostSurveys>>['rows'][number];
function toAdminPostSurvey({ row, username }: PostSurveyRow): z.infer<typeof adminPostSurveySchema> {
  const { demographics, benevolent, bigfive, locus, cognition } = row;
  return {
    id: row.id,
    user: username,
    user_id: row.participantId,
    session_id: row.sessionId,
    experiment_rating: row.experimentRating,
    overall_feedback: row.overallFeedback,
    has_demographics: nonEmpty(demographics),
    has_personality_traits: nonEmpty(bigfive) || nonEmpty(locus) || nonEmpty(cognition),
    has_ai_literacy: AI_LITERACY_ITEMS.some((name) => demographics[name] !== null && demographics[name] !== undefined),
    has_ethics_responses: nonEmpty(benevolent),
    scores: scorePostSurvey(row),
    sections: { demographics, benevolent, bigfive, locus, cognition },
    created_at: row.createdAt,
  };
}

/** The dashboard's reads and single-row deletions (part 2 §2.6, §7); the admin guard covers them all. */
export const adminDashboardRoutes = new Hono<AppEnv>()
  .get('/users', validate('query', userListQuerySchema), async (c) => {
    const q = c.req.valid('query');
    const quality = await qualityFlags(c.var.db);
    const onlyIds = q.flag ? [...quality].filter(([, v]) => (q.flag === 'any' ? v.flags.length > 0 : v.flags.includes(q.flag!))).map(([id]) => id) : undefined;
    const { rows, total } = await listUsers(c.var.db, { limit: q.limit, offset: q.offset, userName: q.user_name, onlyIds, abandonCutoff: abandonCutoff(new Date().toISOString()) });
    const body: z.infer<typeof usersResponseSchema> = {
      total,
      users: rows.map((r) => ({
        id: r.id,
        username: r.username,
        display_name: r.displayName,
        email: null,
        is_active: r.isActive,
        is_test: r.username.startsWith(TEST_USER_PREFIX),
        origin: r.origin,
        created_at: r.createdAt,
        session_id: r.sessionId,
        dataset_type: r.datasetType,
        current_phase: r.currentPhase,
        consented: r.consentedAt !== null,
        pre_experiment_count: r.preCount,
        main_experiment_count: r.mainCount,
        post_survey_completed: r.postSurveyCompletedAt !== null,
        recruited_via_prolific: r.prolific,
        screened_out: r.screenedOutAt !== null,
        study_config_version: r.studyConfigVersion,
        quality_flags: quality.get(r.id)?.flags ?? [],
        last_activity_at: r.lastActivityAt,
        place: r.place,
      })),
    };
    return c.json(body);
  })
  .delete('/users/:id', validate('param', numericIdParamSchema), async (c) => {
    const id = c.req.valid('param').id;
    const { username, deleted, deletedModelFiles } = await deleteParticipant(c.var.db, c.env.MODELS, id);
    if (username === null) throw notFound(`No participant with id ${id}`);
    // Only after the refusal: an unknown id changes nothing, not even the kept reports.
    await dropKeptReliance(c.env.EXPORTS);
    // The audit entry keeps what was deleted and how much, not whose answers they were.
    c.set('audit', { action: 'delete_participant', targetType: 'participant', targetId: String(id), details: { deleted, deleted_model_files: deletedModelFiles } });
    const body: z.infer<typeof participantDeletionSchema> = {
      success: true,
      message: `Participant ${username} and all of their data were deleted`,
      user_id: id,
      username,
      deleted,
      deleted_model_files: deletedModelFiles,
    };
    return c.json(body);
  })
  .get('/sessions', validate('query', paginationQuerySchema), async (c) => {
    const { rows, total } = await listSessions(c.var.db, c.req.valid('query'));
    const body: z.infer<typeof sessionsResponseSchema> = {
      total,
      sessions: rows.map((r) => ({
        id: r.id,
        session_id: r.sessionId,
        user_id: r.userId,
        user_name: r.username,
        dataset_type: r.datasetType,
        current_phase: r.currentPhase,
        language: r.language,
        consented_at: r.consentedAt,
        pre_completed_at: r.preCompletedAt,
        main_started_at: r.mainStartedAt,
        main_completed_at: r.mainCompletedAt,
        post_survey_completed_at: r.postSurveyCompletedAt,
        created_at: r.createdAt,
      })),
    };
    return c.json(body);
  })
  .get('/responses', validate('query', responseListQuerySchema), async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listResponses(
      c.var.db,
      { limit: q.limit, offset: q.offset },
      { experimentType: q.experiment_type, userName: q.user_name, sessionId: q.session_id, caseId: q.case_id },
    );
    return c.json({ total, responses: rows.map(toAdminResponse) });
  })
  // The detail dialog of a main-experiment case: everything stored, including the bars shown.
  .get('/responses/main/:id', validate('param', numericIdParamSchema), async (c) => {
    const row = await findMainResponse(c.var.db, c.req.valid('param').id);
    if (!row) throw notFound('No main-experiment response with this id');
    return c.json(row);
  })
  .delete('/responses/:id', validate('param', numericIdParamSchema), validate('query', responseDeleteQuerySchema), async (c) => {
    const id = c.req.valid('param').id;
    const type = c.req.valid('query').experiment_type;
    const deleted = await (type === 'pre_experiment' ? deletePreResponse(c.var.db, id) : deleteMainResponse(c.var.db, id));
    if (deleted.length === 0) throw notFound(`No ${type} response with id ${id}`);
    c.set('audit', { action: 'delete_response', targetType: type, targetId: String(id), details: { ...deleted[0] } });
    return c.json({ success: true, message: `Response ${id} was deleted`, id } satisfies z.infer<typeof rowDeletionSchema>);
  })
  .get('/study-config', async (c) => {
    const [current, usage] = await Promise.all([currentStudyConfig(), studyConfigUsage(c.var.db)]);
    const body: z.infer<typeof studyConfigResponseSchema> = {
      version: current.version,
      study_version: current.studyVersion,
      config: current.config,
      recorded: usage.map((u) => ({ version: u.version, study_version: u.studyVersion, recorded_at: u.recordedAt, sessions: u.sessions, current: u.version === current.version })),
    };
    return c.json(body);
  })
  .get('/active', validate('query', activeQuerySchema), async (c) => {
    const { minutes } = c.req.valid('query');
    const rows = await activeSessions(c.var.db, new Date(Date.now() - minutes * 60_000).toISOString());
    const body: z.infer<typeof activeSessionsSchema> = {
      minutes,
      sessions: rows.map((r) => ({
        username: r.username,
        origin: r.origin,
        dataset_type: r.datasetType,
        phase: r.phase,
        pre_answers: r.preAnswers,
        main_answers: r.mainAnswers,
        last_activity: r.lastActivity,
      })),
    };
    return c.json(body);
  })
  .get('/stats', validate('query', populationQuerySchema), async (c) => {
    const { include_synthetic, completed_only } = c.req.valid('query');
    const s = await dashboardStats(c.var.db, new Date(), { includeSynthetic: include_synthetic, completedOnly: completed_only });
    const f = s.funnel;
    const body: z.infer<typeof adminStatsSchema> = {
      include_synthetic,
      completed_only,
      listed: { users: s.listed.users, pre_experiment_responses: s.listed.pre, main_experiment_responses: s.listed.main },
      total_users: s.totalUsers,
      total_responses: s.preResponses + s.mainResponses,
      pre_experiment_responses: s.preResponses,
      main_experiment_responses: s.mainResponses,
      responses_today: s.responsesToday,
      responses_this_week: s.responsesThisWeek,
      funnel: [
        { step: 'created', sessions: f.sessions },
        { step: 'consented', sessions: f.consented },
        { step: 'pre_completed', sessions: f.preDone },
        { step: 'main_started', sessions: f.mainStarted },
        { step: 'main_completed', sessions: f.mainDone },
        { step: 'completed', sessions: f.completed },
      ],
      withdrawals: s.withdrawals,
      screened_out: s.screenedOut,
      dataset_balance: s.balance.map((b) => ({ dataset_type: b.datasetType, sessions: b.n })),
      condition_balance: s.conditionBalance.map((b) => ({ condition: b.condition, sessions: b.n })),
      by_alpha: s.byAlpha.map((a) => ({
        condition: a.condition,
        explanation_kind: a.kind,
        alignment_alpha: a.alpha,
        cases: a.cases,
        cases_with_initial: a.decidedTwice,
        judgment_change_rate: rate(a.changed, a.decidedTwice),
        initial_accuracy: rate(a.initialCorrect, a.decidedTwice),
        final_accuracy: rate(a.finalCorrect, a.cases),
      })),
    };
    return c.json(body);
  })
  .get('/consent-records', validate('query', paginationQuerySchema), async (c) => {
    const { rows, total } = await listConsentRecords(c.var.db, c.req.valid('query'));
    const body: z.infer<typeof consentRecordsResponseSchema> = {
      total,
      consent_records: rows.map(({ row, username }) => ({
        id: row.id,
        user: username,
        user_id: row.participantId,
        session_id: row.sessionId,
        study_version: row.studyVersion,
        consent_items: row.consentItems,
        consented_at: row.consentedAt,
        ip_address: row.ipAddress,
      })),
    };
    return c.json(body);
  })
  .get('/post-survey/responses', validate('query', paginationQuerySchema), async (c) => {
    const { rows, total } = await listPostSurveys(c.var.db, c.req.valid('query'));
    return c.json({ total, post_surveys: rows.map(toAdminPostSurvey) });
  })
  .delete('/post-survey/responses/:id', validate('param', numericIdParamSchema), async (c) => {
    const id = c.req.valid('param').id;
    const deleted = await deletePostSurvey(c.var.db, id, new Date().toISOString());
    if (deleted.length === 0) throw notFound(`No post-survey with id ${id}`);
    c.set('audit', { action: 'delete_post_survey', targetType: 'post_survey', targetId: String(id), details: { ...deleted[0] } });
    return c.json({ success: true, message: `Post-survey ${id} was deleted`, id } satisfies z.infer<typeof rowDeletionSchema>);
  });
