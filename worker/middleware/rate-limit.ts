import { and, eq, lt, sql } from 'drizzle-orm';
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
/** The binding does not say when its window ends; windows are aligned to the minute. */
const secondsToWindowEnd = () => LIMITER_PERIOD_SECONDS - (Math.floor(Date.now() / 1000) % LIMITER_PERIOD_SECONDS);

/**
 * Per-address limit counted by the Workers rate-limiting binding: no D1 write per request, so the
 * participant's answer path stays one D1 batch. Counters live at each Cloudflare location, which
 * is what an enumeration or flooding client from one address meets.
 */
export const limitPerClient = (binding: LimiterBinding) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const { success } = await c.env[binding].limit({ key: clientKey(c) });
    if (!success) throw tooManyRequests(c, secondsToWindowEnd());
    await next();
  });

/** Clients a refusal limiter turned away, until their window ends (per isolate; a few entries at most). */
const turnedAway = new Map<string, number>();
const TURNED_AWAY_MAX = 10_000;

function rememberTurnedAway(key: string, untilMs: number): void {
  if (turnedAway.size >= TURNED_AWAY_MAX) {
    const now = Date.now();
    for (const [k, until] of turnedAway) if (until <= now) turnedAway.delete(k);
    if (turnedAway.size >= TURNED_AWAY_MAX) turnedAway.clear();
  }
  turnedAway.set(key, untilMs);
}

/**
 * Per-address limit on refused calls, for the routes that save a participant's answers. Guessing
 * IDs there is a stream of refusals (unknown ID, no consent, a case outside the set), so refusals
 * are what the binding counts; a stored or already-stored answer proves the caller holds a
 * consented ID, and the rows it can add are capped by that session's case sets (UNIQUE), so it
 * costs no limiter call. The route runs first (a refused call changes nothing) and the refusal is
 * replaced by 429 once the address is over the limit; from then until the window ends this
 * isolate turns the address away before any work, stored answers included (another isolate does
 * so from the address's first refusal there), so an address over the limit learns nothing more.
 *
 * `successes`: which answered calls cost nothing: all of them (the save routes, whose success
 * already means a case of the session's own set), or only those the route marked `ownCaseSet`
 * (a route that also serves cases outside any set, whose every other call is counted as a
 * lookup), a 409 about such a case included (it is already stored, or its judgement was already given). In that mode an address over the limit is not turned away before the work, since
 * whether a call serves its own set is known only after it: a lab's participants keep their
 * explanations whatever one of them, or a guesser behind the same address, did.
 */
export const limitRefusalsPerClient = (binding: LimiterBinding, successes: 'free' | 'own_case_set_free' = 'free') =>
  createMiddleware<AppEnv>(async (c, next) => {
    const client = clientKey(c);
    const key = `${binding}:${client}`;
    const until = successes === 'free' ? turnedAway.get(key) : undefined;
    if (until !== undefined) {
      if (Date.now() < until) throw tooManyRequests(c, Math.ceil((until - Date.now()) / 1000));
      turnedAway.delete(key);
    }
    await next();
    if (c.res.status >= 500) return;
    // A conflict about a case of the session's own set (already stored, a judgement already given)
    // proves what a success proves: it costs nothing either.
    const answered = c.res.status < 400 || (successes === 'own_case_set_free' && c.res.status === 409 && c.get('ownCaseSet'));
    if (answered && !c.get('idMiss') && (successes === 'free' || c.get('ownCaseSet'))) return;
    const { success } = await c.env[binding].limit({ key: client });
    if (success) return;
    const retryAfter = secondsToWindowEnd();
    rememberTurnedAway(key, Date.now() + retryAfter * 1000);
    throw tooManyRequests(c, retryAfter);
  });

/**
 * Fixed-window limit on failed attempts per client address, kept in D1, for the admin password
 * only: its window is 15 minutes (the binding offers 10 or 60 seconds) and it must hold across
 * every location and isolate at once, which a per-location counter does not. Every attempt is
 * counted before it runs (so guesses sent at once cannot all slip past the check), and an attempt
 * that succeeds is given back: signing in as often as one likes never locks the researcher out.
 * Logins are rare, so a D1 write or two each is cheap.
 */
export const durableFailureLimit = (opts: { name: string; limit: number; windowSeconds: number }) =>
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
    if (c.res.status < 400) {
      await c.var.db
        .update(rateLimitBuckets)
        .set({ count: sql`max(${rateLimitBuckets.count} - 1, 0)` })
        .where(and(eq(rateLimitBuckets.bucketKey, bucketKey), eq(rateLimitBuckets.windowStart, windowStart)));
    }
  });
