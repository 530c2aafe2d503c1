import { exports } from 'cloudflare:workers';
import app from '../../worker/app';

/** A distinct client address, so per-client rate limits never leak between tests. */
export const uniqueClientIp = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}-${crypto.randomUUID()}`;

/**
 * Calls the Worker's own fetch handler, as a browser would reach it. Each call comes from a
 * client address of its own unless the caller names one (as the rate-limit tests do).
 */
export const api = (path: string, init?: RequestInit) => {
  const headers = new Headers(init?.headers);
  if (!headers.has('CF-Connecting-IP')) headers.set('CF-Connecting-IP', uniqueClientIp());
  return exports.default.fetch(new Request(`https://lab.test${path}`, { ...init, headers }));
};

/**
 * Calls until the first 429, or 2 × `limit` + 1 calls: the limiters count fixed minutes, so calls
 * that straddle a minute's end meet their 429 only past twice the limit. Returns every status.
 */
export async function callUntilLimited(limit: number, call: (i: number) => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  while (statuses.length < 2 * limit + 1 && statuses.at(-1) !== 429) statuses.push((await call(statuses.length)).status);
  return statuses;
}

export const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  api(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Every concrete route of the app, once (middleware entries and the catch-all left out), as its route table lists them. */
export function appRoutes(): { method: string; path: string }[] {
  const seen = new Map<string, { method: string; path: string }>();
  for (const r of app.routes) {
    if (r.method === 'ALL' || r.path.includes('*')) continue;
    seen.set(`${r.method} ${r.path}`, { method: r.method, path: r.path });
  }
  return [...seen.values()];
}

/** Logs in as the test admin and returns the session cookie to send. */
export async function adminCookie(): Promise<string> {
  const res = await postJson('/api/admin/login', { password: 'test-admin-password' }, { 'CF-Connecting-IP': uniqueClientIp() });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

/** An admin CSV download (values without commas) as rows, each read by its column's name. */
export async function adminCsvRows(path: string, cookie: string): Promise<((column: string) => string | undefined)[]> {
  const [header, ...rows] = (await (await api(path, { headers: { cookie } })).text()).trim().split('\n').map((line) => line.split(','));
  return rows.map((row) => (column: string) => row[header!.indexOf(column)]);
}

/** An initial judgement for a main-experiment case: the request that reveals the AI carries it (the server keeps it before it shows the AI). */
export const GIVEN_INITIAL = { initial_prediction: 1, initial_confidence: 3, initial_response_time_ms: 4000 } as const;
