import { Hono } from 'hono';
import type { AppEnv } from '../../env';
import { relianceQuerySchema } from '../../schemas/admin';
import { BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED } from '../../services/analytics/inference';
import { CALIBRATION_FORMULA, LEAN_FORMULA, MEASURES, SUMMARY_METHOD } from '../../services/analytics/measures';
import { QUALITY_FLAG_DEFINITIONS } from '../../services/analytics/quality-flags';
import { relianceReport } from '../../services/analytics/reliance';
import { validate } from '../../validate';

/** The dashboard's research analytics: reliance measures and data-quality flags, from the stored trials on every request. */
export const adminAnalyticsRoutes = new Hono<AppEnv>().get('/reliance', validate('query', relianceQuerySchema), async (c) => {
  const query = c.req.valid('query');
  const report = await relianceReport(c.var.db, { excludeFlagged: query.exclude_flagged, includeSynthetic: query.include_synthetic });
  return c.json({
    definitions: {
      metrics: MEASURES.map(({ id, label, formula, source, units, range }) => ({ id, label, formula, source, units, range })),
      summary: SUMMARY_METHOD,
      bootstrap: { resamples: BOOTSTRAP_RESAMPLES, seed: BOOTSTRAP_SEED, level: 0.95 },
      calibration: CALIBRATION_FORMULA,
      bars_lean_with_ai: LEAN_FORMULA,
      quality_flags: QUALITY_FLAG_DEFINITIONS,
    },
    ...report,
  });
});
