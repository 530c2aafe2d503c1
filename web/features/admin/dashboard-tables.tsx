import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { useState, type ReactNode } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/ui/confirm-dialog';
import { FullScreenDialog } from '../../components/ui/full-screen-dialog';
import { StatusBadge } from '../../components/ui/status-badge';
import { QUALITY_FLAGS, type QualityFlag } from '../../../worker/schemas/quality-flags';
import { DataFields } from '../../components/ui/data-fields';
import { api, unwrap } from '../../lib/api';
import { useDateTime } from '../../lib/date-time';
import { DataTable, page, Paging, usePaging, type ColumnDef, type PageState } from './data-table';
import { ExportButtons } from './export-buttons';

export type Banner = { kind: 'success' | 'error'; text: string };
type Notify = (banner: Banner) => void;

type UserRow = InferResponseType<typeof api.api.admin.users.$get, 200>['users'][number];
type ResponseRow = InferResponseType<typeof api.api.admin.responses.$get, 200>['responses'][number];
type ConsentRow = InferResponseType<(typeof api.api.admin)['consent-records']['$get'], 200>['consent_records'][number];
type SurveyRow = InferResponseType<(typeof api.api.admin)['post-survey']['responses']['$get'], 200>['post_surveys'][number];


/**
 * Delete with a confirm dialog, then refresh every admin list and the summary. The banner names
 * what went in the interface's language (`what`: the participant ID, or the row's number).
 */
function useDelete<R>(notify: Notify, remove: (id: number) => Promise<R>, what: (result: R, id: number) => string = (_r, id) => `#${id}`) {
  const { t } = useTranslation();
  const client = useQueryClient();
  return useMutation({
    mutationFn: remove,
    onSuccess: (result, id) => {
      notify({ kind: 'success', text: t('admin.dashboard.deleted', { what: what(result, id) }) });
      void client.invalidateQueries({ queryKey: ['admin', 'data'] });
    },
    onError: (err) => notify({ kind: 'error', text: t('admin.dashboard.deleteFailed', { message: err.message }) }),
  });
}

function DeleteButton({ title, body, onConfirm, isPending }: { title: string; body: string; onConfirm: () => void; isPending: boolean }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button className="button button-small button-danger" onPress={() => setOpen(true)}>
        {t('admin.dashboard.actions.delete')}
      </Button>
      <ConfirmDialog
        isOpen={open}
        title={title}
        body={body}
        confirmLabel={t('admin.dashboard.actions.confirmDelete')}
        cancelLabel={t('admin.dashboard.actions.cancel')}
        isPending={isPending}
        onCancel={() => setOpen(false)}
        onConfirm={() => {
          setOpen(false);
          onConfirm();
        }}
      />
    </>
  );
}

function DetailButton({ id, data }: { id: number; data: unknown }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button className="button button-small" onPress={() => setOpen(true)}>
        {t('admin.dashboard.actions.details')}
      </Button>
      <FullScreenDialog title={t('admin.dashboard.detailTitle', { id })} isOpen={open} onClose={() => setOpen(false)} className="detail-dialog">
        <DataFields data={data} />
      </FullScreenDialog>
    </>
  );
}

/** Detail dialog and delete-with-confirm of one record. */
function RowActions({ id, data, remove }: { id: number; data: unknown; remove: { isPending: boolean; mutate: (id: number) => void } }) {
  const { t } = useTranslation();
  return (
    <div className="button-row button-row-tight">
      <DetailButton id={id} data={data} />
      <DeleteButton
        title={t('admin.dashboard.deleteRow.title')}
        body={t('admin.dashboard.deleteRow.body', { id })}
        isPending={remove.isPending}
        onConfirm={() => remove.mutate(id)}
      />
    </div>
  );
}

function RefreshButton({ onPress }: { onPress: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="button-row">
      <Button className="button" onPress={onPress}>
        {t('admin.dashboard.refresh')}
      </Button>
    </div>
  );
}

function QueryState({ error }: { error: Error | null }) {
  const { t } = useTranslation();
  return error ? (
    <p role="alert" className="notice notice-error">
      {t('admin.dashboard.loadFailed', { message: error.message })}
    </p>
  ) : null;
}

/** A tab's list: its tools first, then load errors, paging and the table. */
function ListSection<T extends { id: number }>(props: {
  error: Error | null;
  paging: PageState;
  onPaging: (next: PageState) => void;
  total: number;
  label: string;
  columns: ColumnDef<T>[];
  rows: T[];
  children?: ReactNode;
}) {
  return (
    <section>
      {props.children}
      <QueryState error={props.error} />
      <Paging state={props.paging} total={props.total} onChange={props.onPaging} />
      <DataTable label={props.label} columns={props.columns} rows={props.rows} />
    </section>
  );
}

