import { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../../env';
import { bonusDownloadQuerySchema, markPaidBodySchema, type bonusListSchema, type markPaidResultSchema } from '../../schemas/bonuses';
import { bonusCsv, listBonuses, markBonusesPaid, prolificBonusText, unpaidTotals } from '../../services/bonuses';
import { validate } from '../../validate';

/**
 * The bonuses of incentive conditions (`/api/admin/bonuses`): the list, the two downloads (each in
 * the audit log, with how many and how much it held) and marking a batch paid (a mutation, audited
 * by the admin guard).
 */
export const adminBonusRoutes = new Hono<AppEnv>()
  .get('/', async (c) => {
    const rows = await listBonuses(c.var.db);
    return c.json({ participants: rows, unpaid: unpaidTotals(rows) } satisfies z.infer<typeof bonusListSchema>);
  })
  .get('/prolific', validate('query', bonusDownloadQuerySchema), async (c) => {
    const { include_paid: includePaid } = c.req.valid('query');
    const rows = await listBonuses(c.var.db, includePaid);
    const text = prolificBonusText(rows);
    const lines = text === '' ? 0 : text.split('\n').length;
    c.set('audit', { action: 'bonus_download', targetType: 'bonuses', details: { format: 'prolific', include_paid: includePaid, participants: lines, totals: unpaidTotals(rows) } });
    c.header('Cache-Control', 'no-store');
    c.header('Content-Disposition', 'attachment; filename="prolific-bonuses.txt"');
    return c.text(text);
  })
  .get('/csv', validate('query', bonusDownloadQuerySchema), async (c) => {
    const { include_paid: includePaid } = c.req.valid('query');
    const rows = await listBonuses(c.var.db, includePaid);
    c.set('audit', { action: 'bonus_download', targetType: 'bonuses', details: { format: 'csv', include_paid: includePaid, participants: rows.length, totals: unpaidTotals(rows) } });
    c.header('Cache-Control', 'no-store');
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', 'attachment; filename="bonuses.csv"');
    return c.body(bonusCsv(rows));
  })
  .post('/mark-paid', validate('json', markPaidBodySchema), async (c) => {
    const now = new Date().toISOString();
    const sessionIds = c.req.valid('json').session_ids;
    const { marked, alreadyPaid } = await markBonusesPaid(c.var.db, sessionIds, now);
    // The log says whom the batch paid, so a payment can be traced back to its batch.
    c.set('audit', { action: 'bonus_mark_paid', targetType: 'bonuses', details: { marked, already_paid: alreadyPaid.length, session_ids: sessionIds } });
    return c.json({ success: true, marked, already_paid: alreadyPaid, paid_at: now } satisfies z.infer<typeof markPaidResultSchema>);
  });
