import { lt, sql } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import { rateLimitBuckets } from '../db/schema';
import type { AppEnv } from '../env';
import { AppError } from '../errors';
import { clientIp } from '../request-meta';

/** Counters older than this are pruned; no window in use is longer. */
const RETENTION_SECONDS = 24 * 3600;

/**
 * Fixed-window limit per client address, kept in D1 so it holds across isolates and colos.
 * Used where guessing is the threat: participant-ID lookups and the admin password.
 */
export const rateLimit = (opts: { name: string; limit: number; windowSeconds: number }) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const windowStart = nowSeconds - (nowSeconds % opts.windowSeconds);
    const bucketKey = `${opts.name}:${clientIp(c) ?? 'local'}`;
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
    if (count > opts.limit) {
      const retryAfter = windowStart + opts.windowSeconds - nowSeconds;
      c.header('Retry-After', String(retryAfter));
      throw new AppError(429, 'rate_limited', `Too many requests. Try again in ${retryAfter} seconds.`);
    }
    await next();
  });
