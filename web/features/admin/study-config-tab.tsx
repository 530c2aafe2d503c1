import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Card } from '../../components/ui/card';
import { StatusBadge } from '../../components/ui/status-badge';
import { api, unwrap } from '../../lib/api';
import { DataTable, type ColumnDef } from './data-table';
import { useDateTime } from '../../lib/date-time';

type Setting = { id: number; key: string; value: string };

/** The configuration as setting → value rows (`mainExperiment.alphaLevels` → `0, 0.25, …`), in file order. */
function flatten(value: unknown, prefix = ''): Omit<Setting, 'id'>[] {
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) return [{ key: prefix, value: value.join(', ') }];
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
  }
  return [{ key: prefix, value: value === null ? '—' : String(value) }];
}
const settingsOf = (config: unknown): Setting[] => flatten(config).map((s, id) => ({ id, ...s }));

/**
 * The study configuration, read-only: the version this Worker runs, every setting, and each
 * configuration sessions have run under with their count. Changing it is a one-file edit of
 * `worker/schemas/study-config.ts`, validated when the Worker starts (docs/running-a-study.md).
 */
export function StudyConfigTab() {
  const { t } = useTranslation();
  const time = useDateTime();
  const config = useQuery({
    queryKey: ['admin', 'data', 'study-config'],
    queryFn: async () => unwrap(await api.api.admin['study-config'].$get()),
  });
  if (config.isError) {
    return (
      <p role="alert" className="notice notice-error">
        {t('admin.dashboard.loadFailed', { message: config.error.message })}
      </p>
    );
  }
  if (!config.data) return <p>{t('common.loading')}</p>;
  const { version, recorded } = config.data;
  type Recorded = (typeof recorded)[number] & { id: number };
  const settingColumns: ColumnDef<Setting>[] = [
    { id: 'id', label: t('admin.dashboard.config.setting'), render: (s) => <code className="cell-break">{s.key}</code> },
    { id: 'value', label: t('admin.dashboard.config.value'), render: (s) => <span className="cell-break">{s.value}</span> },
  ];
  const recordedColumns: ColumnDef<Recorded>[] = [
    {
      id: 'id',
      label: t('admin.dashboard.config.version'),
      render: (r) => (
        <>
          <code>{r.version}</code> {r.current ? <StatusBadge state="healthy" label={t('admin.dashboard.config.current')} /> : null}
        </>
      ),
    },
    { id: 'sessions', label: t('admin.dashboard.config.sessions'), render: (r) => r.sessions },
    { id: 'recorded', label: t('admin.dashboard.config.recordedAt'), render: (r) => time(r.recorded_at) },
  ];
  return (
    <div className="study-config" data-testid="study-config">
      <Card title={t('admin.dashboard.config.title')}>
        <p>
          {t('admin.dashboard.config.running')} <code data-testid="study-config-version">{version}</code>
        </p>
        <p className="muted">{t('admin.dashboard.config.howToChange')}</p>
      </Card>
      <DataTable label={t('admin.dashboard.config.recorded')} columns={recordedColumns} rows={recorded.map((r, id) => ({ ...r, id }))} />
      <DataTable label={t('admin.dashboard.config.settings')} columns={settingColumns} rows={settingsOf(config.data.config)} />
    </div>
  );
}
