import { Hono } from 'hono';
import type { z } from 'zod';
import { findSessionByUserId } from '../db/queries/sessions';
import type { AppEnv } from '../env';
import { notFound } from '../errors';
import { userIdParamSchema } from '../schemas/experiment';
import {
  activateModelBodySchema,
  datasetQuerySchema,
  retrainBodySchema,
  uploadModelBodySchema,
  userModelListQuerySchema,
  type activateModelResultSchema,
  type retrainResultSchema,
  type aiModelVersionsSchema,
  type uploadModelResultSchema,
} from '../schemas/model-verification';
import { activateAiModel, uploadAiModel, versionsOnExperimentCases } from '../services/ai-upload';
import { retrainAi } from '../services/ai-retrain';
import { aiModelDetails, aiModelStatus, aiVersusUsers, userModelList, userPerformance } from '../services/model-verification';
import { validate } from '../validate';

/** Part 2 §7 model verification; behind the admin guard. */
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
  .post('/ai-model/retrain', validate('json', retrainBodySchema), async (c) => {
    const body = c.req.valid('json');
    const r = await retrainAi(c.var.db, c.env.MODELS, { dataset: body.dataset_type, folds: body.num_cv_folds, testSize: body.test_size, now: new Date() });
    c.set('audit', { action: 'ai_model_retrain', targetType: 'ai_model', targetId: r.identifier, details: { dataset_type: body.dataset_type, status: r.status, test_accuracy: r.metrics.test_accuracy } });
    const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
    const result: z.infer<typeof retrainResultSchema> = {
      success: true,
      message:
        `${body.dataset_type}: model ${r.identifier} is stored as ${r.status === 'candidate' ? 'a candidate' : `the ${r.status} version it reproduces`}: ` +
        `${pct(r.metrics.test_accuracy)} on the ${r.casesEvaluated} experiment cases` +
        (r.current ? ` (active ${r.current.model_identifier}: ${pct(r.current.metrics.test_accuracy)})` : '') +
        '. Activate it to use it.',
      dataset_type: body.dataset_type,
      model_identifier: r.identifier,
      status: r.status,
      cases_evaluated: r.casesEvaluated,
      candidate_metrics: {
        test_accuracy: r.metrics.test_accuracy,
        test_precision: r.metrics.test_precision,
        test_recall: r.metrics.test_recall,
        test_f1_score: r.metrics.test_f1_score,
        test_logloss: r.metrics.test_logloss,
        test_samples: r.metrics.test_samples,
      },
      current_model: r.current,
      cross_validation_score: r.metrics.cross_validation_score,
      training_time_seconds: r.trainingTimeSeconds,
    };
    return c.json(result);
  })
  .post('/ai-model/upload', validate('json', uploadModelBodySchema), async (c) => {
    const body = c.req.valid('json');
    const r = await uploadAiModel(c.var.db, c.env.MODELS, { dataset: body.dataset_type, model: body.model, encoding: body.encoding, now: new Date() });
    c.set('audit', { action: 'ai_model_upload', targetType: 'ai_model', targetId: r.identifier, details: { dataset_type: body.dataset_type, source_format: r.sourceFormat, test_accuracy: r.metrics.test_accuracy } });
    const result: z.infer<typeof uploadModelResultSchema> = {
      success: true,
      dataset_type: body.dataset_type,
      model_identifier: r.identifier,
      status: r.status,
      source_format: r.sourceFormat,
      num_trees: r.trees,
      cases_evaluated: r.casesEvaluated,
      uploaded_metrics: r.metrics,
      current_model: r.current,
    };
    return c.json(result, r.status === 'candidate' ? 201 : 200);
  })
  .post('/ai-model/activate', validate('json', activateModelBodySchema), async (c) => {
    const body = c.req.valid('json');
    const r = await activateAiModel(c.var.db, c.env.MODELS, { dataset: body.dataset_type, identifier: body.model_identifier });
    c.set('audit', { action: 'ai_model_activate', targetType: 'ai_model', targetId: r.identifier, details: { dataset_type: body.dataset_type, previous: r.previous } });
    const result: z.infer<typeof activateModelResultSchema> = {
      success: true,
      dataset_type: body.dataset_type,
      model_identifier: r.identifier,
      previous_model_identifier: r.previous,
      changed: r.changed,
    };
    return c.json(result);
  })
  .get('/ai-model/versions', validate('query', datasetQuerySchema), async (c) => {
    const dataset = c.req.valid('query').dataset_type;
    const body: z.infer<typeof aiModelVersionsSchema> = { dataset_type: dataset, versions: await versionsOnExperimentCases(c.var.db, c.env.MODELS, dataset) };
    return c.json(body);
  })
  .get('/ai-model/details', validate('query', datasetQuerySchema), async (c) => c.json(await aiModelDetails(c.var.db, c.env.MODELS, c.req.valid('query').dataset_type)))
  .get('/comparison/ai-vs-users', validate('query', datasetQuerySchema), async (c) => c.json(await aiVersusUsers(c.var.db, c.req.valid('query').dataset_type)));
