import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminSessionResponseSchema, auditLogResponseSchema } from '../../worker/schemas/admin';
import { errorBodySchema } from '../../worker/schemas/api';
import { seedCompasCases } from '../helpers/study-factories';
import { adminCookie, api, postJson, uniqueClientIp } from '../helpers/api';

const PASSWORD = 'test-admin-password';

const cookieFrom = (res: Response) => {
  const raw = res.headers.get('set-cookie') ?? '';
  return raw.split(';')[0] ?? '';
};

describe('POST /api/admin/login', () => {
  it('sets an HttpOnly session cookie for the right password', async () => {
    const res = await postJson('/api/admin/login', { password: PASSWORD }, { 'CF-Connecting-IP': uniqueClientIp() });
    expect(res.status).toBe(200);
    const body = adminSessionResponseSchema.parse(await res.json());
    expect(body.authenticated).toBe(true);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^xdl_admin=/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Secure');

    const session = adminSessionResponseSchema.parse(
      await (await api('/api/admin/session', { headers: { Cookie: cookieFrom(res) } })).json(),
    );
    expect(session.authenticated).toBe(true);
  });

  it('marks the cookie Secure on https (every deployed copy) and not on a local http run, where a browser would drop it', async () => {
    const over = async (scheme: string) => {
      const res = await exports.default.fetch(
        new Request(`${scheme}://lab.test/api/admin/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': uniqueClientIp() },
          body: JSON.stringify({ password: PASSWORD }),
        }),
      );
      expect(res.status).toBe(200);
      return res.headers.get('set-cookie') ?? '';
    };
    expect(await over('https')).toMatch(/;\s*Secure/);
    expect(await over('http')).not.toMatch(/Secure/);
    expect(await over('http')).toContain('HttpOnly');
  });

  it('rejects a wrong password with 401 and records the attempt', async () => {
    const ip = uniqueClientIp();
    const res = await postJson('/api/admin/login', { password: 'wrong' }, { 'CF-Connecting-IP': ip });
    expect(res.status).toBe(401);
    expect(errorBodySchema.parse(await res.json()).code).toBe('invalid_password');
    expect(res.headers.get('set-cookie')).toBeNull();

    const login = await postJson('/api/admin/login', { password: PASSWORD }, { 'CF-Connecting-IP': uniqueClientIp() });
    const log = auditLogResponseSchema.parse(
      await (await api('/api/admin/audit-log?limit=1000', { headers: { Cookie: cookieFrom(login) } })).json(),
    );
    expect(log.entries.some((e) => e.action === 'admin_login_failed' && e.ip_address === ip)).toBe(true);
  });

  it('rejects an empty password with 400 and a field detail', async () => {
    const res = await postJson('/api/admin/login', { password: '' }, { 'CF-Connecting-IP': uniqueClientIp() });
    expect(res.status).toBe(400);
    const body = errorBodySchema.parse(await res.json());
    expect(body.code).toBe('validation_failed');
    expect(body.detail).toEqual([{ msg: 'password is required', loc: ['password'] }]);
  });

  it('rejects malformed JSON with 400 and detail', async () => {
    const res = await api('/api/admin/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': uniqueClientIp() },
      body: '{"password": ',
    });
    expect(res.status).toBe(400);
    const body = errorBodySchema.parse(await res.json());
    expect(typeof body.detail).toBe('string');
  });

  it('throttles password guessing per client after 10 attempts', async () => {
    const ip = uniqueClientIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await postJson('/api/admin/login', { password: `guess-${i}` }, { 'CF-Connecting-IP': ip })).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    // Another client is unaffected.
    const other = await postJson('/api/admin/login', { password: PASSWORD }, { 'CF-Connecting-IP': uniqueClientIp() });
    expect(other.status).toBe(200);
  });

  it('counts only failed attempts: 15 correct sign-ins in a row all succeed, and the failures among them still add up', async () => {
    const ip = uniqueClientIp();
    const login = (password: string) => postJson('/api/admin/login', { password }, { 'CF-Connecting-IP': ip });
    for (let i = 0; i < 15; i++) expect((await login(PASSWORD)).status, `sign-in ${i + 1}`).toBe(200);
    for (let i = 0; i < 9; i++) expect((await login(`guess-${i}`)).status).toBe(401);
    expect((await login(PASSWORD)).status).toBe(200);
    expect((await login('guess-9')).status).toBe(401);
    // After ten failures every further attempt is refused before the password is read, right or wrong.
    expect((await login(PASSWORD)).status).toBe(429);
  });
});

describe('POST /api/admin/logout', () => {
  it('revokes the session server-side so the old cookie stops working', async () => {
    const login = await postJson('/api/admin/login', { password: PASSWORD }, { 'CF-Connecting-IP': uniqueClientIp() });
    const cookie = cookieFrom(login);
    const out = await api('/api/admin/logout', { method: 'POST', headers: { Cookie: cookie } });
    expect(out.status).toBe(200);
    const session = adminSessionResponseSchema.parse(
      await (await api('/api/admin/session', { headers: { Cookie: cookie } })).json(),
    );
    expect(session.authenticated).toBe(false);
    const audit = await api('/api/admin/audit-log', { headers: { Cookie: cookie } });
    expect(audit.status).toBe(401);
  });
});

describe('GET /api/admin/audit-log', () => {
  it('requires an admin session', async () => {
    const res = await api('/api/admin/audit-log');
    expect(res.status).toBe(401);
    expect(errorBodySchema.parse(await res.json()).code).toBe('admin_auth_required');
  });

  it('rejects a forged cookie', async () => {
    const res = await api('/api/admin/audit-log', { headers: { Cookie: 'xdl_admin=forged-token' } });
    expect(res.status).toBe(401);
  });

  it('rejects an out-of-range page size with 400', async () => {
    const login = await postJson('/api/admin/login', { password: PASSWORD }, { 'CF-Connecting-IP': uniqueClientIp() });
    const res = await api('/api/admin/audit-log?limit=0', { headers: { Cookie: cookieFrom(login) } });
    expect(res.status).toBe(400);
    errorBodySchema.parse(await res.json());
  });
});

describe('cross-site requests to the admin API', () => {
  beforeAll(async () => {
    await seedCompasCases();
  });
  const foreign: { name: string; headers: Record<string, string> }[] = [
    { name: 'a page on another site (Origin)', headers: { Origin: 'https://attacker.example' } },
    { name: 'a page on a sibling subdomain (Sec-Fetch-Site)', headers: { 'Sec-Fetch-Site': 'same-site', Origin: 'https://other.lab.test' } },
    { name: 'a sandboxed frame (Origin: null)', headers: { Origin: 'null' } },
    { name: 'a browser that says cross-site', headers: { 'Sec-Fetch-Site': 'cross-site' } },
  ];

  it.each(foreign)('refuses a change asked for by $name with 403 and changes nothing, cookie or not', async ({ headers }) => {
    const cookie = await adminCookie();
    const name = `test_csrf_${crypto.randomUUID().slice(0, 8)}`;
    const register = await api(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`, { method: 'POST', headers: { ...headers, Cookie: cookie } });
    expect(register.status).toBe(403);
    expect(errorBodySchema.parse(await register.json())).toMatchObject({ code: 'cross_site_request' });
    const users = (await (await api('/api/admin/users', { headers: { Cookie: cookie } })).json()) as { users: { username: string }[] };
    expect(users.users.some((u) => u.username === name)).toBe(false);

    // Nor may another site sign the administrator out, or in.
    expect((await api('/api/admin/logout', { method: 'POST', headers: { ...headers, Cookie: cookie } })).status).toBe(403);
    expect(adminSessionResponseSchema.parse(await (await api('/api/admin/session', { headers: { Cookie: cookie } })).json()).authenticated).toBe(true);
    expect((await postJson('/api/admin/login', { password: PASSWORD }, { ...headers, 'CF-Connecting-IP': uniqueClientIp() })).status).toBe(403);
  });

  it("lets this site's own pages, and tools that are not browsers, make changes; reading stays open to the cookie", async () => {
    const cookie = await adminCookie();
    for (const headers of [{ Origin: 'https://lab.test', 'Sec-Fetch-Site': 'same-origin' }, {}] as Record<string, string>[]) {
      const name = `test_csrf_${crypto.randomUUID().slice(0, 8)}`;
      const res = await api(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`, { method: 'POST', headers: { ...headers, Cookie: cookie } });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    const read = await api('/api/admin/audit-log', { headers: { Origin: 'https://attacker.example', 'Sec-Fetch-Site': 'cross-site', Cookie: cookie } });
    expect(read.status).toBe(200);
  });
});
