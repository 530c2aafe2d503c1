import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Card } from '../../components/ui/card';
import { StatusBadge } from '../../components/ui/status-badge';
import { api, unwrap } from '../../lib/api';
import { useDateTime } from '../../lib/date-time';
import { DataTable, page, Paging, usePaging, type ColumnDef } from './data-table';

const k = (key: string) => `admin.dashboard.activity.${key}`;
/** How far back "active" reaches, in minutes. */
const WINDOWS = [15, 60, 24 * 60] as const;

type Active = InferResponseType<typeof api.api.admin.active.$get, 200>['sessions'][number] & { id: number };
type Entry = InferResponseType<(typeof api.api.admin)['audit-log']['$get'], 200>['entries'][number];

/** Who is taking part now (sessions with activity in the last minutes), refreshed every 30 s. */
function ActiveNow() {
  const { t } = useTranslation();
  const time = useDateTime();
  const [minutes, setMinutes] = useState<(typeof WINDOWS)[number]>(15);
  const active = useQuery({
    queryKey: ['admin', 'data', 'active', minutes],
    queryFn: async () => unwrap(await api.api.admin.active.$get({ query: { minutes: String(minutes) } })),
    refetchInterval: 30_000,
    placeholderData: keepPreviousData,
  });
  const columns: ColumnDef<Active>[] = [
    { id: 'id', label: t('admin.dashboard.columns.username'), render: (r) => (
      <>
        {r.username} {r.origin === 'admin_synthetic' ? <StatusBadge state="warning" label={t('admin.dashboard.values.test')} /> : null}
      </>
    ) },
    { id: 'dataset', label: t('admin.dashboard.columns.dataset'), render: (r) => r.dataset_type },
    { id: 'phase', label: t(k('phase')), render: (r) => t(`admin.dashboard.activity.phases.${r.phase}`, { defaultValue: r.phase }) },
    { id: 'progress', label: t(k('progress')), render: (r) => t(k('progressValue'), { pre: r.pre_answers, main: r.main_answers }) },
    { id: 'last', label: t(k('lastActivity')), render: (r) => time(r.last_activity) },
  ];
  const rows = (active.data?.sessions ?? []).map((s, id) => ({ ...s, id }));
  return (
    <Card title={t(k('activeTitle'))}>
      <label className="activity-window">
        {t(k('window'))}{' '}
        <select value={minutes} onChange={(e) => setMinutes(Number(e.target.value) as (typeof WINDOWS)[number])} data-testid="active-window">
          {WINDOWS.map((m) => (
            <option key={m} value={m}>
              {t(k(`windows.${m}`))}
            </option>
          ))}
        </select>
      </label>
      {active.isError ? <p className="notice notice-error">{t('admin.dashboard.loadFailed', { message: active.error.message })}</p> : null}
      <p className="muted" data-testid="active-count">
        {t(k('activeCount'), { count: rows.length })}
      </p>
      <DataTable label={t(k('activeTitle'))} columns={columns} rows={rows} />
    </Card>
  );
}

/** Every admin change, export, login and withdrawal, newest first, as the audit log keeps it. */
function AuditLog() {
  const { t } = useTranslation();
  const time = useDateTime();
  const [paging, setPaging] = usePaging();
  const log = useQuery({
    queryKey: ['admin', 'data', 'audit-log', paging],
    queryFn: async () => unwrap(await api.api.admin['audit-log'].$get({ query: page(paging) })),
    placeholderData: keepPreviousData,
  });
  const columns: ColumnDef<Entry>[] = [
    { id: 'id', label: t(k('when')), render: (e) => time(e.created_at) },
    { id: 'actor', label: t(k('actor')), render: (e) => e.actor },
    { id: 'action', label: t(k('action')), render: (e) => e.action },
    { id: 'target', label: t(k('target')), render: (e) => (e.target_type ? `${e.target_type}${e.target_id ? `: ${e.target_id}` : ''}` : '—') },
    {
      id: 'details',
      label: t(k('details')),
      render: (e) => (
        <span className="cell-wrap">
          {e.details ? Object.entries(e.details).map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`).join(' · ') : '—'}
        </span>
      ),
    },
    { id: 'ip', label: t(k('ip')), render: (e) => e.ip_address ?? '—' },
  ];
  return (
    <Card title={t(k('auditTitle'))}>
      {log.isError ? <p className="notice notice-error">{t('admin.dashboard.loadFailed', { message: log.error.message })}</p> : null}
      <Paging state={paging} total={log.data?.total ?? 0} onChange={setPaging} />
      <DataTable label={t(k('auditTitle'))} columns={columns} rows={log.data?.entries ?? []} />
    </Card>
  );
}

/** The activity tab: who is on the study now, and the audit log. */
export function ActivityTab() {
  return (
    <section className="activity" data-testid="activity-tab">
      <ActiveNow />
      <AuditLog />
    </section>
  );
}
