import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { auditInsert } from '../../db/queries/audit-log';
import type { AppEnv } from '../../env';
import { AppError } from '../../errors';
import { adminSessionOf } from '../../middleware/admin-auth';
import { durableFailureLimit } from '../../middleware/rate-limit';
import { clientIp, userAgent } from '../../request-meta';
import { adminLoginBodySchema, type AdminSessionResponse } from '../../schemas/admin';
import { studyConfig } from '../../schemas/study';
import {
  ADMIN_COOKIE,
  createAdminSession,
  passwordMatches,
  revokeAdminSession,
} from '../../services/admin-auth';
import { validate } from '../../validate';

export const adminAuthRoutes = new Hono<AppEnv>()
  .post(
    '/login',
    durableFailureLimit({ name: 'admin-login', limit: 10, windowSeconds: 15 * 60 }),
    validate('json', adminLoginBodySchema),
    async (c) => {
      const expected = c.env.ADMIN_PASSWORD;
      if (!expected) {
        throw new AppError(503, 'admin_not_configured', 'The administrator password is not configured on the server');
      }
      const now = new Date();
      const ipAddress = clientIp(c);
      if (!(await passwordMatches(c.req.valid('json').password, expected))) {
        await auditInsert(c.var.db, { actor: 'anonymous', action: 'admin_login_failed', ipAddress }, now);
        throw new AppError(401, 'invalid_password', 'Invalid password');
      }
      // The administrator password is the study's bootstrap: it signs in an owner (issue #60).
      const role = 'owner';
      const { token, expiresAt } = await createAdminSession(c.var.db, {
        role,
        hours: studyConfig.admin.sessionHours,
        ipAddress,
        userAgent: userAgent(c),
        now,
      });
      await auditInsert(c.var.db, { actor: 'admin', action: 'admin_login', ipAddress }, now);
      setCookie(c, ADMIN_COOKIE, token, {
        httpOnly: true,
        sameSite: 'Strict',
        secure: new URL(c.req.url).protocol === 'https:',
        path: '/api',
        expires: new Date(expiresAt),
      });
      return c.json({ authenticated: true, expires_at: expiresAt, role } satisfies AdminSessionResponse);
    },
  )
  .post('/logout', async (c) => {
    const token = getCookie(c, ADMIN_COOKIE);
    if (token) await revokeAdminSession(c.var.db, token, new Date());
    deleteCookie(c, ADMIN_COOKIE, { path: '/api' });
    return c.json({ authenticated: false, expires_at: null } satisfies AdminSessionResponse);
  })
  .get('/session', async (c) => {
    const session = await adminSessionOf(c);
    return c.json({ authenticated: session !== null, expires_at: session?.expiresAt ?? null, ...(session ? { role: session.role } : {}) } satisfies AdminSessionResponse);
  });
