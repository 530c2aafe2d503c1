import { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../env';
import { conflict, notFound } from '../errors';
import { hasAdminSession } from '../middleware/admin-auth';
import { SECTION_IDS } from '../schemas/post-survey';
import { studyCodes } from '../study-codes';
import { sessionParamSchema } from '../schemas/experiment';
import {
  type adjustmentExampleSchema,
  type completionSchema,
  type FeatureBar,
  postSurveyBodySchema,
  type postSurveyCheckSchema,
  type postSurveyProgressSchema,
  type postSurveyRecordSchema,
  type postSurveySubmitResultSchema,
} from '../schemas/post-survey-schemas';
import { audienceOf, conditionOf } from '../services/conditions';
import { adjustmentExample, findPostSurvey, paymentOf, recordDebriefServed, storePostSurvey } from '../services/post-survey';
import { debriefOf } from '../schemas/condition-plan';
import { requireSession } from '../services/sessions';
import { validate } from '../validate';
import { answerWriteLimit } from './sessions';

export const postSurveyRoutes = new Hono<AppEnv>()
  .post('/', answerWriteLimit, validate('json', postSurveyBodySchema), async (c) => {
    const body = c.req.valid('json');
    const session = await requireSession(c.var.db, body.session_id);
    const { scores } = await storePostSurvey(c.var.db, session, body, new Date().toISOString());
    return c.json({ success: true, message: 'Post-survey stored', session_id: session.sessionId, scores } satisfies z.infer<typeof postSurveySubmitResultSchema>, 201);
  })
  .get('/check/:sessionId', validate('param', sessionParamSchema), async (c) => {
    const { sessionId } = c.req.valid('param');
    const session = await requireSession(c.var.db, sessionId);
    const found = await findPostSurvey(c.var.db, session.sessionId);
    const body: z.infer<typeof postSurveyCheckSchema> = {
      session_id: session.sessionId,
      exists: found !== null,
      audience: audienceOf(conditionOf(session)),
      main_completed: session.mainCompletedAt !== null,
    };
    return c.json(body);
  })
  // The codes that get a participant paid: only for a session whose post-survey is stored.
  .get('/completion/:sessionId', validate('param', sessionParamSchema), async (c) => {
    const session = await requireSession(c.var.db, c.req.valid('param').sessionId);
    if (!session.postSurveyCompletedAt || !session.completionVerificationCode) {
      throw conflict('post_survey_incomplete', 'The completion code is given once the post-survey is stored');
    }
    const debrief = debriefOf(conditionOf(session));
    if (debrief) await recordDebriefServed(c.var.db, session.sessionId, new Date().toISOString());
    c.header('Cache-Control', 'no-store');
    return c.json({
      session_id: session.sessionId,
      completion_code: studyCodes.completionCode,
      verification_code: session.completionVerificationCode,
      completed_at: session.postSurveyCompletedAt,
      debrief,
      payment: await paymentOf(c.var.db, session.sessionId),
    } satisfies z.infer<typeof completionSchema>);
  })
  .get('/example/:sessionId', validate('param', sessionParamSchema), async (c) => {
    const session = await requireSession(c.var.db, c.req.valid('param').sessionId);
    const row = await adjustmentExample(c.var.db, session.sessionId);
    return c.json({
      session_id: session.sessionId,
      found: row !== null,
      example: row
        ? {
            case_number: row.caseNumber,
            dataset_type: row.datasetType,
            alignment_alpha: row.alpha ?? 1,
            ai_prediction: row.aiPrediction,
            features: (row.features ?? {}) as Record<string, string | number | null>,
            before: (row.ai ?? []) as FeatureBar[],
            after: (row.shown ?? []) as FeatureBar[],
          }
        : null,
    } satisfies z.infer<typeof adjustmentExampleSchema>);
  })
  .get('/:sessionId', validate('param', sessionParamSchema), async (c) => {
    const { sessionId } = c.req.valid('param');
    const session = await requireSession(c.var.db, sessionId);
    const found = await findPostSurvey(c.var.db, session.sessionId);
    if (!found) throw notFound('No post-survey answers for this session');
    // An ID opens the participant's own flow, not their answers: those are the researchers'.
    if (!(await hasAdminSession(c))) {
      return c.json({
        success: true,
        session_id: found.sessionId,
        sections_done: SECTION_IDS.filter((id) => Object.keys(found[id] ?? {}).length > 0),
        created_at: found.createdAt,
      } satisfies z.infer<typeof postSurveyProgressSchema>);
    }
    return c.json({
      success: true,
      session_id: found.sessionId,
      demographics: found.demographics as Record<string, string | number | null>,
      benevolent: found.benevolent as Record<string, string | number | null>,
      bigfive: found.bigfive as Record<string, string | number | null>,
      locus: found.locus as Record<string, string | number | null>,
      cognition: found.cognition as Record<string, string | number | null>,
      experiment_rating: found.experimentRating,
      overall_feedback: found.overallFeedback,
      scores: found.scores,
      created_at: found.createdAt,
    } satisfies z.infer<typeof postSurveyRecordSchema>);
  });
