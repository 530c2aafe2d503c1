import { Hono } from 'hono';
import type { AppEnv } from '../env';
import type { environmentResponseSchema, StatusResponse } from '../schemas/api';
import type { z } from 'zod';
import { debugToolsAllowed, isProduction } from '../environment';
import { checkDatabase, checkMlPipeline, checkStorage } from '../services/health';
import { recruitmentState } from '../services/recruitment';

export const statusRoutes = new Hono<AppEnv>()
  .get('/environment', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({
      environment: c.env.ENVIRONMENT,
      production: isProduction(c.env),
      debug_tools: await debugToolsAllowed(c),
    } satisfies z.infer<typeof environmentResponseSchema>);
  })
  .get('/', async (c) => {
    const [database, storage, ml, recruitment] = await Promise.all([
      checkDatabase(c.var.db),
      checkStorage(c.env.MODELS),
      checkMlPipeline(c.var.db, c.env.MODELS),
      recruitmentState(c.var.db).then((r) => r.status, () => 'open' as const),
    ]);
    const body: StatusResponse = {
      api: 'healthy',
      database,
      storage,
      redis: 'not_used',
      ...ml,
      recruitment,
      environment: c.env.ENVIRONMENT,
      checked_at: new Date().toISOString(),
    };
    // Monitoring must see the live state, never a cached one.
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  });
