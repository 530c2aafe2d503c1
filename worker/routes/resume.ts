import { Hono } from 'hono';
import type { z } from 'zod';
import { countResume, findSession } from '../db/queries/sessions';
import type { AppEnv } from '../env';
import { participantNameBodySchema, type checkExistingResponseSchema } from '../schemas/experiment';
import { NOTHING_FOUND } from '../schemas/nothing-found';
import { buildResumeData } from '../services/resume';
import { requireSession } from '../services/sessions';
import { validate } from '../validate';

export const resumeRoutes = new Hono<AppEnv>()
  .post('/check-existing', validate('json', participantNameBodySchema), async (c) => {
    const session = await findSession(c.var.db, c.req.valid('json').participant_name);
    let body: z.infer<typeof checkExistingResponseSchema> = NOTHING_FOUND;
    if (!session) c.set('idMiss', true);
    if (session) {
      const resume = await buildResumeData(c.var.db, session);
      body = {
        exists: true,
        canResume: !resume.integrityError && resume.action !== 'completed' && resume.action !== 'screened_out',
        preExperimentCount: resume.preExperimentCount,
        mainExperimentCount: resume.mainExperimentCount,
        userId: session.userId,
        isCompleted: resume.action === 'completed',
        isScreenedOut: resume.action === 'screened_out',
        integrityError: resume.integrityError,
      };
    }
    return c.json(body);
  })
  .post('/resume', validate('json', participantNameBodySchema), async (c) => {
    const session = await requireSession(c.var.db, c.req.valid('json').participant_name);
    await countResume(c.var.db, session.sessionId);
    return c.json(await buildResumeData(c.var.db, session));
  });
