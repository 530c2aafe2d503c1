/** A test's view of stored serves: their bars as the Worker reads them, and the texts D1 holds. */
import { env } from 'cloudflare:workers';
import { asc, eq, sql } from 'drizzle-orm';
import { createDb } from '../../worker/db/client';
import { servedExplanations } from '../../worker/db/schema';
import { servedBarsText } from '../../worker/db/trial-record';

/**
 * The serves of a session (or the one serve `id`), in id order: `bars` read as the Worker reads
 * them, `whole` the packed text with its feature names put back, `stored` the text in the column.
 */
export const storedServes = (where: { sessionId: string } | { id: number }) =>
  createDb(env.DB)
    .select({ id: servedExplanations.id, bars: servedBarsText, whole: sql<string>`${servedBarsText}`, stored: sql<string>`${servedExplanations.bars}` })
    .from(servedExplanations)
    .where('id' in where ? eq(servedExplanations.id, where.id) : eq(servedExplanations.sessionId, where.sessionId))
    .orderBy(asc(servedExplanations.id));
