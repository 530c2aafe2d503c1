import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { errorBodySchema, statusResponseSchema } from '../../worker/schemas/api';
import { api, postJson } from '../helpers/api';

describe('GET /api/status', () => {
  it('reports D1 and R2 connected from real checks and redis as not used', async () => {
    const res = await api('/api/status');
    expect(res.status).toBe(200);
    const body = statusResponseSchema.parse(await res.json());
    expect(body.api).toBe('healthy');
    expect(body.database).toBe('connected');
    expect(body.storage).toBe('connected');
    expect(body.redis).toBe('not_used');
    expect(res.headers.get('cache-control')).toBe('no-store');
    // The probe object is removed after the round trip.
    expect(await env.MODELS.head('health/probe')).toBeNull();
  });

  it('reports the ML pipeline not loaded while no AI model is registered', async () => {
    const body = statusResponseSchema.parse(await (await api('/api/status')).json());
    expect(body.ml_pipeline).toBe('not_loaded');
    expect(body.ml_models).toEqual({ adult_income: 'missing', speed_dating: 'missing', compas: 'missing' });
  });
});

describe('unknown API paths', () => {
  it('answers JSON 404 with detail', async () => {
    const res = await api('/api/no-such-route');
    expect(res.status).toBe(404);
    const body = errorBodySchema.parse(await res.json());
    expect(body.code).toBe('not_found');
    expect(body.detail).toContain('/api/no-such-route');
  });
});

describe('security headers of the API', () => {
  it.each([
    ['an answer', () => api('/api/status')],
    ['an error', () => api('/api/no/such/route')],
    ['a refused participant call', () => postJson('/api/experiments/check-existing', { participant_name: 'x' })],
  ])('come with %s: no framing, no sniffing, no content, HSTS, a referrer policy', async (_name, send) => {
    const res = await send();
    expect(res.headers.get('Content-Security-Policy')).toContain("default-src 'none'");
    expect(res.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('X-Frame-Options')).toBe('DENY');
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin');
    expect(res.headers.get('Strict-Transport-Security')).toContain('max-age=31536000');
  });
});
