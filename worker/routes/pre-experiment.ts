import { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../env';
import { preResponseBatchBodySchema, preResponseBodySchema, type preBatchResultSchema, type preResponseResultSchema } from '../schemas/experiment';
import { studyConfig } from '../schemas/study';
import { storePreAnswers } from '../services/pre-experiment';
import { validate } from '../validate';
import { answerWriteLimit } from './sessions';

export const preExperimentRoutes = new Hono<AppEnv>()
  .post('/pre-experiment/responses', answerWriteLimit, validate('json', preResponseBodySchema), async (c) => {
    const body = c.req.valid('json');
    const { stored, total } = await storePreAnswers(c.var.db, body.session_id, [body], new Date().toISOString());
    const result: z.infer<typeof preResponseResultSchema> = {
      success: true,
      duplicate: stored === 0,
      message: stored === 0 ? 'Answer already stored' : 'Answer stored',
      total_responses: total,
    };
    return c.json(result, stored === 0 ? 200 : 201);
  })
  .post('/pre-experiment/responses/batch', answerWriteLimit, validate('json', preResponseBatchBodySchema), async (c) => {
    const body = c.req.valid('json');
    const outcome = await storePreAnswers(c.var.db, body.session_id, body.responses, new Date().toISOString());
    const result: z.infer<typeof preBatchResultSchema> = {
      success: true,
      stored: outcome.stored,
      duplicates: outcome.duplicates,
      total_responses: outcome.total,
      complete: outcome.total >= studyConfig.preExperiment.numCases,
    };
    return c.json(result);
  });