/** Users tab: test badges, resume check, delete with the cascading-deletion warning. */
export function UsersTab({ notify }: { notify: Notify }) {
  const { t } = useTranslation();
  const time = useDateTime();
  const [paging, setPaging] = usePaging();
  const [flag, setFlag] = useState<QualityFlag | 'any' | ''>('');
  const users = useQuery({
    queryKey: ['admin', 'data', 'users', paging, flag],
    queryFn: async () => unwrap(await api.api.admin.users.$get({ query: { ...page(paging), ...(flag ? { flag } : {}) } })),
    placeholderData: keepPreviousData,
  });
  const remove = useDelete(
    notify,
    async (id) => unwrap(await api.api.admin.users[':id'].$delete({ param: { id: String(id) } })),
    (r) => r.username,
  );
  // The new window opens the resume page for this participant, so it continues them, not whoever
  // this browser last held; checking first counts no return to the study (resume_count) for them.
  const resume = async (name: string) => {
    const res = await api.api.experiments['check-existing'].$post({ json: { participant_name: name } });
    const body = (await res.json().catch(() => ({}))) as { exists?: boolean; detail?: unknown };
    if (res.ok && body.exists) window.open(`/resume?participant_id=${encodeURIComponent(name)}`, '_blank', 'noopener');
    else if (res.ok) window.alert(t('admin.dashboard.resumeNotFound'));
    else window.alert(t('admin.dashboard.resumeError', { detail: typeof body.detail === 'string' ? body.detail : res.status }));
  };
  const columns: ColumnDef<UserRow>[] = [
    { id: 'id', label: t('admin.dashboard.columns.id'), render: (u) => u.id },
    {
      id: 'username',
      label: t('admin.dashboard.columns.username'),
      render: (u) => (
        <>
          {u.username} {u.is_test ? <StatusBadge state="warning" label={t('admin.dashboard.values.test')} /> : null}
          {u.recruited_via_prolific ? <StatusBadge state="healthy" label={t('admin.dashboard.values.prolific')} /> : null}
          {u.screened_out ? <StatusBadge state="error" label={t('admin.dashboard.values.screenedOut')} /> : null}
          {u.quality_flags.map((f) => (
            <StatusBadge key={f} state="warning" label={t(`admin.dashboard.flags.${f}`)} />
          ))}
        </>
      ),
    },
    { id: 'display', label: t('admin.dashboard.columns.displayName'), render: (u) => u.display_name ?? '—' },
    { id: 'email', label: t('admin.dashboard.columns.email'), render: () => '—' },
    {
      id: 'status',
      label: t('admin.dashboard.columns.status'),
      render: (u) => <StatusBadge state={u.is_active ? 'healthy' : 'error'} label={t(u.is_active ? 'admin.dashboard.values.active' : 'admin.dashboard.values.inactive')} />,
    },
    {
      id: 'progress',
      label: t('admin.dashboard.columns.progress'),
      render: (u) => `${u.dataset_type ?? '—'} · ${t('admin.dashboard.values.progress', { pre: u.pre_experiment_count, main: u.main_experiment_count })}`,
    },
    { id: 'created', label: t('admin.dashboard.columns.created'), render: (u) => time(u.created_at) },
    {
      // When the session last did something, and whether it gave its recruitment place back (time-out).
      id: 'activity',
      label: t('admin.dashboard.columns.lastActivity'),
      render: (u) => (
        <>
          {u.last_activity_at ? time(u.last_activity_at) : '—'}{' '}
          {u.place === 'abandoned' ? <StatusBadge state="warning" label={t('admin.dashboard.values.abandoned')} /> : null}
        </>
      ),
    },
    {
      id: 'actions',
      label: t('admin.dashboard.columns.actions'),
      render: (u) => (
        <div className="button-row button-row-tight">
          <Button className="button button-small" onPress={() => void resume(u.username)}>
            {t('admin.dashboard.actions.resume')}
          </Button>
          <DeleteButton
            title={t('admin.dashboard.deleteUser.title', { name: u.username })}
            body={t('admin.dashboard.deleteUser.body')}
            isPending={remove.isPending}
            onConfirm={() => remove.mutate(u.id)}
          />
        </div>
      ),
    },
  ];
  const total = users.data?.total ?? 0;
  return (
    <ListSection error={users.error} paging={paging} onPaging={setPaging} total={total} label={t('admin.dashboard.tabs.users', { count: total })} columns={columns} rows={users.data?.users ?? []}>
      <label className="flag-filter">
        {t('admin.dashboard.flags.filter')}{' '}
        <select
          value={flag}
          data-testid="flag-filter"
          onChange={(e) => {
            setFlag(e.target.value as QualityFlag | 'any' | '');
            setPaging((p) => ({ ...p, page: 0 }));
          }}
        >
          <option value="">{t('admin.dashboard.flags.all')}</option>
          <option value="any">{t('admin.dashboard.flags.any')}</option>
          {QUALITY_FLAGS.map((f) => (
            <option key={f} value={f}>
              {t(`admin.dashboard.flags.${f}`)}
            </option>
          ))}
        </select>
      </label>
    </ListSection>
  );
}

