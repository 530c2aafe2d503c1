import { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../env';
import { clientIp, userAgent } from '../request-meta';
import { consentBodySchema, type consentResponseSchema } from '../schemas/experiment';
import { recordConsent } from '../services/consent';
import { requireSession } from '../services/sessions';
import { validate } from '../validate';

export const consentRoutes = new Hono<AppEnv>().post('/submit', validate('json', consentBodySchema), async (c) => {
  const body = c.req.valid('json');
  const session = await requireSession(c.var.db, body.session_id);
  const { record, duplicate } = await recordConsent(c.var.db, session, {
    items: body.consent_items,
    userId: body.user_id,
    ipAddress: clientIp(c),
    userAgent: userAgent(c),
    now: new Date().toISOString(),
  });
  const result: z.infer<typeof consentResponseSchema> = {
    success: true,
    consent_id: record.id,
    consented_at: record.consentedAt,
    study_version: record.studyVersion,
    duplicate,
  };
  return c.json(result, duplicate ? 200 : 201);
});
