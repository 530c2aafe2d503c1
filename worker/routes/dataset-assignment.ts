import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { balancedAssignmentBodySchema, explicitAssignmentBodySchema } from '../schemas/experiment';
import { assignBalanced, assignExplicit, assignmentStatistics, suggestBalanced } from '../services/assignment';
import { validate } from '../validate';
import { participantWriteLimit } from './sessions';

export const datasetAssignmentRoutes = new Hono<AppEnv>()
  .get('/balanced', async (c) => {
    const statistics = await assignmentStatistics(c.var.db);
    return c.json({ dataset_type: suggestBalanced(statistics), statistics });
  })
  .post('/balanced', participantWriteLimit, validate('json', balancedAssignmentBodySchema), async (c) => {
    const assignment = await assignBalanced(c.var.db, c.req.valid('json').session_id, new Date().toISOString());
    return c.json({ dataset_type: assignment.datasetType, statistics: await assignmentStatistics(c.var.db) });
  })
  .post('/explicit', participantWriteLimit, validate('json', explicitAssignmentBodySchema), async (c) => {
    const body = c.req.valid('json');
    const assignment = await assignExplicit(c.var.db, {
      sessionId: body.session_id,
      datasetType: body.dataset_type,
      createdBy: body.created_by,
      now: new Date().toISOString(),
    });
    return c.json({ success: true, session_id: assignment.sessionId, dataset_type: assignment.datasetType, created_by: assignment.createdBy });
  })
  .get('/statistics', async (c) => c.json({ statistics: await assignmentStatistics(c.var.db) }));