const mark = (value: boolean | null) => (value === null ? '—' : value ? '✓' : '✗');

/** Pre- or main-experiment answers with detail and delete, and the phase's exports. */
export function ResponsesTab({ phase, notify }: { phase: 'pre_experiment' | 'main_experiment'; notify: Notify }) {
  const { t } = useTranslation();
  const time = useDateTime();
  const [paging, setPaging] = usePaging();
  const responses = useQuery({
    queryKey: ['admin', 'data', 'responses', phase, paging],
    queryFn: async () => unwrap(await api.api.admin.responses.$get({ query: { ...page(paging), experiment_type: phase } })),
    placeholderData: keepPreviousData,
  });
  const remove = useDelete(notify, async (id) =>
    unwrap(await api.api.admin.responses[':id'].$delete({ param: { id: String(id) }, query: { experiment_type: phase } })),
  );
  const c = (key: string) => t(`admin.dashboard.columns.${key}`);
  const common: ColumnDef<ResponseRow>[] = [
    { id: 'id', label: c('id'), render: (r) => r.id },
    { id: 'user', label: c('user'), render: (r) => r.user_name },
    { id: 'session', label: c('session'), render: (r) => r.session_id },
    { id: 'dataset', label: c('dataset'), render: (r) => r.dataset_type },
    { id: 'case', label: c('caseId'), render: (r) => r.case_id },
  ];
  const actions: ColumnDef<ResponseRow> = {
    id: 'actions',
    label: c('actions'),
    render: (r) => (
      <RowActions id={r.id} data={{ ...r, case_data_json: r.case_data_json ? JSON.parse(r.case_data_json) : null }} remove={remove} />
    ),
  };
  const columns: ColumnDef<ResponseRow>[] =
    phase === 'pre_experiment'
      ? [
          ...common,
          { id: 'prediction', label: c('prediction'), render: (r) => r.prediction ?? '—' },
          { id: 'confidence', label: c('confidence'), render: (r) => r.confidence ?? '—' },
          { id: 'truth', label: c('groundTruth'), render: (r) => r.ground_truth },
          { id: 'correct', label: c('correct'), render: (r) => mark(r.is_correct) },
          { id: 'time', label: c('responseTime'), render: (r) => r.response_time_ms ?? '—' },
          { id: 'created', label: c('created'), render: (r) => time(r.created_at) },
          actions,
        ]
      : [
          ...common,
          { id: 'truth', label: c('groundTruth'), render: (r) => r.ground_truth },
          { id: 'initial', label: c('initialPrediction'), render: (r) => r.initial_prediction ?? '—' },
          { id: 'initialConf', label: c('initialConfidence'), render: (r) => r.initial_confidence ?? '—' },
          { id: 'initialCorrect', label: c('initialCorrect'), render: (r) => mark(r.initial_correct) },
          { id: 'final', label: c('finalPrediction'), render: (r) => r.final_prediction ?? '—' },
          { id: 'finalConf', label: c('finalConfidence'), render: (r) => r.final_confidence ?? '—' },
          {
            id: 'changed',
            label: c('changed'),
            render: (r) =>
              r.judgment_changed === null ? '—' : t(r.judgment_changed ? 'admin.dashboard.values.changed' : 'admin.dashboard.values.kept'),
          },
          { id: 'ai', label: c('aiPrediction'), render: (r) => r.ai_prediction ?? '—' },
          { id: 'alpha', label: c('alpha'), render: (r) => r.alignment_alpha ?? '—' },
          { id: 'created', label: c('created'), render: (r) => time(r.created_at) },
          actions,
        ];
  const exports = phase === 'pre_experiment' ? (['pre-experiment', 'main-experiment', 'case-data', 'feature-importance', 'all-data'] as const) : (['main-experiment'] as const);
  const total = responses.data?.total ?? 0;
  const label = t(phase === 'pre_experiment' ? 'admin.dashboard.tabs.pre' : 'admin.dashboard.tabs.main', { count: total });
  return (
    <ListSection error={responses.error} paging={paging} onPaging={setPaging} total={total} label={label} columns={columns} rows={responses.data?.responses ?? []}>
      <ExportButtons names={exports} notify={notify} />
    </ListSection>
  );
}

