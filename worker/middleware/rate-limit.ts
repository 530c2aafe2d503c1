import { lt, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { rateLimitBuckets } from '../db/schema';
import type { AppEnv } from '../env';
import { AppError } from '../errors';
import { clientIp } from '../request-meta';

/** Counters older than this are pruned; no window in use is longer. */
const RETENTION_SECONDS = 24 * 3600;

/** Without Cloudflare's edge in front (a local run) there is no client address: all callers share one key. */
const clientKey = (c: Context) => clientIp(c) ?? 'local';

function tooManyRequests(c: Context, retryAfterSeconds: number): AppError {
  c.header('Retry-After', String(retryAfterSeconds));
  return new AppError(429, 'rate_limited', `Too many requests. Try again in ${retryAfterSeconds} seconds.`);
}

/** The limiters declared as `[[ratelimits]]` in wrangler.toml (limit and 60-second period live there). */
type LimiterBinding = {
  [K in keyof Env]: Env[K] extends RateLimit ? K : never;
}[keyof Env];
const LIMITER_PERIOD_SECONDS = 60;

/**
 * Per-address limit counted by the Workers rate-limiting binding: no D1 write per request, so the
 * participant's answer path stays one D1 batch. Counters live at each Cloudflare location, which
 * is what an enumeration or flooding client from one address meets.
 */
export const limitPerClient = (binding: LimiterBinding) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const { success } = await c.env[binding].limit({ key: clientKey(c) });
    if (!success) {
      // The binding does not say when its window ends; windows are aligned to the minute.
      const nowSeconds = Math.floor(Date.now() / 1000);
      throw tooManyRequests(c, LIMITER_PERIOD_SECONDS - (nowSeconds % LIMITER_PERIOD_SECONDS));
    }
    await next();
  });

/**
 * Fixed-window limit per client address kept in D1, for the admin password only: its window is
 * 15 minutes (the binding offers 10 or 60 seconds) and it must hold across every location and
 * isolate at once, which a per-location counter does not. Logins are rare, so one D1 write each is cheap.
 */
export const durableRateLimit = (opts: { name: string; limit: number; windowSeconds: number }) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const windowStart = nowSeconds - (nowSeconds % opts.windowSeconds);
    const bucketKey = `${opts.name}:${clientKey(c)}`;
    const [counted] = await c.var.db.batch([
      c.var.db
        .insert(rateLimitBuckets)
        .values({ bucketKey, windowStart, count: 1 })
        .onConflictDoUpdate({
          target: [rateLimitBuckets.bucketKey, rateLimitBuckets.windowStart],
          set: { count: sql`${rateLimitBuckets.count} + 1` },
        })
        .returning({ count: rateLimitBuckets.count }),
      c.var.db.delete(rateLimitBuckets).where(lt(rateLimitBuckets.windowStart, nowSeconds - RETENTION_SECONDS)),
    ]);
    const count = counted[0]?.count ?? 1;
    if (count > opts.limit) throw tooManyRequests(c, windowStart + opts.windowSeconds - nowSeconds);
    await next();
  });
