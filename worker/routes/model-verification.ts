import { Hono } from 'hono';
import { findSessionByUserId } from '../db/queries/sessions';
import type { AppEnv } from '../env';
import { notFound } from '../errors';
import { userIdParamSchema } from '../schemas/experiment';
import { datasetQuerySchema, userModelListQuerySchema } from '../schemas/model-verification';
import { aiModelStatus, aiVersusUsers, userModelList, userPerformance } from '../services/model-verification';
import { validate } from '../validate';

/** Part 2 §7 model verification (reads); behind the admin guard. */
export const modelVerificationRoutes = new Hono<AppEnv>()
  .get('/ai-model/status', validate('query', datasetQuerySchema), async (c) => c.json(await aiModelStatus(c.var.db, c.env.MODELS, c.req.valid('query').dataset_type)))
  .get('/user-models/list', validate('query', userModelListQuerySchema), async (c) => {
    const q = c.req.valid('query');
    const users = await userModelList(c.var.db, q.dataset_type, { includeUnlearned: q.include_unlearned, limit: q.limit, offset: q.offset });
    return c.json({ dataset_type: q.dataset_type, user_models: users });
  })
  .get('/user-models/:userId/performance', validate('param', userIdParamSchema), validate('query', datasetQuerySchema.partial()), async (c) => {
    const session = await findSessionByUserId(c.var.db, c.req.valid('param').userId);
    const dataset = c.req.valid('query').dataset_type;
    if (!session || (dataset && session.datasetType !== dataset)) throw notFound('No participant with this user id takes part with this dataset');
    return c.json(await userPerformance(c.var.db, session));
  })
  .get('/comparison/ai-vs-users', validate('query', datasetQuerySchema), async (c) => c.json(await aiVersusUsers(c.var.db, c.req.valid('query').dataset_type)));
