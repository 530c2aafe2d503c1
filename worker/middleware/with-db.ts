import { createMiddleware } from 'hono/factory';
import { createDb } from '../db/client';
import type { AppEnv } from '../env';
import { syncAddedDatasets } from '../services/dataset-registry';

/**
 * Puts one typed drizzle handle on the context for the rest of the request, after bringing the
 * isolate's datasets up to date (administrators may have added one on the dashboard). A failed
 * read is logged and the request goes on with the datasets already known.
 */
export const withDb = createMiddleware<AppEnv>(async (c, next) => {
  const db = createDb(c.env.DB);
  c.set('db', db);
  await syncAddedDatasets(db).catch((err: unknown) => console.error('datasets: could not read the added datasets', err));
  await next();
});
