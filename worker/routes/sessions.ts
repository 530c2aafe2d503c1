import { Hono } from 'hono';
import { findAssignment, sessionProgress, type SessionRow } from '../db/queries/sessions';
import type { AppEnv } from '../env';
import { notFound } from '../errors';
import { limitPerClient, limitRefusalsPerClient } from '../middleware/rate-limit';
import {
  createSessionBodySchema,
  sessionParamSchema,
  withdrawalBodySchema,
  type prolificStatusSchema,
  type withdrawalResultSchema,
  startQuerySchema,
  type datasetTypeResponseSchema,
  type sessionDetailsSchema,
  type sessionInfoSchema,
  type sessionResponseSchema,
} from '../schemas/experiment';
import { enabledDatasets } from '../schemas/study';
import { datasetInfo } from '../services/dataset-info';
import { prolificLinks } from '../services/prolific';
import { openSession, requireSession } from '../services/sessions';
import { withdrawParticipant } from '../services/withdrawal';
import { validate } from '../validate';
import type { z } from 'zod';

const sessionResult = (session: SessionRow, created: boolean): z.infer<typeof sessionResponseSchema> => ({
  success: true,
  session_id: session.sessionId,
  user_id: session.userId,
  dataset_type: session.datasetType,
  current_phase: session.currentPhase,
  created,
});

/**
 * Refused answer writes, in their own bucket (600 a minute, wrangler.toml), beside the ID lookups
 * every participant route shares (middleware/id-lookups.ts): saved answers, however many a lab
 * behind one address sends, never meet the limit (nor pay a limiter call): each session's case
 * sets cap the rows they add.
 */
export const answerWriteLimit = limitRefusalsPerClient('ANSWER_WRITE_LIMITER');

/** Understanding-test attempts are not capped per session (each new attempt ID is a row), so every call counts, in the same bucket. */
export const attemptWriteLimit = limitPerClient('ANSWER_WRITE_LIMITER');

/**
 * Unauthenticated calls that create participant rows (sessions, dataset assignments) or cost real
 * work per call (fitting the participant's model, withdrawal): every call counts, 300 a minute per
 * address (wrangler.toml), so a class of 150 newcomers behind one address (two creating calls
 * each) starts in the same minute while one machine cannot fill the database.
 */
export const participantWriteLimit = limitPerClient('PARTICIPANT_WRITE_LIMITER');

export const sessionRoutes = new Hono<AppEnv>()
  .post('/sessions', participantWriteLimit, validate('json', createSessionBodySchema), async (c) => {
    const body = c.req.valid('json');
    const { session, created } = await openSession(c.var.db, {
      code: body.participant_name,
      datasetType: body.dataset_type,
      language: body.language ?? 'ja',
      newParticipant: body.new_participant ?? false,
      requestId: body.request_id,
      prolific: { pid: body.prolific_pid, studyId: body.prolific_study_id, sessionId: body.prolific_session_id },
      now: new Date().toISOString(),
    });
    return c.json(sessionResult(session, created), created ? 201 : 200);
  })
  .post('/start', participantWriteLimit, validate('query', startQuerySchema), async (c) => {
    const { participant_name } = c.req.valid('query');
    return c.json(sessionResult(await requireSession(c.var.db, participant_name), false));
  })
  .get('/sessions/:sessionId', validate('param', sessionParamSchema), async (c) => {
    const session = await requireSession(c.var.db, c.req.valid('param').sessionId);
    const progress = await sessionProgress(c.var.db, session.sessionId);
    const info: z.infer<typeof sessionInfoSchema> = {
      session_id: session.sessionId,
      user_id: session.userId,
      dataset_type: session.datasetType,
      current_phase: session.currentPhase,
      pre_experiment_count: progress.preCount,
      main_experiment_count: progress.mainCount,
      consented: session.consentedAt !== null,
      user_model_status: progress.userModelStatus,
      created_at: session.createdAt,
    };
    return c.json(info);
  })
  .get('/sessions/:sessionId/prolific', validate('param', sessionParamSchema), async (c) => {
    const session = await requireSession(c.var.db, c.req.valid('param').sessionId);
    return c.json(prolificLinks(session) satisfies z.infer<typeof prolificStatusSchema>);
  })
  // Withdrawal by ID from the entry, resume and completion pages. It tells a known ID from an
  // unknown one and deletes rows, so it is limited like the other participant writes.
  .post('/withdraw', participantWriteLimit, validate('json', withdrawalBodySchema), async (c) => {
    const session = await requireSession(c.var.db, c.req.valid('json').participant_id);
    const { returnUrl } = await withdrawParticipant(c.var.db, c.env, session, new Date());
    return c.json({ success: true, withdrawn: true, return_url: returnUrl } satisfies z.infer<typeof withdrawalResultSchema>);
  })
  .get('/sessions/:sessionId/details', validate('param', sessionParamSchema), async (c) => {
    const session = await requireSession(c.var.db, c.req.valid('param').sessionId);
    const info = datasetInfo(session.datasetType);
    const details: z.infer<typeof sessionDetailsSchema> = {
      success: true,
      dataset_type: session.datasetType,
      dataset_display_name: info.displayName,
      task_description: info.task,
    };
    return c.json(details);
  })
  .get('/sessions/:sessionId/dataset-type', validate('param', sessionParamSchema), async (c) => {
    const assignment = await findAssignment(c.var.db, c.req.valid('param').sessionId);
    // 404 is the spec's "new participant" answer.
    if (!assignment || !enabledDatasets().includes(assignment.datasetType)) {
      throw notFound('No dataset is assigned to this participant ID');
    }
    const body: z.infer<typeof datasetTypeResponseSchema> = { dataset_type: assignment.datasetType, is_confirmed: assignment.isConfirmed };
    return c.json(body);
  });
