import { Hono } from 'hono';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../env';
import { AppError } from '../errors';
import { consentExportQuerySchema, exportJobBodySchema, exportJobIdSchema, queryFlag, type exportJobViewSchema } from '../schemas/admin';
import { CONTENT_TYPES, exportAllData, exportConsent, exportTable, jobParts, startAllDataExport, type ExportResult } from '../services/exports/export';
import { exportJobById, isStalled, noteFailedStep, recentExportJobs, reopenExportJob, type ExportCursor, type ExportJob } from '../services/exports/stepwise';
import type { Db } from '../db/client';
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
  /** Reliance tables: count only participants who finished the study. */
  completed_only: queryFlag,
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
  const { format, user_name, exclude_flagged, include_synthetic, completed_only } = c.req.valid('query');
  const filter = { userName: user_name, excludeFlagged: exclude_flagged, includeSynthetic: include_synthetic, completedOnly: completed_only };
  const now = new Date();
  const result =
    name === 'all-data'
      ? await exportAllData(c.var.db, c.env.EXPORTS, format, filter, now)
      : await exportTable(c.var.db, c.env.EXPORTS, name, format, filter, now);
  c.set('audit', { action: 'export', targetType: 'export', targetId: name, details: { format, user_name: user_name ?? null, exclude_flagged, include_synthetic, completed_only, bytes: result.bytes, r2_key: result.key } });
  return sendExport(c, result);
});

/** GET /api/admin/consent-records/export?format=csv|json (part 2 §7). */
export const consentExportRoutes = new Hono<AppEnv>().get('/export', validate('query', consentExportQuerySchema), async (c) => {
  const { format } = c.req.valid('query');
  const result = await exportConsent(c.var.db, c.env.EXPORTS, format, new Date());
  c.set('audit', { action: 'export', targetType: 'export', targetId: 'consent-records', details: { format, bytes: result.bytes, r2_key: result.key } });
  return sendExport(c, result);
});

/**
 * Hands the job to a new Workflow instance once the response is on its way: the answer does not
 * wait for the instance to start (local runs start it inside the call). If it cannot be started,
 * the job is marked stopped with the reason, so the dashboard offers to resume it.
 */
async function runInWorkflow(db: Db, workflow: Env['EXPORT_WORKFLOW'], jobId: string, instanceId: string) {
  try {
    await workflow.create({ id: instanceId, params: { jobId } });
  } catch (err) {
    await noteFailedStep(db, jobId, err, true);
  }
}

/** Jobs listed on the dashboard: the latest, running or done. */
const LISTED_JOBS = 20;

function jobView(db: Db, job: ExportJob): z.infer<typeof exportJobViewSchema> {
  const parts = jobParts(db, job);
  const cursor = job.cursor as ExportCursor;
  return {
    id: job.id,
    kind: job.kind,
    format: job.format,
    user_name: job.filter.userName ?? null,
    status: job.status,
    stalled: isStalled(job, new Date()),
    file_name: job.fileName,
    files_done: cursor.done.length,
    files_total: parts.length,
    current_file: job.status === 'completed' ? null : (parts[cursor.part]?.name ?? null),
    rows: job.rows,
    bytes: job.bytes,
    steps: job.steps,
    longest_step_ms: job.longestStepMs,
    failed_attempts: job.failedAttempts,
    last_error: job.lastError,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    completed_at: job.completedAt,
  };
}

async function jobOf(db: Db, id: string) {
  const job = await exportJobById(db, id);
  if (!job) throw new AppError(404, 'export_job_not_found', 'No export job has this id');
  return job;
}

/**
 * The all-data export of any size (and the daily backups), written in steps by the export
 * Workflow: started here, followed on the dashboard, downloaded once complete, resumed after a
 * failure from the last step that completed.
 */
export const exportJobRoutes = new Hono<AppEnv>()
  .post('/', validate('json', exportJobBodySchema), async (c) => {
    const { format, user_name, exclude_flagged, include_synthetic, completed_only } = c.req.valid('json');
    const filter = { userName: user_name, excludeFlagged: exclude_flagged, includeSynthetic: include_synthetic, completedOnly: completed_only };
    const job = await startAllDataExport(c.var.db, 'all_data', format, filter, new Date());
    c.executionCtx.waitUntil(runInWorkflow(c.var.db, c.env.EXPORT_WORKFLOW, job.id, job.id));
    c.set('audit', { action: 'export', targetType: 'export', targetId: 'all-data', details: { format, user_name: user_name ?? null, exclude_flagged, include_synthetic, completed_only, job_id: job.id, r2_key: job.objectKey } });
    return c.json({ job: jobView(c.var.db, job) }, 202);
  })
  .get('/', async (c) => {
    const jobs = await recentExportJobs(c.var.db, LISTED_JOBS);
    return c.json({ jobs: jobs.map((job) => jobView(c.var.db, job)) });
  })
  .get('/:id', validate('param', exportJobIdSchema), async (c) => c.json({ job: jobView(c.var.db, await jobOf(c.var.db, c.req.valid('param').id)) }))
  .get('/:id/file', validate('param', exportJobIdSchema), async (c) => {
    const job = await jobOf(c.var.db, c.req.valid('param').id);
    if (job.status !== 'completed') throw new AppError(409, 'export_not_ready', 'The export is not complete yet');
    if (!(await c.env.EXPORTS.head(job.objectKey))) {
      throw new AppError(410, 'export_deleted', 'This export was deleted because it held rows of a participant who withdrew; start a new export');
    }
    c.set('audit', { action: 'export_download', targetType: 'export', targetId: job.objectKey, details: { job_id: job.id } });
    return sendExport(c, { key: job.objectKey, fileName: job.fileName, contentType: CONTENT_TYPES.zip, bytes: job.bytes });
  })
  .post('/:id/resume', validate('param', exportJobIdSchema), async (c) => {
    const { id } = c.req.valid('param');
    const before = await jobOf(c.var.db, id);
    const job = await reopenExportJob(c.var.db, id);
    if (!job) throw new AppError(409, 'export_not_resumable', `Only a stopped or stalled export can be resumed; this one is ${before.status}`);
    // A new Workflow instance goes on from the job's last committed step.
    c.executionCtx.waitUntil(runInWorkflow(c.var.db, c.env.EXPORT_WORKFLOW, job.id, `${job.id}-${job.steps}-${Date.now()}`));
    c.set('audit', { action: 'export_resume', targetType: 'export', targetId: job.objectKey, details: { job_id: job.id, steps_done: job.steps } });
    return c.json({ job: jobView(c.var.db, job) });
  });
