import { Hono } from 'hono';
import type { z } from 'zod';
import { experimentStatistics } from '../db/queries/admin';
import type { AppEnv } from '../env';
import { populationQuerySchema, type experimentStatisticsSchema } from '../schemas/admin';
import { validate } from '../validate';

/** GET /api/experiments/statistics (part 2 §3 "Statistics"), behind the admin guard. */
type Group = Awaited<ReturnType<typeof experimentStatistics>>['groups'][number];

/** A main-experiment summary of some groups: change among trials with the AI after an initial judgement, cases by what they showed. */
function mainFigures(groups: Group[]) {
  const trials = groups.reduce((a, g) => a + g.aiAfterInitial, 0);
  const changes = groups.reduce((a, g) => a + g.changed, 0);
  const distribution: Record<string, number> = {};
  for (const g of groups) {
    const key = g.kind !== 'human_aligned' ? g.kind : g.alpha === null ? 'none' : String(g.alpha);
    distribution[key] = (distribution[key] ?? 0) + g.n;
  }
  return { judgment_change_rate: trials > 0 ? changes / trials : null, judgment_change_trials: trials, judgment_changes: changes, alignment_distribution: distribution };
}

/** GET /api/experiments/statistics (part 2 §3 "Statistics"), behind the admin guard. */
export const statisticsRoutes = new Hono<AppEnv>().get('/', validate('query', populationQuerySchema), async (c) => {
  const { include_synthetic, completed_only } = c.req.valid('query');
  const { pre, main, groups, usersByCondition } = await experimentStatistics(c.var.db, { includeSynthetic: include_synthetic, completedOnly: completed_only });
  const conditions = [...new Set(groups.map((g) => g.condition))];
  const body: z.infer<typeof experimentStatisticsSchema> = {
    include_synthetic,
    completed_only,
    pre_experiment: { total_responses: pre.total, unique_users: pre.users, judgment_change_rate: null, judgment_change_trials: 0, judgment_changes: 0, alignment_distribution: {} },
    main_experiment: { total_responses: main.total, unique_users: main.users, ...mainFigures(groups) },
    main_by_condition: conditions.map((condition) => {
      const own = groups.filter((g) => g.condition === condition);
      return { condition, total_responses: own.reduce((a, g) => a + g.n, 0), unique_users: usersByCondition.find((u) => u.condition === condition)?.users ?? 0, ...mainFigures(own) };
    }),
    last_updated: new Date().toISOString(),
  };
  return c.json(body);
});