export function ConsentTab({ notify }: { notify: Notify }) {
  const { t } = useTranslation();
  const time = useDateTime();
  const [paging, setPaging] = usePaging();
  const records = useQuery({
    queryKey: ['admin', 'data', 'consent', paging],
    queryFn: async () => unwrap(await api.api.admin['consent-records'].$get({ query: page(paging) })),
    placeholderData: keepPreviousData,
  });
  const c = (key: string) => t(`admin.dashboard.columns.${key}`);
  const columns: ColumnDef<ConsentRow>[] = [
    { id: 'id', label: c('id'), render: (r) => r.id },
    { id: 'user', label: c('user'), render: (r) => r.user },
    { id: 'session', label: c('session'), render: (r) => r.session_id },
    {
      id: 'items',
      label: c('consentItems'),
      render: (r) => (
        <span className="badge-list">
          {Object.entries(r.consent_items).map(([item, on]) => (
            <StatusBadge key={item} state={on ? 'healthy' : 'error'} label={item} />
          ))}
        </span>
      ),
    },
    { id: 'at', label: c('consentedAt'), render: (r) => time(r.consented_at) },
    { id: 'ip', label: c('ip'), render: (r) => r.ip_address ?? '—' },
  ];
  return (
    <ListSection
      error={records.error}
      paging={paging}
      onPaging={setPaging}
      total={records.data?.total ?? 0}
      label={t('admin.dashboard.tabs.consent')}
      columns={columns}
      rows={records.data?.consent_records ?? []}
    >
      <RefreshButton onPress={() => void records.refetch()} />
      <ExportButtons names={['consent-csv', 'consent-json']} notify={notify} />
      {records.data && records.data.total === 0 ? <p className="notice notice-info">{t('admin.dashboard.consent.empty')}</p> : null}
    </ListSection>
  );
}

export function PostSurveyTab({ notify }: { notify: Notify }) {
  const { t } = useTranslation();
  const time = useDateTime();
  const [paging, setPaging] = usePaging();
  const surveys = useQuery({
    queryKey: ['admin', 'data', 'post-survey', paging],
    queryFn: async () => unwrap(await api.api.admin['post-survey'].responses.$get({ query: page(paging) })),
    placeholderData: keepPreviousData,
  });
  const remove = useDelete(notify, async (id) => unwrap(await api.api.admin['post-survey'].responses[':id'].$delete({ param: { id: String(id) } })));
  const c = (key: string) => t(`admin.dashboard.columns.${key}`);
  const section = (on: boolean, key: string) => (on ? <StatusBadge key={key} state="healthy" label={t(`admin.dashboard.postSurvey.sections.${key}`)} /> : null);
  const columns: ColumnDef<SurveyRow>[] = [
    { id: 'id', label: c('id'), render: (r) => r.id },
    { id: 'session', label: c('session'), render: (r) => r.session_id },
    {
      id: 'rating',
      label: c('rating'),
      render: (r) => (r.experiment_rating === null ? t('admin.dashboard.values.notRated') : t('admin.dashboard.values.ratingOf', { rating: r.experiment_rating })),
    },
    { id: 'feedback', label: c('feedback'), render: (r) => <span className="cell-wrap">{r.overall_feedback ?? '—'}</span> },
    {
      id: 'sections',
      label: c('sections'),
      render: (r) => (
        <span className="badge-list">
          {section(r.has_demographics, 'demographics')}
          {section(r.has_personality_traits, 'personality')}
          {section(r.has_ai_literacy, 'aiLiteracy')}
          {section(r.has_ethics_responses, 'ethics')}
        </span>
      ),
    },
    {
      id: 'scores',
      label: t('admin.dashboard.postSurvey.scores'),
      // Factor names as the export's score_* columns name them.
      render: (r) => (
        <span className="cell-wrap">
          {Object.entries(r.scores)
            .flatMap(([factor, score]) => (score === null ? [] : [`${factor} ${Number.isInteger(score) ? score : score.toFixed(2)}`]))
            .join(' · ') || '—'}
        </span>
      ),
    },
    { id: 'created', label: c('created'), render: (r) => time(r.created_at) },
    {
      id: 'actions',
      label: c('actions'),
      render: (r) => (
        <RowActions id={r.id} data={r} remove={remove} />
      ),
    },
  ];
  return (
    <ListSection
      error={surveys.error}
      paging={paging}
      onPaging={setPaging}
      total={surveys.data?.total ?? 0}
      label={t('admin.dashboard.tabs.postSurvey')}
      columns={columns}
      rows={surveys.data?.post_surveys ?? []}
    >
      <p>{t('admin.dashboard.postSurvey.lead')}</p>
      <RefreshButton onPress={() => void surveys.refetch()} />
      <ExportButtons names={['post-survey']} notify={notify} />
    </ListSection>
  );
}
