/**
 * The dashboard's reliance report at any study size. The report's participant-level bootstrap costs
 * resamples × participants per group (about 9 s at 10,000 participants × 50 trials), so it is kept:
 * one JSON object per population in R2 (at 10,000 participants it is past D1's 2 MB row), with the
 * data revision it was computed at (`data_revision`, moved by triggers on every write to the rows
 * it reads) and the Worker version that computed it.
 *
 * A kept report whose revision and version are current is served as it is. One that is out of date
 * is recomputed inside the request when it covered at most INLINE_PARTICIPANTS participants, so a
 * lab-sized study always sees current figures; past that it is served marked stale, with the
 * revision it shows and the current one, while one Worker recomputes it after the response
 * (claimed in `analytics_reports`, so viewers share it). Without a kept report the first view
 * computes one, and so it does when the kept one came from another Worker version or from before
 * a participant was deleted (`erasures`): a withdrawn participant is never shown again.
 *
 * Exports never take a stale report: `currentRelianceReport` reads the kept one only while it is
 * current and otherwise computes (and keeps) it, once per request or Workflow step for all the
 * reliance tables it writes.
 */
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { analyticsReports, dataRevision } from '../../db/schema';
import { r2Keys } from '../../storage/r2';
import { computeRelianceReport, type RelianceOptions, type RelianceReport } from './reliance';

/** Up to this many participants in the last report, an out-of-date one is recomputed before answering (about 1 s at 1,000). */
export const INLINE_PARTICIPANTS = 1000;
/**
 * The background recomputation starts this long after the stale view's response, so that response
 * goes out first: the report's queries and bootstrap take seconds, and started at once they held
 * the view back (locally, where wrangler's D1 shares the Worker's thread: 6.2 s at 10,000
 * participants, against 27 ms with the pause at 3,000; `npm run bench:analytics`).
 */
export const RECOMPUTE_AFTER_MS = 250;
/** A background recomputation claimed longer ago than this is taken as lost (its Worker ended) and may be claimed again. */
export const CLAIM_EXPIRES_MS = 120_000;

export type KeptReportMeta = {
  /** The data revision the report was computed at. */
  revision: number;
  /** Participants deleted before it was computed: a report from before a deletion is never served after it. */
  erasures: number;
  /** The Worker version that computed it. */
  version: string;
  computed_at: string;
  compute_ms: number;
};

export type ServedReport = KeptReportMeta & {
  report: RelianceReport;
  /** The data revision now: past `revision`, the report does not count the latest writes. */
  current_revision: number;
  stale: boolean;
  /** A newer report is being computed (the dashboard asks again until it is served). */
  recomputing: boolean;
};

export type ReportContext = {
  db: Db;
  bucket: R2Bucket;
  /** The running Worker's version (CF_VERSION_METADATA's id). */
  version: string;
  /** Keeps the Worker alive for the background recomputation after the response. */
  waitUntil: (work: Promise<unknown>) => void;
};

const populationName = (options: RelianceOptions) =>
  `${options.excludeFlagged ? 'excluding-flagged' : 'all'}-${options.includeSynthetic ? 'with-synthetic' : 'without-synthetic'}${options.completedOnly ? '-completed-only' : ''}`;

type DataState = { revision: number; erasures: number };
export async function dataState(db: Db): Promise<DataState> {
  const [row] = await db.select({ revision: dataRevision.revision, erasures: dataRevision.erasures }).from(dataRevision).where(eq(dataRevision.id, 1));
  return row ?? { revision: 0, erasures: 0 };
}

const metaOf = (object: R2Object): KeptReportMeta | null => {
  const m = object.customMetadata ?? {};
  const revision = Number(m.revision);
  const erasures = Number(m.erasures);
  const computeMs = Number(m.compute_ms);
  if (!Number.isInteger(revision) || !Number.isInteger(erasures) || !m.version || !m.computed_at || !Number.isFinite(computeMs)) return null;
  return { revision, erasures, version: m.version, computed_at: m.computed_at, compute_ms: computeMs };
};

/** A kept report may be served (current or marked stale): the same Worker version, and no participant deleted since. */
const usable = (meta: KeptReportMeta | null, ctx: ReportContext, now: DataState): meta is KeptReportMeta =>
  meta !== null && meta.version === ctx.version && meta.erasures === now.erasures;

/** Tries at computing a report that no deletion overtook before it is given up as unkept. */
const ERASURE_RETRIES = 3;

/**
 * Computes the report at the revision read before its queries (a write during them leaves it
 * marked stale, never current) and keeps it, unless a report of a later revision was kept
 * meanwhile. A participant deleted while it was computed may still be in it: it is then computed
 * again, and a report still overtaken after that is not kept (nor left in R2).
 */
async function computeAndKeep(ctx: ReportContext, options: RelianceOptions, now: () => Date): Promise<KeptReportMeta & { report: RelianceReport }> {
  const key = r2Keys.relianceReport(populationName(options));
  for (let attempt = 1; ; attempt++) {
    const before = await dataState(ctx.db);
    const started = Date.now();
    const report = await computeRelianceReport(ctx.db, options);
    const meta: KeptReportMeta = { ...before, version: ctx.version, computed_at: now().toISOString(), compute_ms: Date.now() - started };
    const kept = await ctx.bucket.head(key);
    const keptMeta = kept ? metaOf(kept) : null;
    const replaces = !keptMeta || keptMeta.version !== ctx.version || keptMeta.erasures !== before.erasures || keptMeta.revision <= before.revision;
    if (replaces) {
      await ctx.bucket.put(key, JSON.stringify(report), {
        httpMetadata: { contentType: 'application/json' },
        customMetadata: { revision: String(meta.revision), erasures: String(meta.erasures), version: meta.version, computed_at: meta.computed_at, compute_ms: String(meta.compute_ms) },
      });
    }
    if ((await dataState(ctx.db)).erasures === before.erasures) return { ...meta, report };
    if (replaces) await ctx.bucket.delete(key);
    if (attempt >= ERASURE_RETRIES) throw new Error('participants kept being deleted while the reliance report was computed');
  }
}

