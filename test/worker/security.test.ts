/**
 * The attacker's view of the API: every administrator-only route (read from the app's own route
 * table, so a new one is covered the day it is added) refuses a missing, forged, revoked or
 * expired admin session; participant-ID lookups and the admin password stay limited whatever
 * forwarding headers a client invents. (The API's security headers: status.test.ts.)
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { api, appRoutes, postJson, uniqueClientIp } from '../helpers/api';

/**
 * Routes only an administrator may call: the admin area (but its own login, logout and session
 * check), exports, cleanup, registration tools, model verification and retraining, and every
 * user-model call but the participant's own training.
 */
const ADMIN_ONLY = [
  /^\/api\/admin\/(?!login$|logout$|session$)/,
  /^\/api\/enhanced-export\//,
  /^\/api\/(admin\/)?cleanup/,
  /^\/api\/model-verification\//,
  /^\/api\/user-models\//,
  /^\/api\/experiments\/statistics$/,
  /^\/api\/user-model\/debug/,
  /^\/api\/experiments\/(debug|register|bulk)/,
];

/** The admin-only routes, each with its path parameters filled in. */
const adminOnlyRoutes = () =>
  appRoutes()
    .filter((r) => ADMIN_ONLY.some((re) => re.test(r.path)))
    .map((r) => ({ method: r.method, path: r.path.replace(/:(\w+)/g, '1') }));

const call = (route: { method: string; path: string }, cookie?: string) =>
  api(route.path, {
    method: route.method,
    headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
    body: route.method === 'GET' ? undefined : '{}',
  });

async function login(): Promise<string> {
  const res = await postJson('/api/admin/login', { password: 'test-admin-password' }, { 'CF-Connecting-IP': uniqueClientIp() });
  expect(res.status).toBe(200);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

describe('administrator-only routes', () => {
  it('are found in the route table', () => {
    const routes = adminOnlyRoutes().map((r) => `${r.method} ${r.path}`);
    expect(routes).toContain('GET /api/admin/audit-log');
    expect(routes).toContain('POST /api/user-models/train/1');
  });

  it('refuse a missing, forged, revoked or expired session with 401 and detail, and admit a valid one', async () => {
    const revoked = await login();
    expect((await api('/api/admin/logout', { method: 'POST', headers: { Cookie: revoked } })).status).toBe(200);
    const expired = await login();
    // The newest session is `expired`'s: move its expiry into the past, as time would.
    await env.DB.prepare(
      "update admin_sessions set expires_at = '2000-01-01T00:00:00.000Z' where token_hash = (select token_hash from admin_sessions order by created_at desc, rowid desc limit 1)",
    ).run();
    const valid = await login();
    const attempts: [string, string | undefined][] = [
      ['none', undefined],
      ['forged', 'xdl_admin=forged-token-0000000000000000000000000000'],
      ['empty', 'xdl_admin='],
      ['revoked', revoked],
      ['expired', expired],
    ];
    for (const route of adminOnlyRoutes()) {
      for (const [kind, cookie] of attempts) {
        const res = await call(route, cookie);
        expect(res.status, `${route.method} ${route.path} with ${kind} session`).toBe(401);
        expect(errorBodySchema.parse(await res.json()).code).toBe('admin_auth_required');
      }
      // The same call with a live session gets past the guard (it may still be refused for its input).
      expect((await call(route, valid)).status, `${route.method} ${route.path} with a valid session`).not.toBe(401);
    }
  });

  it('never accepts the password itself, a header or a query parameter in place of the session', async () => {
    for (const route of adminOnlyRoutes()) {
      const impostors: Record<string, string>[] = [
        { Authorization: 'Bearer test-admin-password' },
        { 'X-Admin-Password': 'test-admin-password' },
        { Cookie: 'xdl_admin=test-admin-password' },
      ];
      for (const headers of impostors) {
        const res = await api(`${route.path}?password=test-admin-password&admin=1`, { method: route.method, headers });
        expect(res.status, `${route.method} ${route.path} ${JSON.stringify(headers)}`).toBe(401);
      }
    }
  });
});

describe('limits against spoofed forwarding headers', () => {
  // Only CF-Connecting-IP, which Cloudflare's edge sets and overwrites, names the client.
  const spoofed = (i: number) => ({
    'X-Forwarded-For': `203.0.113.${i % 250}`,
    'X-Real-IP': `203.0.113.${(i * 7) % 250}`,
    'True-Client-IP': `203.0.113.${(i * 13) % 250}`,
    Forwarded: `for=203.0.113.${(i * 3) % 250}`,
  });

  it('counts ID lookups per CF-Connecting-IP, however the other headers vary', async () => {
    const ip = uniqueClientIp();
    const statuses: number[] = [];
    // Fixed one-minute windows: 241 calls meet a 429 even across a window's end.
    while (statuses.length < 241 && statuses.at(-1) !== 429) {
      statuses.push((await postJson('/api/experiments/check-existing', { participant_name: 'ABCDEFGH' }, { 'CF-Connecting-IP': ip, ...spoofed(statuses.length) })).status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.indexOf(429)).toBeGreaterThanOrEqual(120);
  });

  it('counts admin password guesses per CF-Connecting-IP, however the other headers vary', async () => {
    const ip = uniqueClientIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await postJson('/api/admin/login', { password: `guess-${i}` }, { 'CF-Connecting-IP': ip, ...spoofed(i) })).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
  });
});
