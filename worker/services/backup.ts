/**
 * The daily backup: the Cron Trigger of each deployed copy starts the all-data export (every
 * table, the codebook and the study configurations) as a Workflow that writes it to the exports
 * bucket in steps, whatever the study's size; the Workflow notes it in the audit log when it is
 * complete. D1's Time Travel restores the database to any minute of the last 30 days; these files
 * keep the data beyond that and outside D1.
 */
import { createDb } from '../db/client';
import { startAllDataExport } from './exports/export';

export async function startBackup(env: Pick<Env, 'DB' | 'EXPORT_WORKFLOW'>, now: Date) {
  const job = await startAllDataExport(createDb(env.DB), 'backup', 'csv', {}, now);
  await env.EXPORT_WORKFLOW.create({ id: job.id, params: { jobId: job.id } });
  return job;
}
