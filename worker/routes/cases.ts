import { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../env';
import { notFound } from '../errors';
import {
  caseIdParamSchema,
  fixedCaseSetQuerySchema,
  randomCaseSetQuerySchema,
  type caseSetResponseSchema,
  type ParticipantCase,
} from '../schemas/experiment';
import { studyConfig } from '../schemas/study';
import { ensurePreCaseSet, findCase, poolCases, randomCases, toParticipantCase } from '../services/case-sets';
import { requireSession } from '../services/sessions';
import { validate } from '../validate';

const caseSet = (cases: ParticipantCase[]): z.infer<typeof caseSetResponseSchema> => ({ success: true, case_set: cases });

export const caseRoutes = new Hono<AppEnv>()
  .get('/cases/:caseId', validate('param', caseIdParamSchema), async (c) => {
    const { caseId } = c.req.valid('param');
    const row = await findCase(c.var.db, caseId);
    if (!row) throw notFound(`Case ${caseId} not found`);
    return c.json(toParticipantCase(row));
  })
  .get('/case-sets/random', validate('query', randomCaseSetQuerySchema), async (c) => {
    const { num_cases, dataset_type } = c.req.valid('query');
    const rows = await randomCases(c.var.db, dataset_type, 'pre_experiment', num_cases);
    return c.json(caseSet(rows.map((r) => toParticipantCase(r))));
  })
  .get('/case-sets/fixed', validate('query', fixedCaseSetQuerySchema), async (c) => {
    const query = c.req.valid('query');
    const session = query.participant_id ? await requireSession(c.var.db, query.participant_id) : null;
    const dataset = session?.datasetType ?? query.dataset_type ?? studyConfig.defaultDatasetType;
    if (session && query.experiment_type === 'pre_experiment') {
      // The participant's own stored set, in their order, numbered by position.
      const set = await ensurePreCaseSet(c.var.db, session.sessionId, dataset);
      return c.json(caseSet(set.slice(0, query.num_cases).map((item) => toParticipantCase(item.row, item.position + 1))));
    }
    const rows = await poolCases(c.var.db, dataset, query.experiment_type);
    return c.json(caseSet(rows.slice(0, query.num_cases).map((r) => toParticipantCase(r))));
  });
