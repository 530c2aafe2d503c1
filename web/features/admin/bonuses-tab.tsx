/**
 * The bonuses incentive conditions pay (issue #58, element 6): every finished participant's bonus
 * as the Worker worked it out, the unpaid ones as the text Prolific's bulk-bonus dialog takes and
 * as CSV (each fetch is in the audit log), and the batch just paid marked so the next batch leaves
 * it out (Prolific's payment call is not idempotent).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { useState } from 'react';
import { Button, Checkbox } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Card } from '../../components/ui/card';
import { api, unwrap } from '../../lib/api';
import { useDateTime } from '../../lib/date-time';
import { money } from '../../lib/incentive';
import { DataTable, type ColumnDef } from './data-table';
import type { Banner } from './dashboard-tables';
import { saveResponse } from './downloads';

const k = (key: string) => `admin.dashboard.bonuses.${key}`;
type Row = InferResponseType<typeof api.api.admin.bonuses.$get, 200>['participants'][number] & { id: number };

export function BonusesTab({ notify }: { notify: (banner: Banner) => void }) {
  const { t, i18n } = useTranslation();
  const time = useDateTime();
  const client = useQueryClient();
  const list = useQuery({ queryKey: ['admin', 'data', 'bonuses'], queryFn: async () => unwrap(await api.api.admin.bonuses.$get()) });
  // The batch: the unpaid bonuses whose Prolific text was fetched (what gets paid is what gets marked).
  const [batch, setBatch] = useState<{ text: string; sessionIds: string[] } | null>(null);
  const [paidOnProlific, setPaidOnProlific] = useState(false);
  const rows: Row[] = (list.data?.participants ?? []).map((r, id) => ({ ...r, id }));
  const unpaid = rows.filter((r) => r.paid_at === null);

  const fetchText = useMutation({
    mutationFn: async () => {
      const res = await api.api.admin.bonuses.prolific.$get({ query: { include_paid: 'false' } });
      if (!res.ok) throw new Error(String(res.status));
      return res.text();
    },
    onSuccess: (text) => {
      setPaidOnProlific(false);
      setBatch({ text, sessionIds: unpaid.filter((r) => r.prolific_pid !== null && r.bonus > 0).map((r) => r.session_id) });
    },
    onError: (err) => notify({ kind: 'error', text: t(k('failed'), { message: err.message }) }),
  });
  const csv = useMutation({
    mutationFn: async () => saveResponse(await api.api.admin.bonuses.csv.$get({ query: { include_paid: 'true' } }), 'bonuses', 'csv'),
    onError: (err) => notify({ kind: 'error', text: t(k('failed'), { message: err.message }) }),
  });
  const markPaid = useMutation({
    mutationFn: async (sessionIds: string[]) => unwrap(await api.api.admin.bonuses['mark-paid'].$post({ json: { session_ids: sessionIds } })),
    onSuccess: (result) => {
      notify({ kind: 'success', text: t(k('marked'), { count: result.marked }) });
      setBatch(null);
      void client.invalidateQueries({ queryKey: ['admin', 'data', 'bonuses'] });
    },
    onError: (err) => notify({ kind: 'error', text: t(k('failed'), { message: err.message }) }),
  });

  const columns: ColumnDef<Row>[] = [
    { id: 'id', label: t('admin.dashboard.columns.username'), render: (r) => r.session_id },
    { id: 'pid', label: t(k('prolificPid')), render: (r) => r.prolific_pid ?? '—' },
    { id: 'condition', label: t(k('condition')), render: (r) => r.condition ?? '—' },
    { id: 'correct', label: t(k('correct')), render: (r) => (r.correct_pre > 0 ? `${r.correct_final} / ${r.correct_pre}` : String(r.correct_final)) },
    { id: 'bonus', label: t(k('bonus')), render: (r) => money(r.bonus, r.currency, i18n.language) },
    { id: 'paid', label: t(k('paid')), render: (r) => (r.paid_at ? time(r.paid_at) : t(k('notPaid'))) },
  ];

  return (
    <Card title={t(k('title'))}>
      <p className="muted">{t(k('lead'))}</p>
      {list.isError ? <p className="notice notice-error">{t('admin.dashboard.loadFailed', { message: list.error.message })}</p> : null}
      <ul className="plain-list" data-testid="bonuses-unpaid">
        {(list.data?.unpaid ?? []).map((u) => (
          <li key={u.currency}>{t(k('unpaid'), { count: u.participants, total: money(u.total, u.currency, i18n.language) })}</li>
        ))}
        {list.data && list.data.unpaid.length === 0 ? <li>{t(k('noneUnpaid'))}</li> : null}
      </ul>
      <div className="button-row">
        <Button className="button button-primary" onPress={() => fetchText.mutate()} isDisabled={fetchText.isPending || unpaid.length === 0}>
          {t(k('prolificText'))}
        </Button>
        <Button className="button" onPress={() => csv.mutate()} isDisabled={csv.isPending || rows.length === 0}>
          {t(k('csv'))}
        </Button>
      </div>
      {batch ? (
        <section className="bonus-batch" data-testid="bonus-batch">
          <label className="answer-label" htmlFor="prolific-bonus-text">
            {t(k('textLabel'), { count: batch.sessionIds.length })}
          </label>
          <textarea id="prolific-bonus-text" className="bonus-text" readOnly rows={Math.min(10, Math.max(2, batch.sessionIds.length))} value={batch.text} data-testid="prolific-bonus-text" />
          <Checkbox className="checkbox" isSelected={paidOnProlific} onChange={setPaidOnProlific}>
            {t(k('confirmPaid'))}
          </Checkbox>
          <Button className="button button-primary" onPress={() => markPaid.mutate(batch.sessionIds)} isDisabled={!paidOnProlific || batch.sessionIds.length === 0 || markPaid.isPending}>
            {t(k('markPaid'), { count: batch.sessionIds.length })}
          </Button>
        </section>
      ) : null}
      <DataTable label={t(k('title'))} columns={columns} rows={rows} />
    </Card>
  );
}
