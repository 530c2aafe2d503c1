import { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../../env';
import { confirmDeletionQuerySchema, type cleanupAllResultSchema, type cleanupModelFilesResultSchema } from '../../schemas/admin';
import { experimentStorageKeys } from '../../schemas/storage-keys';
import { deleteAllStudyData, deleteUserModelFiles } from '../../services/admin-data';
import { dropKeptReliance } from '../../services/analytics/report-cache';
import { validate } from '../../validate';

/**
 * Part 2 §7 cleanup, for test deployments: both calls need `confirm_deletion=true` besides the
 * dashboard's confirm dialog, and both are audited by the admin guard.
 */
export const adminCleanupRoutes = new Hono<AppEnv>()
  .delete('/all-data', validate('query', confirmDeletionQuerySchema), async (c) => {
    const { records, files } = await deleteAllStudyData(c.var.db, c.env.MODELS);
    await dropKeptReliance(c.env.EXPORTS);
    c.set('audit', { action: 'cleanup_all_data', details: { total_database_records: records, deleted_model_files: files } });
    const body: z.infer<typeof cleanupAllResultSchema> = {
      success: true,
      message: `Deleted ${records} database records and ${files} model files`,
      total_database_records: records,
      deleted_model_files: files,
      localStorage_keys_to_clear: experimentStorageKeys,
    };
    return c.json(body);
  })
  .delete('/model-files', validate('query', confirmDeletionQuerySchema), async (c) => {
    const { files, rows } = await deleteUserModelFiles(c.var.db, c.env.MODELS);
    c.set('audit', { action: 'cleanup_model_files', details: { deleted_files: files, deleted_db_records: rows } });
    const body: z.infer<typeof cleanupModelFilesResultSchema> = {
      success: true,
      message: `Deleted ${files} model files and ${rows} database records`,
      deleted_files: files,
      deleted_db_records: rows,
    };
    return c.json(body);
  });
