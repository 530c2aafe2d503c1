import { Hono } from 'hono';
import type { z } from 'zod';
import { findSessionByUserId, type SessionRow } from '../db/queries/sessions';
import { userModelOf } from '../db/queries/model-verification';
import type { AppEnv } from '../env';
import { badRequest, notFound } from '../errors';
import { forceRetrainQuerySchema, userIdParamSchema, userModelTrainBodySchema, type userModelTrainResultSchema } from '../schemas/experiment';
import { requireSession } from '../services/sessions';
import { requireWriteAllowed } from '../db/session-lifecycle';
import { trainUserModel, type UserModelOutcome } from '../services/user-model';
import { userModelDebug } from '../services/model-verification';
import { validate } from '../validate';
import { participantWriteLimit } from './sessions';

const toResult = (session: SessionRow, outcome: UserModelOutcome): z.infer<typeof userModelTrainResultSchema> => ({
  success: outcome.status === 'trained',
  status: outcome.status,
  model_identifier: outcome.modelIdentifier,
  session_id: session.sessionId,
  dataset_type: session.datasetType,
  training_samples: outcome.trainingSamples,
  message: outcome.message,
  result: { message: outcome.message },
});

export const userModelRoutes = new Hono<AppEnv>()
  .post('/user-model/train', participantWriteLimit, validate('json', userModelTrainBodySchema), async (c) => {
    const body = c.req.valid('json');
    const session = await requireSession(c.var.db, body.session_id);
    // Refitted only before the main experiment explains with it; the start fits it when missing.
    requireWriteAllowed(session, 'user_model');
    if (body.dataset_type && body.dataset_type !== session.datasetType) {
      throw badRequest('dataset_mismatch', `This session uses ${session.datasetType}, not ${body.dataset_type}`);
    }
    const outcome = await trainUserModel(c.var.db, c.env.MODELS, session, { force: body.force_retrain ?? false, now: new Date() });
    return c.json(toResult(session, outcome));
  })
  // By numeric user id (sequential, so guessable): the model-verification screen's tools, behind the admin guard.
  .get('/user-models/debug/:userId', validate('param', userIdParamSchema), async (c) => {
    const session = await findSessionByUserId(c.var.db, c.req.valid('param').userId);
    if (!session) throw notFound('Unknown user');
    const model = await userModelOf(c.var.db, session.sessionId);
    return c.json(await userModelDebug(c.var.db, session, model));
  })
  .post('/user-models/train/:userId', validate('param', userIdParamSchema), validate('query', forceRetrainQuerySchema), async (c) => {
    const session = await findSessionByUserId(c.var.db, c.req.valid('param').userId);
    if (!session) throw notFound('Unknown user');
    const outcome = await trainUserModel(c.var.db, c.env.MODELS, session, { force: c.req.valid('query').force_retrain, now: new Date() });
    return c.json(toResult(session, outcome));
  });
