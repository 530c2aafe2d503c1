/**
 * The bonuses incentive conditions pay: listed for the dashboard from what the Worker worked out
 * when each participant finished (`post-survey.ts`), given as the text Prolific's bulk-bonus
 * dialog takes and as CSV, and marked paid by batch so a second batch leaves the paid out
 * (Prolific's payment call is not idempotent).
 */
import Papa from 'papaparse';
import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { participants, sessions } from '../db/schema';
import { AppError } from '../errors';
import type { BonusRow } from '../schemas/bonuses';

const amount = (cents: number) => cents / 100;

/** Every finished participant with a bonus worked out, in the order they finished (unpaid only, unless `includePaid`). */
export async function listBonuses(db: Db, includePaid = true): Promise<BonusRow[]> {
  const rows = await db
    .select({
      sessionId: sessions.sessionId,
      prolificPid: participants.prolificPid,
      condition: sessions.condition,
      datasetType: sessions.datasetType,
      completedAt: sessions.postSurveyCompletedAt,
      correctFinal: sessions.bonusCorrectFinal,
      correctPre: sessions.bonusCorrectPre,
      currency: sessions.bonusCurrency,
      baseCents: sessions.bonusBaseCents,
      bonusCents: sessions.bonusCents,
      paidAt: sessions.bonusPaidAt,
    })
    .from(sessions)
    .innerJoin(participants, eq(participants.id, sessions.participantId))
    .where(and(isNotNull(sessions.bonusCents), includePaid ? undefined : isNull(sessions.bonusPaidAt)))
    .orderBy(asc(sessions.postSurveyCompletedAt), asc(sessions.id));
  return rows.map((r) => ({
    session_id: r.sessionId,
    prolific_pid: r.prolificPid,
    condition: r.condition,
    dataset_type: r.datasetType,
    completed_at: r.completedAt,
    correct_final: r.correctFinal ?? 0,
    correct_pre: r.correctPre ?? 0,
    currency: r.currency!,
    base: amount(r.baseCents ?? 0),
    bonus: amount(r.bonusCents!),
    paid_at: r.paidAt,
  }));
}

/** Unpaid bonuses per currency. */
export function unpaidTotals(rows: BonusRow[]) {
  const by = new Map<string, { participants: number; cents: number }>();
  for (const r of rows.filter((row) => row.paid_at === null)) {
    const t = by.get(r.currency) ?? { participants: 0, cents: 0 };
    t.participants += 1;
    t.cents += Math.round(r.bonus * 100);
    by.set(r.currency, t);
  }
  return [...by.entries()].map(([currency, t]) => ({ currency, participants: t.participants, total: amount(t.cents) }));
}

/**
 * The lines Prolific's bulk-bonus dialog takes: `participant ID,amount`, the amount with two
 * decimals, one per participant who came through Prolific and has a bonus above 0 (those without a
 * Prolific ID are paid another way: they are in the CSV).
 */
export const prolificBonusText = (rows: BonusRow[]) =>
  rows
    .filter((r) => r.prolific_pid !== null && r.bonus > 0)
    .map((r) => `${r.prolific_pid},${r.bonus.toFixed(2)}`)
    .join('\n');

/** Every row as CSV, amounts with two decimals. */
export const bonusCsv = (rows: BonusRow[]) =>
  Papa.unparse(
    rows.map((r) => ({ ...r, base: r.base.toFixed(2), bonus: r.bonus.toFixed(2), total: (r.base + r.bonus).toFixed(2) })),
    { columns: ['session_id', 'prolific_pid', 'condition', 'dataset_type', 'completed_at', 'correct_final', 'correct_pre', 'currency', 'base', 'bonus', 'total', 'paid_at'] },
  );

/**
 * Marks a payment batch paid, each participant once: every ID must name a finished participant
 * with a bonus (else 400 naming them, nothing marked); those already marked keep their first time.
 */
export async function markBonusesPaid(db: Db, sessionIds: string[], now: string) {
  const unique = [...new Set(sessionIds)];
  // The IDs travel as one JSON parameter (a batch may name more than D1's 100 bound parameters).
  const named = sql`${sessions.sessionId} in (select value from json_each(${JSON.stringify(unique)}))`;
  const known = await db.select({ sessionId: sessions.sessionId, paidAt: sessions.bonusPaidAt }).from(sessions).where(and(named, isNotNull(sessions.bonusCents)));
  const found = new Set(known.map((k) => k.sessionId));
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw new AppError(
      400,
      'no_bonus',
      missing.map((id) => ({ msg: `${id} has no bonus worked out (not a finished participant of a condition with an incentive)`, loc: ['body', 'session_ids'] })),
    );
  }
  const marked = await db
    .update(sessions)
    .set({ bonusPaidAt: now })
    .where(and(named, isNull(sessions.bonusPaidAt), isNotNull(sessions.bonusCents)))
    .returning({ sessionId: sessions.sessionId });
  return { marked: marked.length, alreadyPaid: known.filter((k) => k.paidAt !== null).map((k) => k.sessionId) };
}
