import { exports } from 'cloudflare:workers';

/** Calls the Worker's own fetch handler, as a browser would reach it. */
export const api = (path: string, init?: RequestInit) =>
  exports.default.fetch(new Request(`https://lab.test${path}`, init));

export const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  api(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** A distinct client address per test, so per-client rate limits never leak between tests. */
export const uniqueClientIp = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}-${crypto.randomUUID()}`;

/** Logs in as the test admin and returns the session cookie to send. */
export async function adminCookie(): Promise<string> {
  const res = await postJson('/api/admin/login', { password: 'test-admin-password' }, { 'CF-Connecting-IP': uniqueClientIp() });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}
