/**
 * The SPA's one way to reach the Worker: a typed `hc<AppType>` client whose fetch retries network
 * failures (up to 3 retries after 1, 2 and 4 s; part 1 §9) and a 429 (after the server's
 * Retry-After, a few times, while the page says so in its language), and no other HTTP error.
 */
import { hc, type ClientResponse } from 'hono/client';
import type { AppType } from '../../worker/app';
import type { ErrorBody } from '../../worker/schemas/api';
import { studyConfig } from '../../worker/schemas/study-config';

/** The configured backend address; empty means the SPA's own origin (the usual deployment). */
export const configuredApiBase: string = import.meta.env.VITE_API_BASE ?? '';

/** Resolves a call path against the backend address: full URLs pass through, a leading slash is added. */
export function resolveApiUrl(path: string, base: string = configuredApiBase): string {
  if (/^https?:\/\//i.test(path)) return path;
  const origin = base || window.location.origin;
  return `${origin.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}

/** The request never got an HTTP answer (offline, DNS, connection reset) after every retry. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(readonly causeError: unknown) {
    super(causeError instanceof Error ? causeError.message : String(causeError));
  }
}

/** The server answered with an error status; `message` is its `detail`, else `HTTP {status}: {text}`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly detail: ErrorBody['detail'] | null,
    readonly code: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** What a refusal says, field by field when the server lists issues, else its one message. */
export const refusalLines = (err: Error): string[] =>
  err instanceof ApiError && Array.isArray(err.detail) ? err.detail.map((i) => `${i.loc.join('.')}: ${i.msg}`) : [err.message];

const sleepReal = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A 429 is the server asking to come back later (many participants behind one address, a lab):
 * waited out and sent again, up to this many times, each wait the server's Retry-After (1–60 s).
 */
const RATE_LIMITED_RETRIES = 5;
const retryAfterMs = (res: Response) => {
  const seconds = Number(res.headers.get('Retry-After'));
  return Math.min(60, Math.max(1, Number.isFinite(seconds) && seconds > 0 ? seconds : 5)) * 1000;
};

/** Who is told that a call waits for the server to take it again (`null`: no call waits any more). */
const rateLimitListeners = new Set<(until: number | null) => void>();
/** Calls `listener` with the time a rate-limited call will be sent again, and with null when none waits; returns the unsubscribe. */
export function onRateLimited(listener: (until: number | null) => void): () => void {
  rateLimitListeners.add(listener);
  return () => rateLimitListeners.delete(listener);
}
let waitingCalls = 0;
const tellRateLimited = (until: number | null) => rateLimitListeners.forEach((listener) => listener(until));

/**
 * fetch with the spec's retry policy. An aborted request is the caller's decision and is not
 * retried.
 */
export function createRetryingFetch(
  options: { fetch?: typeof fetch; sleep?: (ms: number) => Promise<void>; backoffMs?: readonly number[] } = {},
): typeof fetch {
  const backoff = options.backoffMs ?? studyConfig.apiRetry.backoffMs;
  const sleep = options.sleep ?? sleepReal;
  const send = async (input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await (options.fetch ?? globalThis.fetch)(input, init);
      } catch (err) {
        if (err instanceof DOMException && err.name === 'AbortError') throw err;
        const delay = backoff[attempt];
        if (delay === undefined) throw new NetworkError(err);
        await sleep(delay);
      }
    }
  };
  return async (input, init) => {
    let res = await send(input, init);
    for (let retry = 0; res.status === 429 && retry < RATE_LIMITED_RETRIES; retry++) {
      const wait = retryAfterMs(res);
      waitingCalls++;
      tellRateLimited(Date.now() + wait);
      try {
        await sleep(wait);
        res = await send(input, init);
      } finally {
        waitingCalls--;
        if (waitingCalls === 0) tellRateLimited(null);
      }
    }
    return res;
  };
}

export const api = hc<AppType>(resolveApiUrl('/'), {
  fetch: createRetryingFetch(),
  init: { credentials: 'same-origin' },
});

/**
 * The API's error shape (`errorBodySchema` on the server), checked by hand: the browser only
 * reads it, and zod would add its weight to every participant's first load.
 */
/** A body with the spec's `detail` (a string, or issues with `msg`); `code` is this API's and may be absent elsewhere (a proxy, the platform). */
function isErrorBody(json: unknown): json is Pick<ErrorBody, 'detail'> & { code?: unknown } {
  if (typeof json !== 'object' || json === null) return false;
  const { detail } = json as Record<string, unknown>;
  const issues = Array.isArray(detail) && detail.every((i) => typeof i === 'object' && i !== null && typeof (i as { msg?: unknown }).msg === 'string');
  return typeof detail === 'string' || issues;
}

function detailMessage(detail: ErrorBody['detail']): string {
  return typeof detail === 'string' ? detail : detail.map((issue) => issue.msg).join('\n');
}

/** Builds the ApiError for a non-OK response, reading the body's `detail` when it has one. */
export async function errorFromResponse(
  res: Pick<Response, 'status' | 'statusText' | 'text'>,
): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON: a proxy page or an empty body.
  }
  if (isErrorBody(json)) return new ApiError(res.status, json.detail, typeof json.code === 'string' ? json.code : null, detailMessage(json.detail));
  return new ApiError(res.status, null, null, `HTTP ${res.status}: ${text || res.statusText}`);
}

/** The JSON body of a successful response, typed from the route; throws ApiError otherwise. */
export async function unwrap<T>(res: ClientResponse<T>): Promise<T> {
  if (!res.ok) throw await errorFromResponse(res);
  return (await res.json()) as T;
}
