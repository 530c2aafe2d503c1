import { Hono } from 'hono';
import type { AppEnv } from '../../env';
import { relianceQuerySchema } from '../../schemas/admin';
import { BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, FEW_CLUSTERS } from '../../services/analytics/inference';
import { CALIBRATION_FORMULA, LEAN_FORMULA, MEASURES, SUMMARY_METHOD } from '../../schemas/measures';
import { QUALITY_FLAG_DEFINITIONS } from '../../services/analytics/quality-flags';
import type { ParticipantRelianceRow } from '../../services/analytics/reliance';
import { servedRelianceReport } from '../../services/analytics/report-cache';
import { validate } from '../../validate';

type SortValue = number | string | null;
const sortValue = (column: string) => (p: ParticipantRelianceRow): SortValue =>
  column === 'user_id' ? p.user_id : column === 'user_name' ? p.user_name : column === 'trials' ? p.trials : (p.metrics[column] ?? null);

/** The participant table's rows in the asked order, undefined values last either way, ties by ID. */
function ordered(rows: ParticipantRelianceRow[], column: string, direction: 'ascending' | 'descending') {
  const value = sortValue(column);
  const sign = direction === 'descending' ? -1 : 1;
  return rows
    .map((p) => ({ p, v: value(p) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.p.user_id - b.p.user_id : a.v === null ? 1 : -1;
      const order = a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
      return sign * order || a.p.user_id - b.p.user_id;
    })
    .map(({ p }) => p);
}

/**
 * The dashboard's research analytics: reliance measures and data-quality flags, served from the
 * kept report (current, or marked stale while a newer one is computed) with one page of its
 * participant table.
 */
export const adminAnalyticsRoutes = new Hono<AppEnv>().get('/reliance', validate('query', relianceQuerySchema), async (c) => {
  const query = c.req.valid('query');
  const served = await servedRelianceReport(
    { db: c.var.db, bucket: c.env.EXPORTS, version: c.env.CF_VERSION_METADATA.id, waitUntil: (work) => c.executionCtx.waitUntil(work) },
    { excludeFlagged: query.exclude_flagged, includeSynthetic: query.include_synthetic, completedOnly: query.completed_only },
  );
  const { participants, ...report } = served.report;
  const from = query.participants_offset;
  return c.json({
    definitions: {
      metrics: MEASURES.map(({ id, label, formula, source, units, range }) => ({ id, label, formula, source, units, range })),
      summary: SUMMARY_METHOD,
      bootstrap: { resamples: BOOTSTRAP_RESAMPLES, seed: BOOTSTRAP_SEED, level: 0.95, streams: 'each group its own: seed XOR FNV-1a of the group name' },
      alpha_models: { reference: "Student's t with participants − 1 degrees of freedom", few_clusters_below: FEW_CLUSTERS },
      calibration: CALIBRATION_FORMULA,
      bars_lean_with_ai: LEAN_FORMULA,
      quality_flags: QUALITY_FLAG_DEFINITIONS,
    },
    computed: {
      at: served.computed_at,
      compute_ms: served.compute_ms,
      data_revision: served.revision,
      current_revision: served.current_revision,
      stale: served.stale,
      recomputing: served.recomputing,
    },
    ...report,
    participants_total: participants.length,
    participants_offset: from,
    participants: ordered(participants, query.participants_sort, query.participants_direction).slice(from, from + query.participants_limit),
  });
});
