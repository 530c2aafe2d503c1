/**
 * The all-data export and the daily backup, written in steps that each stay far inside one Worker
 * invocation's limits, whatever the study's size. A job (export_jobs) holds where the zip stands;
 * a step reads pages from there on (at most STEP_LIMITS), deflates them onto the entry in
 * progress, uploads every full 5 MiB part to the R2 multipart upload, keeps the bytes short of a
 * part in a carry object, and commits the new cursor. A step that fails commits nothing, so its
 * retry starts from the same cursor: it uploads the same part numbers again (R2 keeps the last
 * upload of a part) and reads the same rows, and no row is written twice or lost. The Workflow in
 * worker/workflows/export-workflow.ts runs the steps of a job; a request for a small export may
 * run them itself.
 */
import { and, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import type { Db } from '../../db/client';
import { exportCopies, exportJobs } from '../../db/schema';
import { r2Keys } from '../../storage/r2';
import type { ExportFilter, ExportTable, PageCursor } from './columns';
import { addHolds, pageText, R2ExportSink, type TextFormat, type UploadState } from './writer';
import { centralDirectory, dataDescriptor, localHeader, type ZipEntryRecord } from './zip-container';

/** One file of the zip: a table read page by page, or text produced whole. */
export type ZipPart = { name: string; table: ExportTable<unknown>; filter: ExportFilter; holds: boolean } | { name: string; text: () => AsyncIterable<string> };

/**
 * What one step may do: rows read and time spent (the Worker's clock moves on I/O, which every
 * page is). 100,000 answers take about 1 s of a local Worker (bench:export); a table read whole
 * (the reliance figures, the codebook) is never cut, and its one step is as long as computing it.
 */
export const STEP_LIMITS = { rows: 100_000, ms: 10_000 };

/** Where the zip stands between steps. */
export type ExportCursor = UploadState & {
  /** Index of the file being written (or next to be). */
  part: number;
  /** The page key that file's table has been read up to. */
  after: number;
  /** The file being written, once its local header is out. */
  open: ZipEntryRecord | null;
  /** Files written whole, for the central directory. */
  done: ZipEntryRecord[];
  /** Bytes of the zip so far, uploaded parts and carry. */
  offset: number;
  /** R2 object holding the zip's bytes past the last uploaded part. */
  carryKey: string | null;
};

export type ExportJob = typeof exportJobs.$inferSelect;

const ZIP_TYPE = 'application/zip';
const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();

export const newCursor = (): ExportCursor => ({ part: 0, after: 0, open: null, done: [], offset: 0, carryKey: null, uploadId: null, parts: [] });

export async function createExportJob(
  db: Db,
  input: { id: string; kind: ExportJob['kind']; format: TextFormat; filter: ExportFilter; objectKey: string; fileName: string },
  now: Date,
): Promise<ExportJob> {
  const at = now.toISOString();
  const [job] = await db
    .insert(exportJobs)
    // Held for whichever runner starts it first: a Workflow that never starts shows once the lease runs out.
    .values({ ...input, status: 'running', cursor: newCursor(), holds: [], createdAt: at, updatedAt: at, runner: null, leaseUntil: leaseFrom(now) })
    .returning();
  return job!;
}

export const exportJobById = async (db: Db, id: string) => (await db.select().from(exportJobs).where(eq(exportJobs.id, id)))[0] ?? null;

export const recentExportJobs = (db: Db, limit: number) => db.select().from(exportJobs).orderBy(desc(exportJobs.createdAt)).limit(limit);

/**
 * Seconds a runner holds a job from the start of a step, and from its commit: longer than a step
 * takes (STEP_LIMITS) plus the moment the Workflow takes to start the next, so a job whose runner
 * is gone is known as such this long after its last sign of life.
 */
export const EXPORT_LEASE_SECONDS = 15;
const leaseFrom = (now: Date) => new Date(now.getTime() + EXPORT_LEASE_SECONDS * 1000).toISOString();

/** A step found the job held by another runner (a resumed job's new Workflow): this one stands down. */
export class ExportJobSuperseded extends Error {
  override readonly name = 'ExportJobSuperseded';
}

/**
 * Takes or renews the job's lease for `runner`: it holds the job already, nobody does yet (a new or
 * resumed job), or the lease of whoever held it ran out. Another runner's live lease: `ExportJobSuperseded`.
 */
async function holdLease(db: Db, jobId: string, runner: string, now: Date) {
  const [held] = await db
    .update(exportJobs)
    .set({ runner, leaseUntil: leaseFrom(now) })
    .where(
      and(eq(exportJobs.id, jobId), or(eq(exportJobs.runner, runner), isNull(exportJobs.runner), isNull(exportJobs.leaseUntil), lt(exportJobs.leaseUntil, now.toISOString()))),
    )
    .returning({ id: exportJobs.id });
  if (!held) throw new ExportJobSuperseded(`Export job ${jobId} is run by another runner now`);
}

/**
 * Runs one step of the job for `runner` and returns it as committed. `parts` are the zip's files,
 * the same list at every step of a job (they are made from its kind, format and filter).
 */
export async function runExportStep(db: Db, bucket: R2Bucket, jobId: string, parts: ZipPart[], runner: string, limits = STEP_LIMITS): Promise<ExportJob> {
  const job = await exportJobById(db, jobId);
  if (!job) throw new Error(`No export job ${jobId}`);
  if (job.status !== 'running') return job;
  await holdLease(db, jobId, runner, new Date());
  const started = Date.now();
  const cursor = structuredClone(job.cursor) as ExportCursor;
  const holds = new Set(job.holds);
  const when = new Date(job.createdAt);
  const sink = new R2ExportSink(bucket, job.objectKey, ZIP_TYPE, cursor);
  if (cursor.carryKey) {
    const carry = await bucket.get(cursor.carryKey);
    if (!carry) throw new Error(`The carry ${cursor.carryKey} of export job ${jobId} is missing`);
    sink.write(new Uint8Array(await carry.arrayBuffer()));
  }
  const emit = (bytes: Uint8Array) => {
    sink.write(bytes);
    cursor.offset += bytes.length;
  };
  let rows = 0;
  const spent = () => rows >= limits.rows || Date.now() - started >= limits.ms;

  while (cursor.part < parts.length && !spent()) {
    const part = parts[cursor.part]!;
    if (!cursor.open) {
      cursor.open = { name: part.name, crc: 0, size: 0, compressedSize: 0, offset: cursor.offset };
      emit(localHeader(part.name, when));
    }
    const entry = cursor.open;
    // Each piece of text is deflated on its own and ends on a sync flush (byte-aligned, not final),
    // so pieces written in different steps make one deflate stream; an empty final block ends it.
    const push = (text: string) => {
      const bytes = encoder.encode(text);
      if (bytes.length === 0) return;
      entry.crc = crc32(bytes, entry.crc);
      entry.size += bytes.length;
      const deflated = deflateRawSync(bytes, { level: 6, finishFlush: constants.Z_SYNC_FLUSH });
      entry.compressedSize += deflated.length;
      emit(deflated);
    };
    let stopped = false;
    if ('table' in part) {
      const pages: PageCursor = { after: cursor.after };
      if (pages.after === 0) push(pageText(part.table, null, job.format));
      for await (const page of part.table.pages(db, part.filter, pages)) {
        if (part.holds) addHolds(part.table, page, holds);
        push(pageText(part.table, page, job.format));
        rows += page.length;
        await sink.flush();
        if (part.table.resumable && spent()) {
          stopped = true;
          break;
        }
      }
      cursor.after = pages.after;
    } else {
      for await (const text of part.text()) push(text);
    }
    if (stopped) break;
    const end = deflateRawSync(EMPTY);
    entry.compressedSize += end.length;
    emit(end);
    emit(dataDescriptor(entry));
    cursor.done.push(entry);
    cursor.open = null;
    cursor.part += 1;
    cursor.after = 0;
  }

  const finished = cursor.part === parts.length;
  if (finished) emit(centralDirectory(cursor.done, cursor.offset, when));
  const previousCarry = cursor.carryKey;
  const step = job.steps + 1;
  const at = new Date();
  if (finished) {
    // A retry of a last step that completed the upload but failed before its commit finds the
    // whole file already there: the same bytes, so only the commit is left to do.
    const written = await bucket.head(job.objectKey);
    if (written?.size !== cursor.offset) await sink.close();
    cursor.carryKey = null;
  } else {
    const { rest, state } = await sink.pause();
    cursor.uploadId = state.uploadId;
    cursor.parts = state.parts;
    cursor.carryKey = rest.length > 0 ? r2Keys.exportCarry(job.id, step) : null;
    if (cursor.carryKey) await bucket.put(cursor.carryKey, rest);
  }
  const elapsed = Date.now() - started;
  const codes = [...holds].sort();
  const committed = await db
    .update(exportJobs)
    .set({
      cursor,
      // Once complete, export_copies keeps the list (a withdrawal reads it there), not the job.
      holds: finished ? [] : codes,
      rows: job.rows + rows,
      bytes: cursor.offset,
      steps: step,
      longestStepMs: Math.max(job.longestStepMs, elapsed),
      status: finished ? 'completed' : 'running',
      updatedAt: at.toISOString(),
      completedAt: finished ? at.toISOString() : null,
      leaseUntil: finished ? null : leaseFrom(at),
    })
    // Only the step that read this cursor may replace it, and only while its runner holds the job.
    .where(and(eq(exportJobs.id, job.id), eq(exportJobs.steps, job.steps), eq(exportJobs.runner, runner)))
    .returning();
  if (committed.length === 0) throw new Error(`Export job ${jobId} was moved on by another step`);
  if (finished) await db.insert(exportCopies).values({ objectKey: job.objectKey, participantCodes: codes, createdAt: at.toISOString() });
  if (previousCarry) await bucket.delete(previousCarry);
  return committed[0]!;
}

/** Notes a failed step on the job (it stays running: the step is tried again from the same cursor). */
export async function noteFailedStep(db: Db, jobId: string, error: unknown, failed: boolean) {
  const job = await exportJobById(db, jobId);
  if (!job || job.status === 'completed') return;
  await db
    .update(exportJobs)
    .set({
      failedAttempts: job.failedAttempts + 1,
      lastError: error instanceof Error ? error.message : String(error),
      status: failed ? 'failed' : job.status,
      updatedAt: new Date().toISOString(),
    })
    .where(eq(exportJobs.id, jobId));
}

/**
 * A running job counts as stalled (its runner gone: a killed server, a lost Workflow instance, or
 * one between tries of a failing step) once its lease has run out; a job from before leases,
 * once EXPORT_STALLED_MINUTES have passed without a committed step.
 */
export const EXPORT_STALLED_MINUTES = 20;
const stalledBefore = (now: Date) => new Date(now.getTime() - EXPORT_STALLED_MINUTES * 60_000).toISOString();
export const isStalled = (job: ExportJob, now: Date) =>
  job.status === 'running' && (job.leaseUntil === null ? job.updatedAt < stalledBefore(now) : job.leaseUntil < now.toISOString());
const stalledNow = (now: Date) =>
  and(
    eq(exportJobs.status, 'running'),
    or(and(isNull(exportJobs.leaseUntil), lt(exportJobs.updatedAt, stalledBefore(now))), lt(exportJobs.leaseUntil, now.toISOString())),
  );

/** A stopped or stalled job runs again from its last committed step (its next step takes the lease). */
export async function reopenExportJob(db: Db, jobId: string) {
  const now = new Date();
  const [job] = await db
    .update(exportJobs)
    // Held afresh for whichever runner's next step comes first (the resumed one's, normally).
    .set({ status: 'running', updatedAt: now.toISOString(), runner: null, leaseUntil: leaseFrom(now) })
    .where(and(eq(exportJobs.id, jobId), or(eq(exportJobs.status, 'failed'), stalledNow(now))))
    .returning();
  return job ?? null;
}

/**
 * A withdrawal's part in unfinished exports: a job (running, or stopped and waiting to be resumed)
 * that has already written rows of the participant starts again from its first row (their rows
 * are gone from D1 by the time its next step reads), its upload so far abandoned. `steps` moves
 * on, so a step running meanwhile cannot commit.
 */
export async function restartExportsHolding(db: Db, bucket: R2Bucket, participantCode: string) {
  const jobs = await db
    .select()
    .from(exportJobs)
    .where(and(inArray(exportJobs.status, ['running', 'failed']), sql`exists (select 1 from json_each(${exportJobs.holds}) where value = ${participantCode})`));
  for (const job of jobs) {
    const cursor = job.cursor as ExportCursor;
    await db
      .update(exportJobs)
      .set({ cursor: newCursor(), holds: [], rows: 0, bytes: 0, steps: job.steps + 1, updatedAt: new Date().toISOString() })
      .where(eq(exportJobs.id, job.id));
    if (cursor.uploadId) await bucket.resumeMultipartUpload(job.objectKey, cursor.uploadId).abort().catch(() => undefined);
    if (cursor.carryKey) await bucket.delete(cursor.carryKey);
  }
  return jobs.length;
}
