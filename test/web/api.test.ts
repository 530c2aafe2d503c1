import { describe, expect, it, vi } from 'vitest';
import { ApiError, createRetryingFetch, errorFromResponse, NetworkError, onRateLimited, resolveApiUrl } from '../../web/lib/api';
import { userErrorText } from '../../web/lib/http-errors';

const offline = (..._args: Parameters<typeof fetch>): Promise<Response> => Promise.reject(new TypeError('Failed to fetch'));

describe('createRetryingFetch', () => {
  it('retries a network failure 3 times after 1, 2 and 4 s, then gives up with NetworkError', async () => {
    const fetchMock = vi.fn(offline);
    const sleep = vi.fn((_ms: number) => Promise.resolve());
    const retrying = createRetryingFetch({ fetch: fetchMock, sleep });
    await expect(retrying('https://lab.test/api/status')).rejects.toBeInstanceOf(NetworkError);
    expect(fetchMock).toHaveBeenCalledTimes(4);
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([1000, 2000, 4000]);
  });

  it('returns the first answer once the network is back', async () => {
    const fetchMock = vi
      .fn<typeof fetch>()
      .mockImplementationOnce(offline)
      .mockResolvedValueOnce(new Response('{}', { status: 200 }));
    const retrying = createRetryingFetch({ fetch: fetchMock, sleep: () => Promise.resolve() });
    expect((await retrying('https://lab.test/x')).status).toBe(200);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it("waits out a 429 for the server's Retry-After and sends again, telling the page while it waits", async () => {
    const limited = () => new Response('{"detail":"Too many requests.","code":"rate_limited"}', { status: 429, headers: { 'Retry-After': '7' } });
    const fetchMock = vi.fn<typeof fetch>().mockResolvedValueOnce(limited()).mockResolvedValueOnce(limited()).mockResolvedValueOnce(new Response('{}', { status: 201 }));
    const sleep = vi.fn((_ms: number) => Promise.resolve());
    const told: (number | null)[] = [];
    const stop = onRateLimited((until) => told.push(until));
    try {
      const res = await createRetryingFetch({ fetch: fetchMock, sleep })('https://lab.test/api/consent/submit', { method: 'POST', body: '{"a":1}' });
      expect(res.status).toBe(201);
      expect(fetchMock).toHaveBeenCalledTimes(3);
      expect(fetchMock.mock.calls.map(([, init]) => init?.body)).toEqual(['{"a":1}', '{"a":1}', '{"a":1}']);
      expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([7000, 7000]);
      expect(told.map((t) => (t === null ? null : 'waiting'))).toEqual(['waiting', null, 'waiting', null]);
    } finally {
      stop();
    }
  });

  it('gives a 429 back to the caller after five waits', async () => {
    const fetchMock = vi.fn<typeof fetch>().mockImplementation(async () => new Response('', { status: 429 }));
    const sleep = vi.fn((_ms: number) => Promise.resolve());
    expect((await createRetryingFetch({ fetch: fetchMock, sleep })('https://lab.test/x')).status).toBe(429);
    expect(fetchMock).toHaveBeenCalledTimes(6);
    // No Retry-After: 5 s each.
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([5000, 5000, 5000, 5000, 5000]);
  });

  it('never retries an HTTP error', async () => {
    const fetchMock = vi.fn<typeof fetch>().mockResolvedValue(new Response('', { status: 500 }));
    const retrying = createRetryingFetch({ fetch: fetchMock, sleep: () => Promise.resolve() });
    expect((await retrying('https://lab.test/x')).status).toBe(500);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('does not retry a request the caller aborted', async () => {
    const fetchMock = vi.fn<typeof fetch>().mockRejectedValue(new DOMException('aborted', 'AbortError'));
    const retrying = createRetryingFetch({ fetch: fetchMock, sleep: () => Promise.resolve() });
    await expect(retrying('https://lab.test/x')).rejects.toMatchObject({ name: 'AbortError' });
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('waits the real back-off when no sleep is injected', async () => {
    vi.useFakeTimers();
    try {
      const fetchMock = vi.fn(offline);
      const done = createRetryingFetch({ fetch: fetchMock })('https://lab.test/x').catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(999);
      expect(fetchMock).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(fetchMock).toHaveBeenCalledTimes(2);
      await vi.advanceTimersByTimeAsync(6000);
      expect(await done).toBeInstanceOf(NetworkError);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('errorFromResponse', () => {
  it('uses a string detail as the message', async () => {
    const err = await errorFromResponse(new Response(JSON.stringify({ detail: 'Invalid password', code: 'invalid_password' }), { status: 401 }));
    expect(err).toMatchObject({ status: 401, message: 'Invalid password', code: 'invalid_password' });
  });

  it('joins the msg of each validation issue', async () => {
    const body = { detail: [{ msg: 'a is required', loc: ['a'] }, { msg: 'b too long', loc: ['b'] }], code: 'validation_failed' };
    const err = await errorFromResponse(new Response(JSON.stringify(body), { status: 400 }));
    expect(err.message).toBe('a is required\nb too long');
    expect(err.detail).toEqual(body.detail);
  });

  it('reads a detail without a code (a body from elsewhere than this API)', async () => {
    const err = await errorFromResponse(new Response(JSON.stringify({ detail: 'model store down' }), { status: 503 }));
    expect(err).toMatchObject({ status: 503, message: 'model store down', code: null });
  });

  it('falls back to HTTP {status}: {text} without a detail', async () => {
    const err = await errorFromResponse(new Response('Bad Gateway', { status: 502 }));
    expect(err.message).toBe('HTTP 502: Bad Gateway');
    expect(err.detail).toBeNull();
  });
});

describe('userErrorText', () => {
  it.each([
    [new ApiError(400, 'x', 'c', 'x'), 'errors.http.badRequest', undefined],
    [new ApiError(404, 'x', 'c', 'x'), 'errors.http.notFound', undefined],
    [new ApiError(500, 'x', 'c', 'x'), 'errors.http.server', undefined],
    // Never the raw body of a server-side failure: the spec's server text.
    [new ApiError(503, null, null, 'HTTP 503: {"detail":"model store down"}'), 'errors.http.server', undefined],
    [new ApiError(502, null, null, 'HTTP 502: Bad Gateway'), 'errors.http.server', undefined],
    [new ApiError(409, 'Already answered', 'c', 'Already answered'), 'errors.http.other', { message: 'Already answered' }],
    [new NetworkError(new TypeError('Failed to fetch')), 'errors.http.network', undefined],
    [new Error('boom'), 'errors.http.unexpected', { message: 'boom' }],
  ])('maps %o to %s', (error, key, values) => {
    expect(userErrorText(error)).toEqual(values ? { key, values } : { key });
  });
});

describe('resolveApiUrl', () => {
  it('passes full URLs through and adds a missing leading slash', () => {
    expect(resolveApiUrl('https://other.test/api/x', 'https://lab.test')).toBe('https://other.test/api/x');
    expect(resolveApiUrl('api/status', 'https://lab.test/')).toBe('https://lab.test/api/status');
    expect(resolveApiUrl('/api/status', '')).toBe(`${window.location.origin}/api/status`);
  });
});
