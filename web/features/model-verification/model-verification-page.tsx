import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { useEffect, useState } from 'react';
import { Button, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { DATASET_TYPES, studyConfig, type DatasetType } from '../../../worker/schemas/study-config';
import { Card } from '../../components/ui/card';
import { DataFields } from '../../components/ui/data-fields';
import { ConfirmDialog } from '../../components/ui/confirm-dialog';
import { FullScreenDialog } from '../../components/ui/full-screen-dialog';
import { StatusBadge } from '../../components/ui/status-badge';
import { api, unwrap } from '../../lib/api';
import { useDateTime } from '../../lib/date-time';
import { CandidateComparison, ModelVersionsCard } from './model-versions';
import { UploadModelCard } from './upload-model-card';
import './model-verification.css';

type Message = { kind: 'success' | 'error'; text: string } | null;
type Retrained = InferResponseType<(typeof api.api)['model-verification']['ai-model']['retrain']['$post'], 200>;
const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(1)}%`);
const k = (key: string) => `modelVerification.${key}`;
/** The AI model's status is cached for an hour per dataset (part 1 §7). */
const STATUS_STALE_MS = 60 * 60 * 1000;

/** Messages hide themselves after 5 s (part 2 §2.7). */
function useMessage(): [Message, (m: Message) => void] {
  const [message, setMessage] = useState<Message>(null);
  useEffect(() => {
    if (!message) return;
    const timer = setTimeout(() => setMessage(null), studyConfig.timingsMs.messageAutoHide);
    return () => clearTimeout(timer);
  }, [message]);
  return [message, setMessage];
}

function Facts({ rows }: { rows: [string, React.ReactNode][] }) {
  return (
    <dl className="facts">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function AiModelTab({ dataset, notify }: { dataset: DatasetType; notify: (m: Message) => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [folds, setFolds] = useState('5');
  const [testSize, setTestSize] = useState('0.2');
  const [confirming, setConfirming] = useState(false);
  const [candidate, setCandidate] = useState<Retrained | null>(null);
  const time = useDateTime();
  const status = useQuery({
    queryKey: ['admin', 'mv', 'status', dataset],
    queryFn: async () => unwrap(await api.api['model-verification']['ai-model'].status.$get({ query: { dataset_type: dataset } })),
    staleTime: STATUS_STALE_MS,
  });
  const retrain = useMutation({
    mutationFn: async () => {
      const res = await api.api['model-verification']['ai-model'].retrain.$post({ json: { dataset_type: dataset, num_cv_folds: Number(folds), test_size: Number(testSize) } });
      return unwrap(res);
    },
    onMutate: () => setCandidate(null),
    onSuccess: (r) => {
      setCandidate(r);
      notify({ kind: 'success', text: t(k('ai.retrainDone'), { identifier: r.model_identifier }) });
      void client.invalidateQueries({ queryKey: ['admin', 'mv'] });
    },
    onError: (err) => notify({ kind: 'error', text: t(k('ai.retrainFailed'), { message: err.message }) }),
  });
  const s = status.data;
  return (
    <section className="mv-grid">
      <Card title={t(k('tabs.ai'))}>
        {status.error ? <p className="notice notice-error">{status.error.message}</p> : null}
        {s ? (
          <Facts
            rows={[
              [t(k('ai.identifier')), <code key="id">{s.model_identifier ?? '—'}</code>],
              [t(k('ai.fileExists')), <StatusBadge key="f" state={s.model_file_exists ? 'healthy' : 'error'} label={t(k(s.model_file_exists ? 'ai.present' : 'ai.missing'))} />],
              [t(k('ai.testAccuracy')), pct(s.current_performance.test_accuracy)],
              [t(k('ai.baselineLogistic')), pct(s.current_performance.baseline_logistic_accuracy)],
              [t(k('ai.baselineMajority')), pct(s.current_performance.baseline_majority_accuracy)],
              [t(k('ai.f1')), s.current_performance.test_f1_score?.toFixed(3) ?? '—'],
              [t(k('ai.testSamples')), s.current_performance.test_samples ?? '—'],
              [t(k('ai.cvScore')), pct(s.database_info.cross_validation_score)],
              [t(k('ai.trainingSamples')), s.database_info.training_samples ?? '—'],
              [t(k('ai.trainingTime')), s.database_info.training_time_seconds?.toFixed(2) ?? '—'],
              [t(k('ai.trainedAt')), time(s.database_info.training_completed_at)],
            ]}
          />
        ) : null}
        {s?.current_performance.error ? <p className="notice notice-warning">{s.current_performance.error}</p> : null}
      </Card>
      <Card title={t(k('ai.datasetInfo'))}>
        {s ? (
          <Facts
            rows={[
              [t(k('ai.total')), s.dataset_info.total_samples ?? '—'],
              [t(k('ai.positive')), s.dataset_info.positive_samples ?? '—'],
              [t(k('ai.negative')), s.dataset_info.negative_samples ?? '—'],
              [t(k('ai.balance')), s.dataset_info.balance_ratio?.toFixed(3) ?? '—'],
              [t(k('ai.features')), s.dataset_info.feature_count ?? '—'],
            ]}
          />
        ) : null}
      </Card>
      <Card title={t(k('ai.retrainTitle'))}>
        <div className="mv-form">
          <label>
            {t(k('ai.folds'))} <input type="number" min={2} max={10} value={folds} onChange={(e) => setFolds(e.target.value)} />
          </label>
          <label>
            {t(k('ai.testSize'))} <input type="number" min={0.05} max={0.5} step={0.05} value={testSize} onChange={(e) => setTestSize(e.target.value)} />
          </label>
          <Button className="button button-primary" onPress={() => setConfirming(true)} isDisabled={retrain.isPending}>
            {retrain.isPending ? t('common.loading') : t(k('ai.retrain'))}
          </Button>
        </div>
        {candidate ? (
          <div data-testid="retrain-result">
            <p>{t(k('ai.retrainResult'), { identifier: candidate.model_identifier, cases: candidate.cases_evaluated })}</p>
            <CandidateComparison
              dataset={dataset}
              candidate={{ model_identifier: candidate.model_identifier, status: candidate.status, metrics: candidate.candidate_metrics, current: candidate.current_model }}
              notify={notify}
              onActivated={() => setCandidate(null)}
            />
          </div>
        ) : null}
      </Card>
      <UploadModelCard dataset={dataset} notify={notify} />
      <ModelVersionsCard dataset={dataset} notify={notify} />
      <ConfirmDialog
        isOpen={confirming}
        title={t(k('ai.retrain'))}
        body={t(k('ai.retrainConfirm'), { dataset })}
        confirmLabel={t(k('ai.retrain'))}
        cancelLabel={t('common.back')}
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          retrain.mutate();
        }}
      />
    </section>
  );
}

function UserModelsTab({ dataset, notify }: { dataset: DatasetType; notify: (m: Message) => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [includeUnlearned, setIncludeUnlearned] = useState(true);
  const [forcing, setForcing] = useState<{ id: number; name: string } | null>(null);
  const [detail, setDetail] = useState<{ title: string; data: unknown } | null>(null);
  const list = useQuery({
    queryKey: ['admin', 'mv', 'users', dataset, includeUnlearned],
    queryFn: async () =>
      unwrap(
        await api.api['model-verification']['user-models'].list.$get({
          query: { dataset_type: dataset, include_unlearned: String(includeUnlearned) as 'true' | 'false', limit: '1000' },
        }),
      ),
  });
  useEffect(() => {
    if (list.error) notify({ kind: 'error', text: t(k('users.listFailed'), { message: list.error.message }) });
  }, [list.error, notify, t]);
  const train = useMutation({
    mutationFn: async ({ id, force }: { id: number; force: boolean }) =>
      unwrap(await api.api['user-models'].train[':userId'].$post({ param: { userId: String(id) }, query: { force_retrain: String(force) as 'true' | 'false' } })),
    onSuccess: (r) => {
      notify({ kind: r.success ? 'success' : 'error', text: t(k(r.success ? 'users.trainDone' : 'users.trainFailed'), { message: r.message }) });
      void client.invalidateQueries({ queryKey: ['admin', 'mv'] });
    },
    onError: (err) => notify({ kind: 'error', text: t(k('users.trainFailed'), { message: err.message }) }),
  });
  /** Opens a detail dialog; the spec's "debug info fetched" message goes with the debug view only. */
  const show = async (title: string, load: () => Promise<unknown>, fetchedMessage = false) => {
    try {
      setDetail({ title, data: await load() });
      if (fetchedMessage) notify({ kind: 'success', text: t(k('users.debugFetched')) });
    } catch (err) {
      notify({ kind: 'error', text: t(k('users.debugFailed'), { message: err instanceof Error ? err.message : String(err) }) });
    }
  };
  const c = (key: string) => t(k(`users.columns.${key}`));
  const users = list.data?.user_models ?? [];
  return (
    <section>
      <label className="mv-toggle">
        <input type="checkbox" checked={includeUnlearned} onChange={(e) => setIncludeUnlearned(e.target.checked)} /> {t(k('users.includeUnlearned'))}
      </label>
      {users.length === 0 && list.isSuccess ? <p className="notice notice-info">{t(k('users.empty'))}</p> : null}
      <div className="table-scroll">
        <table className="table mv-table">
          <thead>
            <tr>
              <th>{c('user')}</th>
              <th>{c('status')}</th>
              <th>{c('responses')}</th>
              <th>{c('fileSize')}</th>
              <th>{c('accuracy')}</th>
              <th>{c('trees')}</th>
              <th>{c('actions')}</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.user_id} data-user={u.username}>
                <td>
                  {u.username} <span className="mv-muted">#{u.user_id}</span>
                </td>
                <td>
                  <StatusBadge
                    state={u.training_status === 'trained' ? 'healthy' : u.training_status === 'trainable' ? 'warning' : u.training_status === 'training_failed' ? 'error' : 'unknown'}
                    label={t(k(`users.status.${u.training_status}`))}
                  />
                  {u.failure_reason ? <span className="mv-muted mv-failure">{u.failure_reason}</span> : null}
                </td>
                <td>{u.pre_experiment_responses}</td>
                <td>{u.file_size === null ? '—' : `${(u.file_size / 1024).toFixed(1)} KB`}</td>
                <td>{pct(u.metadata.training_results?.train_accuracy)}</td>
                <td>{u.metadata.training_results?.num_trees ?? '—'}</td>
                <td>
                  <div className="button-row mv-actions">
                    {/* Train a model that has none; retrain one fitted on fewer answers than are stored now. */}
                    {u.training_status === 'trainable' || (u.training_status === 'trained' && (u.metadata.training_results?.training_samples ?? 0) < u.pre_experiment_responses) ? (
                      <Button className="button button-small" isDisabled={train.isPending} onPress={() => train.mutate({ id: u.user_id, force: false })}>
                        {t(k(u.training_status === 'trained' ? 'users.retrain' : 'users.train'))}
                      </Button>
                    ) : null}
                    {u.training_status === 'trained' ? (
                      <Button className="button button-small" isDisabled={train.isPending} onPress={() => setForcing({ id: u.user_id, name: u.username })}>
                        {t(k('users.forceRetrain'))}
                      </Button>
                    ) : null}
                    <Button
                      className="button button-small"
                      onPress={() =>
                        void show(t(k('users.debug')), async () => unwrap(await api.api['user-models'].debug[':userId'].$get({ param: { userId: String(u.user_id) } })), true)
                      }
                    >
                      {t(k('users.debug'))}
                    </Button>
                    <Button
                      className="button button-small"
                      onPress={() =>
                        void show(t(k('users.performance')), async () =>
                          unwrap(await api.api['model-verification']['user-models'][':userId'].performance.$get({ param: { userId: String(u.user_id) }, query: { dataset_type: dataset } })),
                        )
                      }
                    >
                      {t(k('users.performance'))}
                    </Button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        isOpen={forcing !== null}
        title={t(k('users.forceRetrain'))}
        body={t(k('users.forceConfirm'), { name: forcing?.name ?? '' })}
        confirmLabel={t(k('users.forceRetrain'))}
        cancelLabel={t('common.back')}
        onCancel={() => setForcing(null)}
        onConfirm={() => {
          if (forcing) train.mutate({ id: forcing.id, force: true });
          setForcing(null);
        }}
      />
      <FullScreenDialog title={detail?.title ?? ''} isOpen={detail !== null} onClose={() => setDetail(null)} className="mv-detail">
        <DataFields data={detail?.data} />
      </FullScreenDialog>
    </section>
  );
}

function ComparisonTab({ dataset }: { dataset: DatasetType }) {
  const { t } = useTranslation();
  const cmp = useQuery({
    queryKey: ['admin', 'mv', 'comparison', dataset],
    queryFn: async () => unwrap(await api.api['model-verification'].comparison['ai-vs-users'].$get({ query: { dataset_type: dataset } })),
  });
  if (cmp.error) return <p className="notice notice-error">{t(k('comparison.failed'), { message: cmp.error.message })}</p>;
  const d = cmp.data;
  if (!d) return null;
  const u = d.user_models;
  const data = u.individual_performances.map((p) => ({ name: p.username, accuracy: Math.round(p.accuracy * 1000) / 10 }));
  return (
    <section className="mv-grid">
      <Card title={t(k('tabs.comparison'))}>
        <Facts
          rows={[
            [t(k('comparison.aiAccuracy')), pct(d.ai_model.test_accuracy)],
            [t(k('comparison.users')), u.count],
            [t(k('comparison.mean')), pct(u.average_accuracy)],
            [t(k('comparison.std')), pct(u.std_accuracy)],
            [t(k('comparison.range')), u.count > 0 ? `${pct(u.min_accuracy)} – ${pct(u.max_accuracy)}` : '—'],
            [t(k('comparison.aiBetter')), d.comparison.ai_better_than_users === null ? '—' : t(k(d.comparison.ai_better_than_users ? 'comparison.yes' : 'comparison.no'))],
            [t(k('comparison.difference')), d.comparison.ai_vs_avg_user === null ? '—' : `${(d.comparison.ai_vs_avg_user * 100).toFixed(1)} pt`],
            [t(k('comparison.outperforming')), d.comparison.users_outperforming_ai],
          ]}
        />
      </Card>
      <figure className="card mv-wide" data-chart="ai-vs-users">
        <figcaption>{t(k('comparison.chart'))}</figcaption>
        <ResponsiveContainer width="100%" height={260}>
          <BarChart data={data}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="name" hide={data.length > 12} />
            <YAxis unit="%" domain={[0, 100]} />
            <Tooltip formatter={(v) => `${String(v)}%`} />
            <Bar dataKey="accuracy" name={t(k('comparison.accuracy'))} fill="#2f6fd6" />
            {d.ai_model.test_accuracy !== null ? (
              <ReferenceLine y={Math.round(d.ai_model.test_accuracy * 1000) / 10} stroke="#d64545" strokeDasharray="6 3" label={t(k('comparison.aiAccuracy'))} />
            ) : null}
          </BarChart>
        </ResponsiveContainer>
      </figure>
    </section>
  );
}

function DetailsTab({ dataset }: { dataset: DatasetType }) {
  const { t } = useTranslation();
  const details = useQuery({
    queryKey: ['admin', 'mv', 'details', dataset],
    queryFn: async () => unwrap(await api.api['model-verification']['ai-model'].details.$get({ query: { dataset_type: dataset } })),
  });
  if (details.error) return <p className="notice notice-error">{details.error.message}</p>;
  const d = details.data;
  if (!d) return null;
  const tr = d.trees;
  return (
    <section className="mv-grid">
      <figure className="card mv-wide" data-chart="importance">
        <figcaption>{t(k('details.importance'), { count: d.cases_explained })}</figcaption>
        <ResponsiveContainer width="100%" height={Math.max(200, d.feature_importance.length * 26)}>
          <BarChart data={d.feature_importance} layout="vertical" margin={{ left: 16, right: 16 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis type="number" />
            {/* Wide enough for the longest feature name: at 12 px a character takes at most about 7.5 px. */}
            <YAxis
              type="category"
              dataKey="feature"
              tick={{ fontSize: 12 }}
              width={Math.min(220, Math.ceil(12 + 7.5 * Math.max(...d.feature_importance.map((f) => f.feature.length))))}
              interval={0}
            />
            <Tooltip formatter={(v) => Number(v).toFixed(4)} />
            <Bar dataKey="mean_abs_shap" name="mean |SHAP|" fill="#3a9b6a" />
          </BarChart>
        </ResponsiveContainer>
      </figure>
      <Card title={t(k('details.trees'))}>
        <Facts
          rows={[
            [t(k('ai.identifier')), <code key="id">{d.model_identifier}</code>],
            [t(k('details.numTrees')), tr.num_trees],
            [t(k('details.leaves')), `${tr.total_leaves} / ${tr.mean_leaves.toFixed(1)} / ${tr.max_leaves}`],
            [t(k('details.depth')), `${tr.mean_depth.toFixed(1)} / ${tr.max_depth}`],
            [t(k('details.splits')), tr.splits_per_feature.map((s) => `${s.feature} ${s.splits}`).join(' · ')],
          ]}
        />
      </Card>
    </section>
  );
}

/** Part 2 §2.7: dataset selector, reload and the four tabs. */
export function ModelVerificationPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [dataset, setDataset] = useState<DatasetType>(studyConfig.defaultDatasetType);
  const [message, notify] = useMessage();
  return (
    <div className="page mv-page">
      <div className="page-heading mv-heading">
        <h1>{t(k('title'))}</h1>
        <div className="mv-controls">
          <label>
            {t(k('dataset'))}{' '}
            <select value={dataset} onChange={(e) => setDataset(e.target.value as DatasetType)} data-testid="dataset-select">
              {DATASET_TYPES.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </label>
          <Button className="button" onPress={() => void client.invalidateQueries({ queryKey: ['admin', 'mv'] })}>
            {t(k('reload'))}
          </Button>
        </div>
      </div>
      {message ? (
        <p role={message.kind === 'error' ? 'alert' : 'status'} className={`notice notice-${message.kind === 'error' ? 'error' : 'info'}`}>
          {message.text}
        </p>
      ) : null}
      <Tabs className="mv-tabs">
        <div className="tab-scroll">
          <TabList aria-label={t(k('title'))} className="tab-list">
            {(['ai', 'users', 'comparison', 'details'] as const).map((id) => (
              <Tab key={id} id={id} className="tab">
                {t(k(`tabs.${id}`))}
              </Tab>
            ))}
          </TabList>
        </div>
        <TabPanel id="ai">
          <AiModelTab dataset={dataset} notify={notify} />
        </TabPanel>
        <TabPanel id="users">
          <UserModelsTab dataset={dataset} notify={notify} />
        </TabPanel>
        <TabPanel id="comparison">
          <ComparisonTab dataset={dataset} />
        </TabPanel>
        <TabPanel id="details">
          <DetailsTab dataset={dataset} />
        </TabPanel>
      </Tabs>
    </div>
  );
}
