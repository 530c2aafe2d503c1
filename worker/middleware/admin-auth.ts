import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { AppError } from '../errors';
import { ADMIN_COOKIE, findAdminSession } from '../services/admin-auth';

/** Every admin route sits behind this: the session cookie must name a live server-side session. */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  const token = getCookie(c, ADMIN_COOKIE);
  const session = token ? await findAdminSession(c.var.db, token, new Date()) : null;
  if (!session) {
    throw new AppError(401, 'admin_auth_required', 'Administrator authentication is required');
  }
  await next();
});
