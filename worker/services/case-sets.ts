/**
 * Case sets: every session answers the dataset's fixed pre-experiment pool, in an order shuffled
 * once per session (seeded by the session ID, so drawing it twice gives the same order) and
 * stored, so the order survives resume and a retried request adds nothing.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { caseSetItems, cases } from '../db/schema';
import { seededRandom } from '../ml/random';
import type { ParticipantCase } from '../schemas/experiment';
import type { DatasetType } from '../schemas/study';

type CaseRow = typeof cases.$inferSelect;

/** D1 binds at most 100 parameters per statement; a case-set row binds 5. */
const ROWS_PER_INSERT = 20;

/** The participant-facing case: features only, never the ground truth. */
export const toParticipantCase = (row: Pick<CaseRow, 'caseId' | 'caseNumber' | 'datasetType' | 'features'>, caseNumber = row.caseNumber): ParticipantCase => ({
  case_id: row.caseId,
  case_number: caseNumber,
  dataset_type: row.datasetType,
  features: row.features,
});

/** FNV-1a of a text (the session ID): a stable 32-bit seed. */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Fisher–Yates, deterministic for a seed. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const random = seededRandom(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export const poolCases = (db: Db, datasetType: DatasetType, pool: CaseRow['pool']) =>
  db
    .select()
    .from(cases)
    .where(and(eq(cases.datasetType, datasetType), eq(cases.pool, pool)))
    .orderBy(asc(cases.poolVariant), asc(cases.caseNumber));

export async function findCase(db: Db, caseId: string) {
  return (await db.select().from(cases).where(eq(cases.caseId, caseId)).get()) ?? null;
}

/** The session's stored pre-experiment set, in order, with case numbers 1..n by position. */
export async function storedPreCaseSet(db: Db, sessionId: string) {
  const rows = await db
    .select({ position: caseSetItems.position, c: cases })
    .from(caseSetItems)
    .innerJoin(cases, eq(cases.caseId, caseSetItems.caseId))
    .where(and(eq(caseSetItems.sessionId, sessionId), eq(caseSetItems.phase, 'pre_experiment')))
    .orderBy(asc(caseSetItems.position));
  return rows.map((r) => ({ position: r.position, row: r.c }));
}

/** The given cases of the session's pre-experiment set (with their positions); others are absent. */
export async function preCaseSetItems(db: Db, sessionId: string, caseIds: readonly string[]) {
  const rows = await db
    .select({ position: caseSetItems.position, c: cases })
    .from(caseSetItems)
    .innerJoin(cases, eq(cases.caseId, caseSetItems.caseId))
    .where(
      and(
        eq(caseSetItems.sessionId, sessionId),
        eq(caseSetItems.phase, 'pre_experiment'),
        // One bound parameter for any number of IDs (D1 allows 100 per statement).
        sql`${caseSetItems.caseId} in (select value from json_each(${JSON.stringify(caseIds)}))`,
      ),
    );
  return rows.map((r) => ({ position: r.position, row: r.c }));
}

/** Returns the session's pre-experiment set, drawing and storing it on first use. */
export async function ensurePreCaseSet(db: Db, sessionId: string, datasetType: DatasetType) {
  const existing = await storedPreCaseSet(db, sessionId);
  if (existing.length > 0) return existing;
  const pool = await poolCases(db, datasetType, 'pre_experiment');
  if (pool.length === 0) return [];
  const ordered = seededShuffle(pool, seedOf(sessionId));
  const statements = [];
  for (let i = 0; i < ordered.length; i += ROWS_PER_INSERT) {
    const chunk = ordered.slice(i, i + ROWS_PER_INSERT).map((c, k) => ({
      sessionId,
      phase: 'pre_experiment' as const,
      position: i + k,
      caseId: c.caseId,
    }));
    statements.push(db.insert(caseSetItems).values(chunk).onConflictDoNothing());
  }
  const [first, ...rest] = statements;
  await db.batch([first!, ...rest]);
  return storedPreCaseSet(db, sessionId);
}

/** A random sample of a pool (the spec's `case-sets/random`). */
export async function randomCases(db: Db, datasetType: DatasetType, pool: CaseRow['pool'], n: number) {
  return db
    .select()
    .from(cases)
    .where(and(eq(cases.datasetType, datasetType), eq(cases.pool, pool)))
    .orderBy(sql`random()`)
    .limit(n);
}
