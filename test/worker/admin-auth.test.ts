import { describe, expect, it } from 'vitest';
import { adminSessionResponseSchema, auditLogResponseSchema } from '../../worker/schemas/admin';
import { errorBodySchema } from '../../worker/schemas/api';
import { api, postJson, uniqueClientIp } from '../helpers/api';

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
