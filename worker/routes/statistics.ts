import { Hono } from 'hono';
import type { z } from 'zod';
import { experimentStatistics } from '../db/queries/admin';
import type { AppEnv } from '../env';
import { populationQuerySchema, type experimentStatisticsSchema } from '../schemas/admin';
import { validate } from '../validate';

/** GET /api/experiments/statistics (part 2 §3 "Statistics"), behind the admin guard. */
export const statisticsRoutes = new Hono<AppEnv>().get('/', validate('query', populationQuerySchema), async (c) => {
  const { include_synthetic } = c.req.valid('query');
  const { pre, main, alphas } = await experimentStatistics(c.var.db, { includeSynthetic: include_synthetic });
  const body: z.infer<typeof experimentStatisticsSchema> = {
    include_synthetic,
    pre_experiment: { total_responses: pre.total, unique_users: pre.users, judgment_change_rate: null, alignment_distribution: {} },
    main_experiment: {
      total_responses: main.total,
      unique_users: main.users,
      judgment_change_rate: main.total > 0 ? main.changed / main.total : null,
      // Cases by alpha shown; the other kinds (AI-only fallback, prediction alone, no AI) under their own names.
      alignment_distribution: Object.fromEntries(alphas.map((a) => [a.kind !== 'human_aligned' ? a.kind : a.alpha === null ? 'none' : String(a.alpha), a.n])),
    },
    last_updated: new Date().toISOString(),
  };
  return c.json(body);
});
