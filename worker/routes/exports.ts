import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../env';
import { AppError } from '../errors';
import { consentExportQuerySchema, queryFlag } from '../schemas/admin';
import { exportAllData, exportConsent, exportTable, type ExportResult } from '../services/exports/export';
import { validate } from '../validate';

const exportParamSchema = z.object({
  name: z.enum(['pre-experiment', 'main-experiment', 'case-data', 'feature-importance', 'post-survey', 'reliance-participants', 'reliance-by-alpha', 'reliance-by-condition', 'reliance-by-dataset', 'reliance-condition-differences', 'reliance-alpha-models', 'trials', 'all-data']),
});
const exportQuerySchema = z.object({
  /** `excel`: CSV with a UTF-8 byte-order mark, so Excel reads Japanese and other text correctly when the file is opened. */
  format: z.enum(['csv', 'tsv', 'excel']).default('csv'),
  user_name: z.string().trim().min(1).max(200).optional(),
  /** Reliance tables: leave flagged participants out of the group figures, as the dashboard's toggle does. */
  exclude_flagged: queryFlag,
  /** Reliance tables: count synthetic participants and bypassed sessions too. */
  include_synthetic: queryFlag,
});

/** Streams the stored copy of an export back with the file name the dashboard saves it under. */
export async function sendExport(c: Context<AppEnv>, result: ExportResult) {
  const object = await c.env.EXPORTS.get(result.key);
  if (!object) throw new AppError(500, 'export_missing', 'The export was written but could not be read back');
  return new Response(object.body, {
    headers: {
      'Content-Type': result.contentType,
      'Content-Length': String(object.size),
      'Content-Disposition': `attachment; filename="${result.fileName}"`,
      'Cache-Control': 'no-store',
    },
  });
}

/** Part 2 §7 enhanced exports; behind the admin guard, each one audited and kept in R2. */
export const exportRoutes = new Hono<AppEnv>().get('/:name', validate('param', exportParamSchema), validate('query', exportQuerySchema), async (c) => {
  const { name } = c.req.valid('param');
  const { format, user_name, exclude_flagged, include_synthetic } = c.req.valid('query');
  const filter = { userName: user_name, excludeFlagged: exclude_flagged, includeSynthetic: include_synthetic };
  const now = new Date();
  const result =
    name === 'all-data'
      ? await exportAllData(c.var.db, c.env.EXPORTS, format, filter, now)
      : await exportTable(c.var.db, c.env.EXPORTS, name, format, filter, now);
  c.set('audit', { action: 'export', targetType: 'export', targetId: name, details: { format, user_name: user_name ?? null, exclude_flagged, include_synthetic, bytes: result.bytes, r2_key: result.key } });
  return sendExport(c, result);
});

/** GET /api/admin/consent-records/export?format=csv|json (part 2 §7). */
export const consentExportRoutes = new Hono<AppEnv>().get('/export', validate('query', consentExportQuerySchema), async (c) => {
  const { format } = c.req.valid('query');
  const result = await exportConsent(c.var.db, c.env.EXPORTS, format, new Date());
  c.set('audit', { action: 'export', targetType: 'export', targetId: 'consent-records', details: { format, bytes: result.bytes, r2_key: result.key } });
  return sendExport(c, result);
});
