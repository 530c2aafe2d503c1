import { Hono } from 'hono';
import type { AppEnv } from '../../env';
import { relianceQuerySchema } from '../../schemas/admin';
import { QUALITY_FLAG_DEFINITIONS } from '../../services/analytics/quality-flags';
import { CALIBRATION_FORMULA, LEAN_FORMULA, RELIANCE_METRICS, relianceReport } from '../../services/analytics/reliance';
import { validate } from '../../validate';

/** The dashboard's research analytics: reliance metrics and data-quality flags, from the stored trials on every request. */
export const adminAnalyticsRoutes = new Hono<AppEnv>().get('/reliance', validate('query', relianceQuerySchema), async (c) => {
  const query = c.req.valid('query');
  const report = await relianceReport(c.var.db, { excludeFlagged: query.exclude_flagged, includeSynthetic: query.include_synthetic });
  return c.json({
    definitions: {
      metrics: RELIANCE_METRICS.map(({ id, label, formula, units }) => ({ id, label, formula, units })),
      calibration: CALIBRATION_FORMULA,
      bars_lean_with_ai: LEAN_FORMULA,
      quality_flags: QUALITY_FLAG_DEFINITIONS,
    },
    ...report,
  });
});
