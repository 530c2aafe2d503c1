/**
 * V8's own record of garbage collection in the workerd a `wrangler dev` runs, for the load
 * benchmark: started with MINIFLARE_WORKERD_V8_FLAGS=--trace-gc (`GC_TRACE_ENV`), workerd prints
 * one line per collection of every isolate in it (the Worker's, local D1's, the asset router's,
 * ...), which wrangler passes to its stdout. A full collection (Mark-Compact) leaves only what the
 * isolate still holds, so its "after" size read over a soak shows whether anything is kept per
 * request; its pause is time no request in that workerd thread makes progress.
 */
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';

export const GC_TRACE_ENV = { MINIFLARE_WORKERD_V8_FLAGS: '--trace-gc' };

export type FullCollection = { isolate: string; atMs: number; liveMb: number; pauseMs: number };

// [pid:0xisolate]   35849 ms: Mark-Compact 41.6 (55.5) -> 2.8 (51.2) MB, pooled: 4.2 MB, 94.21 / 0.00 ms ...
const FULL_COLLECTION = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: Mark-Compact[^\d]*[\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB,.*?([\d.]+) \/ [\d.]+ ms/;
const ANY_COLLECTION = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: [A-Za-z-]+ .*?, ([\d.]+) \/ [\d.]+ ms/;

/** Collects the full collections (timed by our clock on arrival) and the longest pause of any kind. */
export function recordGarbageCollections(stdout: Readable) {
  const full: FullCollection[] = [];
  const pauses: { atMs: number; pauseMs: number }[] = [];
  createInterface({ input: stdout }).on('line', (line) => {
    const atMs = performance.now();
    const f = FULL_COLLECTION.exec(line);
    if (f) full.push({ isolate: f[1]!, atMs, liveMb: Number(f[2]), pauseMs: Number(f[3]) });
    const any = ANY_COLLECTION.exec(line);
    if (any) pauses.push({ atMs, pauseMs: Number(any[2]) });
  });
  return {
    /**
     * Per isolate whose full collections in [fromMs, toMs] span at least `minSpanMs`: the
     * least-squares slope of its live heap (MB per minute). A shorter span is left out: the live
     * size includes the requests in flight at that moment, which over a few seconds outweighs any
     * trend. Also the longest pause of any kind, and how many passed 50 ms.
     */
    summary(fromMs: number, toMs: number, minSpanMs = 60_000) {
      const inWindow = full.filter((c) => c.atMs >= fromMs && c.atMs <= toMs);
      const byIsolate = new Map<string, FullCollection[]>();
      for (const c of inWindow) (byIsolate.get(c.isolate) ?? byIsolate.set(c.isolate, []).get(c.isolate)!).push(c);
      const isolates = [...byIsolate.values()]
        .filter((cs) => cs.at(-1)!.atMs - cs[0]!.atMs >= minSpanMs)
        .map((cs) => ({
          full_collections: cs.length,
          span_seconds: (cs.at(-1)!.atMs - cs[0]!.atMs) / 1000,
          first_live_mb: cs[0]!.liveMb,
          last_live_mb: cs.at(-1)!.liveMb,
          live_slope_mb_per_minute: slope(cs.map((c) => ({ x: c.atMs / 60_000, y: c.liveMb }))),
        }));
      const windowPauses = pauses.filter((p) => p.atMs >= fromMs && p.atMs <= toMs).map((p) => p.pauseMs);
      return {
        isolates,
        max_live_slope_mb_per_minute: isolates.length ? Math.max(...isolates.map((i) => Math.abs(i.live_slope_mb_per_minute))) : null,
        longest_pause_ms: windowPauses.length ? Math.max(...windowPauses) : null,
        pauses_over_50_ms: windowPauses.filter((ms) => ms > 50).length,
      };
    },
  };
}

/** Least-squares slope of y over x. */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}
