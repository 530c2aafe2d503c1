import { describe, expect, it } from 'vitest';
import app from '../../worker/app';
import { errorBodySchema } from '../../worker/schemas/api';
import { adminCookie, api, postJson, uniqueClientIp } from '../helpers/api';

/** Every POST route the app declares, with path parameters filled in. */
const postRoutes = [...new Set(app.routes.filter((r) => r.method === 'POST').map((r) => r.path))].map((path) =>
  path.replace(/:(\w+)/g, 'TEST1234'),
);

describe('API conventions', () => {
  it('declares POST routes to check', () => {
    expect(postRoutes.length).toBeGreaterThan(0);
  });

  it.each(postRoutes)('POST %s answers malformed JSON with 400 and detail', async (path) => {
    const res = await api(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: await adminCookie(), 'CF-Connecting-IP': uniqueClientIp() },
      body: '{"broken": tru',
    });
    expect(res.status).toBe(400);
    const body = errorBodySchema.parse(await res.json());
    expect(body).toEqual({ detail: 'Malformed JSON in request body', code: 'malformed_json' });
  });

  it('refuses bodies over 1 MiB with 413', async () => {
    const res = await postJson('/api/admin/login', { password: 'x'.repeat(1024 * 1024 + 1) }, { 'CF-Connecting-IP': uniqueClientIp() });
    expect(res.status).toBe(413);
    expect(errorBodySchema.parse(await res.json()).code).toBe('payload_too_large');
  });

  it('answers a wrong method on a known path with JSON 404', async () => {
    const res = await api('/api/status', { method: 'DELETE' });
    expect(res.status).toBe(404);
    errorBodySchema.parse(await res.json());
  });
});
