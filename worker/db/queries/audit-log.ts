import { desc, sql } from 'drizzle-orm';
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
