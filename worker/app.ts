import { Hono } from 'hono';
import type { AppEnv } from './env';
import { handleError, notFound } from './errors';
import { limitBody, rejectMalformedJson } from './middleware/json-body';
import { withDb } from './middleware/with-db';
import { adminAuditLogRoutes } from './routes/admin/audit-log';
import { adminAuthRoutes } from './routes/admin/auth';
import { statusRoutes } from './routes/status';

/** The whole API as one chain, so `AppType` carries every route to the SPA's typed client. */
const app = new Hono<AppEnv>()
  .basePath('/api')
  .use(limitBody, rejectMalformedJson, withDb)
  .route('/status', statusRoutes)
  .route('/admin', adminAuthRoutes)
  .route('/admin/audit-log', adminAuditLogRoutes);

app.onError(handleError);
app.notFound((c) => handleError(notFound(`No API route for ${c.req.method} ${c.req.path}`), c));

export type AppType = typeof app;
export default app;
