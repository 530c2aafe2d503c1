import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { Card } from '../../components/ui/card';
import { ConfirmDialog } from '../../components/ui/confirm-dialog';
import { StatusBadge } from '../../components/ui/status-badge';
import { api, unwrap } from '../../lib/api';
import { useDateTime } from '../../lib/date-time';

type Notify = (m: { kind: 'success' | 'error'; text: string }) => void;
type Uploaded = InferResponseType<(typeof api.api)['model-verification']['ai-model']['upload']['$post'], 201>;
type Metrics = Uploaded['uploaded_metrics'];
const k = (key: string) => `modelVerification.versions.${key}`;

const METRIC_ROWS: [keyof Metrics, (v: number) => string][] = [
  ['test_accuracy', (v) => `${(v * 100).toFixed(2)}%`],
  ['test_precision', (v) => v.toFixed(3)],
  ['test_recall', (v) => v.toFixed(3)],
  ['test_f1_score', (v) => v.toFixed(3)],
  ['test_logloss', (v) => v.toFixed(4)],
  ['test_samples', (v) => String(v)],
];

/** Makes a stored version the dataset's active model (a candidate, or a rollback to an earlier one), after a confirm dialog. */
function useActivation(dataset: DatasetType, notify: Notify, onDone: () => void = () => undefined) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [confirming, setConfirming] = useState<string | null>(null);
  const activate = useMutation({
    mutationFn: async (identifier: string) => unwrap(await api.api['model-verification']['ai-model'].activate.$post({ json: { dataset_type: dataset, model_identifier: identifier } })),
    onSuccess: (r) => {
      notify({ kind: 'success', text: t(k('activated'), { identifier: r.model_identifier, previous: r.previous_model_identifier ?? '—' }) });
      onDone();
      void client.invalidateQueries({ queryKey: ['admin', 'mv'] });
    },
    onError: (err) => notify({ kind: 'error', text: t(k('activateFailed'), { message: err.message }) }),
  });
  const dialog = (
    <ConfirmDialog
      isOpen={confirming !== null}
      isPending={activate.isPending}
      title={t(k('activate'))}
      body={t(k('activateConfirm'), { dataset, identifier: confirming ?? '' })}
      confirmLabel={t(k('activate'))}
      cancelLabel={t('common.back')}
      onCancel={() => setConfirming(null)}
      onConfirm={() => {
        if (confirming) activate.mutate(confirming);
        setConfirming(null);
      }}
    />
  );
  return { ask: setConfirming, pending: activate.isPending, dialog };
}

/**
 * A new version (an upload or a retrain) beside the active model on the same experiment cases,
 * with the button that activates it: nothing serves participants before that.
 */
export function CandidateComparison({
  dataset,
  candidate,
  notify,
  onActivated,
}: {
  dataset: DatasetType;
  candidate: { model_identifier: string; status: 'candidate' | 'active' | 'retired'; metrics: Metrics; current: { model_identifier: string; metrics: Metrics } | null };
  notify: Notify;
  onActivated: () => void;
}) {
  const { t } = useTranslation();
  const activation = useActivation(dataset, notify, onActivated);
  return (
    <div data-testid="candidate-comparison">
      <div className="table-scroll">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{t(k('metric'))}</th>
              <th scope="col">{t(k('candidate'))}</th>
              <th scope="col">{t(k('current'))}</th>
            </tr>
          </thead>
          <tbody>
            {METRIC_ROWS.map(([name, format]) => (
              <tr key={name}>
                <th scope="row">{t(`modelVerification.upload.metrics.${name}`)}</th>
                <td>{format(candidate.metrics[name])}</td>
                <td>{candidate.current ? format(candidate.current.metrics[name]) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {candidate.status === 'active' ? (
        <p className="notice notice-info">{t(k('alreadyActive'))}</p>
      ) : (
        <Button className="button button-danger" onPress={() => activation.ask(candidate.model_identifier)} isDisabled={activation.pending}>
          {t(k('activate'))}
        </Button>
      )}
      {activation.dialog}
    </div>
  );
}

/** Every stored version of the dataset's AI model, newest first; any one can be made active again (rollback). */
export function ModelVersionsCard({ dataset, notify }: { dataset: DatasetType; notify: Notify }) {
  const { t } = useTranslation();
  const versions = useQuery({
    queryKey: ['admin', 'mv', 'versions', dataset],
    queryFn: async () => unwrap(await api.api['model-verification']['ai-model'].versions.$get({ query: { dataset_type: dataset } })),
  });
  const activation = useActivation(dataset, notify);
  const time = useDateTime();
  return (
    <Card title={t(k('title'))} className="mv-wide">
      <p className="muted">{t(k('lead'))}</p>
      {versions.error ? <p className="notice notice-error">{versions.error.message}</p> : null}
      <div className="table-scroll">
        <table className="table" data-testid="model-versions">
          <thead>
            <tr>
              <th scope="col">{t(k('identifier'))}</th>
              <th scope="col">{t(k('status'))}</th>
              <th scope="col">{t(k('origin'))}</th>
              <th scope="col">{t(k('sameCasesAccuracy'), { count: versions.data?.versions[0]?.experiment_cases ?? 0 })}</th>
              <th scope="col">{t(k('accuracy'))}</th>
              <th scope="col">{t(k('trainedAt'))}</th>
              <th scope="col">{t(k('actions'))}</th>
            </tr>
          </thead>
          <tbody>
            {(versions.data?.versions ?? []).map((v) => (
              <tr key={v.model_identifier} data-version={v.model_identifier}>
                <td>
                  <code>{v.model_identifier}</code>
                </td>
                <td>
                  <StatusBadge state={v.status === 'active' ? 'healthy' : v.status === 'candidate' ? 'warning' : 'unknown'} label={t(k(`statuses.${v.status}`))} />
                </td>
                <td>{t(k(`origins.${v.origin}`))}</td>
                <td data-column="same-cases">{v.experiment_case_accuracy === null ? '—' : `${(v.experiment_case_accuracy * 100).toFixed(1)}%`}</td>
                <td className="mv-muted">
                  {v.test_accuracy === null ? '—' : `${(v.test_accuracy * 100).toFixed(1)}%`}
                  {v.test_samples === null ? null : <span className="mv-muted"> (n={v.test_samples})</span>}
                </td>
                <td>{time(v.trained_at)}</td>
                <td>
                  {v.status === 'active' ? null : (
                    <Button className="button button-small" onPress={() => activation.ask(v.model_identifier)} isDisabled={activation.pending}>
                      {t(k(v.status === 'candidate' ? 'activate' : 'rollback'))}
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {activation.dialog}
    </Card>
  );
}
