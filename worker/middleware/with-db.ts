import { createMiddleware } from 'hono/factory';
import { createDb } from '../db/client';
import type { AppEnv } from '../env';
import { keepRelianceReports } from '../services/analytics/report-cache';
import { syncAddedDatasets } from '../services/dataset-registry';

/**
 * Puts one typed drizzle handle on the context for the rest of the request (with where its
 * reliance reports are kept, so exports read a current one), after bringing the
 * isolate's datasets up to date (administrators may have added one on the dashboard). A failed
 * read is logged and the request goes on with the datasets already known.
 */
export const withDb = createMiddleware<AppEnv>(async (c, next) => {
  const db = createDb(c.env.DB);
  c.set('db', db);
  keepRelianceReports({ db, bucket: c.env.EXPORTS, version: c.env.CF_VERSION_METADATA.id, waitUntil: (work) => c.executionCtx.waitUntil(work) });
  await syncAddedDatasets(db).catch((err: unknown) => console.error('datasets: could not read the added datasets', err));
  await next();
});
