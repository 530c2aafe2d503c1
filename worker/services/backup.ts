/**
 * The daily backup: the Cron Trigger of each deployed copy writes the all-data export (every
 * table, the codebook and the study configurations) to the exports bucket, as an administrator's
 * export would be, and notes it in the audit log. D1's Time Travel restores the database to any
 * minute of the last 30 days; these files keep the data beyond that and outside D1.
 */
import { createDb } from '../db/client';
import { auditInsert } from '../db/queries/audit-log';
import { exportAllData, type ExportResult } from './exports/export';

export async function writeBackup(env: Pick<Env, 'DB' | 'EXPORTS'>, now: Date): Promise<ExportResult> {
  const db = createDb(env.DB);
  const result = await exportAllData(db, env.EXPORTS, 'csv', {}, now);
  await auditInsert(db, { actor: 'system', action: 'scheduled_backup', targetType: 'export', targetId: result.key, details: { bytes: result.bytes }, ipAddress: null }, now);
  return result;
}
