import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { routePath } from 'hono/route';
import { auditInsert } from '../db/queries/audit-log';
import type { AppEnv } from '../env';
import { AppError } from '../errors';
import { clientIp } from '../request-meta';
import { roleAllows } from '../schemas/admin-roles';
import { ADMIN_COOKIE, findAdminSession } from '../services/admin-auth';
import { roleNeeded } from './admin-routes';

/**
 * The areas of the API only an administrator may call: the dashboard, its exports, cleanup and
 * registration tools (all under /admin), the statistics, model verification and the user-model
 * tools by numeric user id. The participant's own `/user-model/train` is not among them.
 */
const ADMIN_AREAS = ['/api/admin/', '/api/enhanced-export/', '/api/model-verification/', '/api/user-models/'];
const ADMIN_PATHS = new Set(['/api/experiments/statistics']);
/** The calls that establish or end an admin session must be reachable without one. */
const OPEN_PATHS = new Set(['/api/admin/login', '/api/admin/logout', '/api/admin/session']);

export const isAdminPath = (path: string) => {
  const p = path.replace(/\/+$/, '');
  if (OPEN_PATHS.has(p)) return false;
  return ADMIN_PATHS.has(p) || ADMIN_AREAS.some((area) => `${p}/`.startsWith(area));
};

/** The live server-side admin session the request's cookie names, or null. */
export async function adminSessionOf(c: Context<AppEnv>) {
  const token = getCookie(c, ADMIN_COOKIE);
  return token ? findAdminSession(c.var.db, token, new Date()) : null;
}

/** Whether the request's cookie names a live server-side admin session. */
export const hasAdminSession = async (c: Context<AppEnv>) => (await adminSessionOf(c)) !== null;

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a browser says this request was made by another site's page. The admin cookie is
 * SameSite=Strict already; this refuses the rest (a sibling subdomain counts as same-site for
 * cookies, and an old browser may ignore SameSite) for every call that changes something. Tools
 * that send neither header (curl, tests, the deploy script) are not browsers and pass.
 */
function fromAnotherSite(c: Context<AppEnv>): boolean {
  const site = c.req.header('Sec-Fetch-Site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = c.req.header('Origin');
  if (origin === undefined) return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true; // "null" (a sandboxed frame, a file) or garbage
  }
  // Behind a development proxy (Vite's) the URL names the Worker's port while Host keeps the page's.
  return host !== new URL(c.req.url).host && host !== c.req.header('Host');
}

const isAdminCall = (path: string) => isAdminPath(path) || OPEN_PATHS.has(path.replace(/\/+$/, ''));

/**
 * The one guard of every admin call: a change asked for by another site's page is refused with
 * 403 (cross-site request forgery), then the session cookie must name a live server-side session,
 * else 401 with `detail`, whose role is at least the one the route declares (`admin-routes.ts`),
 * else 403 `role_required`. After the handler, every admin mutation that succeeded, and every call
 * a handler marked with `c.set('audit', …)` (exports), goes to the audit log, so no route can
 * forget to record what it did.
 */
export const guardAdminAreas = createMiddleware<AppEnv>(async (c, next) => {
  if (!isAdminCall(c.req.path)) return next();
  const mutation = !SAFE_METHODS.has(c.req.method);
  if (mutation && fromAnotherSite(c)) {
    throw new AppError(403, 'cross_site_request', 'Administrator actions are accepted only from this site\'s own pages');
  }
  if (!isAdminPath(c.req.path)) return next();
  const session = await adminSessionOf(c);
  if (!session) {
    throw new AppError(401, 'admin_auth_required', 'Administrator authentication is required');
  }
  // The role the matched route declares (issue #60); the last matched entry is the route's own handler.
  const need = roleNeeded(c.req.method, routePath(c, -1));
  if (!roleAllows(session.role, need)) {
    throw new AppError(403, 'role_required', `This needs the ${need} role; this session acts as ${session.role}`);
  }
  await next();
  const marked = c.get('audit');
  if (c.res.status >= 400 || (!mutation && !marked)) return;
  await auditInsert(
    c.var.db,
    {
      actor: 'admin',
      action: marked?.action ?? `${c.req.method} ${c.req.path}`,
      targetType: marked?.targetType,
      targetId: marked?.targetId,
      details: { ...marked?.details, method: c.req.method, path: c.req.path },
      ipAddress: clientIp(c),
    },
    new Date(),
  );
});
