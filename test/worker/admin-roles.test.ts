/**
 * Each administrator route's role (issue #60, point 1): every route of an admin area is declared
 * in `ADMIN_ROUTE_ROLES` (a new route without a role fails here), and every route × every role is
 * called: a role below the declared one is refused with 403 `role_required` and nothing is stored;
 * a role at or above it passes the guard (the request is then answered for what it asks). Writes
 * are sent as requests refused for their content, so the walk itself changes nothing.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../worker/db/client';
import { isAdminPath } from '../../worker/middleware/admin-auth';
import { ADMIN_ROUTE_ROLES } from '../../worker/middleware/admin-routes';
import { ADMIN_ROLES, roleAllows, type AdminRole } from '../../worker/schemas/admin-roles';
import { adminSessionResponseSchema } from '../../worker/schemas/admin';
import { errorBodySchema } from '../../worker/schemas/api';
import { ADMIN_COOKIE, createAdminSession } from '../../worker/services/admin-auth';
import { api, appRoutes } from '../helpers/api';
import { refusedAdminWrites } from '../helpers/admin-refused-writes';
import { fingerprinter } from '../helpers/db-fingerprint';
import { seedCompasStudy } from '../helpers/study-factories';

/** The calls that open or end a session, reachable without one (no role). */
const OPEN = new Set(['POST /api/admin/login', 'POST /api/admin/logout', 'GET /api/admin/session']);
const REFUSED_WRITES = refusedAdminWrites(`test_nobody_${crypto.randomUUID().slice(0, 8)}`);
const adminRoutes = () =>
  [...new Set(appRoutes().filter((r) => isAdminPath(r.path) || r.path.startsWith('/api/admin/')).map((r) => `${r.method} ${r.path.replace(/\/+$/, '')}`))].filter((k) => !OPEN.has(k));

/** A concrete request for a route: its refused write, or the path with made-up parameters. */
function requestFor(route: string): { method: string; path: string; body?: unknown } {
  const [method, pattern] = route.split(' ') as [string, string];
  const refused = REFUSED_WRITES[route]?.();
  if (refused) return { method, path: refused.path, body: refused.body };
  const path = pattern.replace(':dataset', 'compas').replace(':name', 'no_such_export').replace(/:[a-zA-Z]+/g, '999999999');
  return { method, path };
}

const cookies = {} as Record<AdminRole, string>;
beforeAll(async () => {
  await seedCompasStudy();
  const db = createDb(env.DB);
  for (const role of ADMIN_ROLES) {
    const { token } = await createAdminSession(db, { hours: 1, ipAddress: null, userAgent: null, now: new Date(), role });
    cookies[role] = `${ADMIN_COOKIE}=${token}`;
  }
});

const call = (route: string, role: AdminRole) => {
  const r = requestFor(route);
  return api(r.path, {
    method: r.method,
    headers: { Cookie: cookies[role], ...(r.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: r.body === undefined ? undefined : JSON.stringify(r.body),
  });
};

describe('administrator roles', () => {
  it('declares a role for every admin route, and no route that is not there', () => {
    const routes = adminRoutes();
    expect(routes.filter((r) => !(r in ADMIN_ROUTE_ROLES)), 'routes without a declared role').toEqual([]);
    expect(Object.keys(ADMIN_ROUTE_ROLES).filter((r) => !routes.includes(r)), 'declared routes that do not exist').toEqual([]);
  });

  it('refuses every role below a route’s with 403 role_required, storing nothing', async () => {
    const fingerprint = await fingerprinter();
    const before = await fingerprint();
    const refused: string[] = [];
    for (const route of adminRoutes()) {
      for (const role of ADMIN_ROLES.filter((r) => !roleAllows(r, ADMIN_ROUTE_ROLES[route as keyof typeof ADMIN_ROUTE_ROLES]))) {
        const res = await call(route, role);
        const body = errorBodySchema.parse(await res.json());
        expect([res.status, body.code], `${route} as ${role}`).toEqual([403, 'role_required']);
        expect(body.detail).toContain(role);
        refused.push(`${route} as ${role}`);
      }
    }
    // An assistant is refused the raw data, exports, settings and deletion; a researcher only what ends the whole study.
    expect(refused.filter((r) => r.endsWith('as researcher'))).toEqual(['DELETE /api/admin/cleanup/all-data as researcher']);
    expect(refused).toContain('GET /api/admin/post-survey/responses as assistant');
    expect(refused).toContain('POST /api/admin/export-jobs as assistant');
    expect(refused).toContain('DELETE /api/admin/users/:id as assistant');
    expect(await fingerprint(), 'a refused call changed the database').toBe(before);
  });

  it('lets every role at or above a route’s past the guard', async () => {
    for (const route of adminRoutes()) {
      for (const role of ADMIN_ROLES.filter((r) => roleAllows(r, ADMIN_ROUTE_ROLES[route as keyof typeof ADMIN_ROUTE_ROLES]))) {
        const res = await call(route, role);
        const text = await res.text();
        expect(res.status, `${route} as ${role}: ${text.slice(0, 200)}`).not.toBe(401);
        if (res.status === 403) expect(errorBodySchema.parse(JSON.parse(text)).code, `${route} as ${role}`).not.toBe('role_required');
      }
    }
  });

  it('says which role a session acts in; the administrator password signs in an owner', async () => {
    const session = adminSessionResponseSchema.parse(await (await api('/api/admin/session', { headers: { Cookie: cookies.assistant } })).json());
    expect(session).toMatchObject({ authenticated: true, role: 'assistant' });
    const login = await api('/api/admin/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ password: 'test-admin-password' }) });
    expect(adminSessionResponseSchema.parse(await login.json())).toMatchObject({ authenticated: true, role: 'owner' });
  });
});
