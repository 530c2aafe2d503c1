import { desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../client';
import { auditLog } from '../schema';

export type AuditEntry = {
  actor: string;
  action: string;
  targetType?: string;
  targetId?: string;
  details?: Record<string, unknown>;
  ipAddress: string | null;
};

export const auditInsert = (db: Db, entry: AuditEntry, now: Date) =>
  db.insert(auditLog).values({ ...entry, createdAt: now.toISOString() });

export async function listAuditLog(db: Db, input: { limit: number; offset: number }) {
  const [rows, total] = await Promise.all([
    db.select().from(auditLog).orderBy(desc(auditLog.id)).limit(input.limit).offset(input.offset),
    db.select({ n: sql<number>`count(*)` }).from(auditLog).get(),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/**
 * Removes a text (a withdrawn participant's ID) from every audit entry that names it, e.g. an
 * export filtered by their ID: the entries stay, as what was done, but no longer say for whom.
 */
export const redactFromAuditLog = (db: Db, text: string) =>
  db.batch([
    db.update(auditLog).set({ targetId: null }).where(eq(auditLog.targetId, text)),
    db
      .update(auditLog)
      .set({ details: sql`replace(${auditLog.details}, ${text}, '[withdrawn]')` })
      .where(sql`instr(${auditLog.details}, ${text}) > 0`),
  ]);