/** Where a request's (or a Workflow step's) reports are kept, by its Db handle (`keepRelianceReports`). */
const keptFor = new WeakMap<Db, ReportContext>();
/** Lets the reliance tables written with this Db read and keep the kept reports (the request's `withDb` does it). */
export const keepRelianceReports = (ctx: ReportContext) => void keptFor.set(ctx.db, ctx);

/** Once per Db and population: the reliance tables of one export share one report. */
const perDb = new WeakMap<Db, Map<string, Promise<RelianceReport>>>();

/** The population's report as the data stand now, for exports: the kept one while current, else computed (and kept, where this Db may). */
export function currentRelianceReport(db: Db, options: RelianceOptions): Promise<RelianceReport> {
  const reports = perDb.get(db) ?? new Map<string, Promise<RelianceReport>>();
  perDb.set(db, reports);
  const population = populationName(options);
  let pending = reports.get(population);
  if (!pending) {
    const ctx = keptFor.get(db);
    pending = ctx ? keptIfCurrent(ctx, options) : computeRelianceReport(db, options);
    reports.set(population, pending);
  }
  return pending;
}

async function keptIfCurrent(ctx: ReportContext, options: RelianceOptions): Promise<RelianceReport> {
  const [state, kept] = await Promise.all([dataState(ctx.db), ctx.bucket.get(r2Keys.relianceReport(populationName(options)))]);
  const meta = kept ? metaOf(kept) : null;
  if (kept && usable(meta, ctx, state) && meta.revision === state.revision) return (await kept.json()) as RelianceReport;
  await kept?.body.cancel();
  return (await computeAndKeep(ctx, options, () => new Date())).report;
}

/** Claims the population's background recomputation; false when another Worker holds a claim younger than CLAIM_EXPIRES_MS. */
async function claim(db: Db, reportKey: string, now: Date): Promise<boolean> {
  const expired = new Date(now.getTime() - CLAIM_EXPIRES_MS).toISOString();
  const claimed = await db
    .insert(analyticsReports)
    .values({ reportKey, computingSince: now.toISOString() })
    .onConflictDoUpdate({
      target: analyticsReports.reportKey,
      set: { computingSince: now.toISOString() },
      setWhere: or(isNull(analyticsReports.computingSince), lt(analyticsReports.computingSince, expired)),
    })
    .returning({ reportKey: analyticsReports.reportKey });
  return claimed.length > 0;
}

async function release(db: Db, reportKey: string, since: string) {
  await db
    .update(analyticsReports)
    .set({ computingSince: null })
    .where(and(eq(analyticsReports.reportKey, reportKey), eq(analyticsReports.computingSince, since)));
}

/** The population's report for the dashboard: kept and current, recomputed inline, or kept and stale while a newer one is computed. */
export async function servedRelianceReport(ctx: ReportContext, options: RelianceOptions, now: () => Date = () => new Date()): Promise<ServedReport> {
  const population = populationName(options);
  const key = r2Keys.relianceReport(population);
  const [state, kept] = await Promise.all([dataState(ctx.db), ctx.bucket.get(key)]);
  const revision = state.revision;
  const meta = kept ? metaOf(kept) : null;
  const keptMeta = usable(meta, ctx, state) ? meta : null;
  if (kept && !keptMeta) await kept.body.cancel();
  const report = kept && keptMeta ? ((await kept.json()) as RelianceReport) : null;
  if (keptMeta && report && keptMeta.revision === revision) return { ...keptMeta, report, current_revision: revision, stale: false, recomputing: false };
  // None to serve, or a lab-sized study's report that the data have moved past: computed before the answer.
  if (!keptMeta || !report || report.participants.length <= INLINE_PARTICIPANTS) {
    const fresh = await computeAndKeep(ctx, options, now);
    return { ...fresh, current_revision: Math.max(revision, fresh.revision), stale: false, recomputing: false };
  }
  const at = now();
  // Without the claim, another Worker's claim is younger than CLAIM_EXPIRES_MS: it is computing the newer report.
  if (await claim(ctx.db, population, at)) {
    const since = at.toISOString();
    ctx.waitUntil(
      new Promise((resolve) => setTimeout(resolve, RECOMPUTE_AFTER_MS))
        .then(() => computeAndKeep(ctx, options, now))
        .catch((err: unknown) => console.error(JSON.stringify({ event: 'reliance_report_failed', population, error: String(err) })))
        .finally(() => release(ctx.db, population, since)),
    );
  }
  return { ...keptMeta, report, current_revision: revision, stale: true, recomputing: true };
}

/**
 * Deletes every kept report: a withdrawal's participant must not stay in one (as a row of its
 * participant table) until it is next recomputed. (A report computed before a deletion is never
 * served after it either way: its `erasures` no longer match.)
 */
export async function dropKeptReliance(bucket: R2Bucket) {
  const listed = await bucket.list({ prefix: r2Keys.relianceReportsPrefix });
  if (listed.objects.length > 0) await bucket.delete(listed.objects.map((o) => o.key));
}
