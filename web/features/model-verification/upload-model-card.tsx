import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { Card } from '../../components/ui/card';
import { ConfirmDialog } from '../../components/ui/confirm-dialog';
import { api, ApiError, unwrap } from '../../lib/api';

type Uploaded = InferResponseType<(typeof api.api)['model-verification']['ai-model']['upload']['$post'], 201>;
type Metrics = Uploaded['uploaded_metrics'];
const k = (key: string) => `modelVerification.upload.${key}`;

async function readJson(file: File | null, what: string): Promise<Record<string, unknown> | undefined> {
  if (!file) return undefined;
  try {
    return JSON.parse(await file.text()) as Record<string, unknown>;
  } catch {
    throw new Error(`${what}: ${file.name} is not JSON`);
  }
}

/** What a refusal says, field by field when the server lists issues. */
const refusalLines = (err: Error): string[] =>
  err instanceof ApiError && Array.isArray(err.detail) ? err.detail.map((i) => `${i.loc.join('.')}: ${i.msg}`) : [err.message];

const METRIC_ROWS: [keyof Metrics, (v: number) => string][] = [
  ['test_accuracy', (v) => `${(v * 100).toFixed(2)}%`],
  ['test_precision', (v) => v.toFixed(3)],
  ['test_recall', (v) => v.toFixed(3)],
  ['test_f1_score', (v) => v.toFixed(3)],
  ['test_logloss', (v) => v.toFixed(4)],
  ['test_samples', (v) => String(v)],
];

/**
 * The researcher's own model: a LightGBM `dump_model()` JSON with its `encoding.json`, or an
 * `xdl-gbdt` file. The Worker validates it against the dataset and scores it on the held-out
 * experiment cases beside the active model; it serves participants only once activated here.
 */
export function UploadModelCard({ dataset, notify }: { dataset: DatasetType; notify: (m: { kind: 'success' | 'error'; text: string }) => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [modelFile, setModelFile] = useState<File | null>(null);
  const [encodingFile, setEncodingFile] = useState<File | null>(null);
  const [result, setResult] = useState<Uploaded | null>(null);
  const [confirming, setConfirming] = useState(false);
  const upload = useMutation({
    mutationFn: async () => {
      const model = await readJson(modelFile, t(k('model')));
      if (!model) throw new Error(t(k('chooseModel')));
      const encoding = await readJson(encodingFile, t(k('encoding')));
      return unwrap(await api.api['model-verification']['ai-model'].upload.$post({ json: { dataset_type: dataset, model, ...(encoding ? { encoding } : {}) } }));
    },
    onMutate: () => setResult(null),
    onSuccess: (r) => setResult(r as Uploaded),
  });
  const activate = useMutation({
    mutationFn: async (identifier: string) => unwrap(await api.api['model-verification']['ai-model'].activate.$post({ json: { dataset_type: dataset, model_identifier: identifier } })),
    onSuccess: (r) => {
      notify({ kind: 'success', text: t(k('activated'), { identifier: r.model_identifier, previous: r.previous_model_identifier ?? '—' }) });
      setResult(null);
      void client.invalidateQueries({ queryKey: ['admin', 'mv'] });
    },
    onError: (err) => notify({ kind: 'error', text: t(k('activateFailed'), { message: err.message }) }),
  });
  return (
    <Card title={t(k('title'))}>
      <p className="muted">{t(k('lead'))}</p>
      <div className="mv-form">
        <label>
          {t(k('model'))} <input type="file" accept=".json,application/json" data-testid="upload-model-file" onChange={(e) => setModelFile(e.target.files?.[0] ?? null)} />
        </label>
        <label>
          {t(k('encoding'))} <input type="file" accept=".json,application/json" data-testid="upload-encoding-file" onChange={(e) => setEncodingFile(e.target.files?.[0] ?? null)} />
        </label>
        <Button className="button button-primary" onPress={() => upload.mutate()} isDisabled={!modelFile || upload.isPending}>
          {upload.isPending ? t(k('checking')) : t(k('check'))}
        </Button>
      </div>
      {upload.error ? (
        <div role="alert" className="notice notice-error" data-testid="upload-refused">
          <p>{t(k('refused'))}</p>
          <ul>
            {refusalLines(upload.error).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {result ? (
        <div data-testid="upload-result">
          <p>
            {t(k('validated'), { identifier: result.model_identifier, trees: result.num_trees, cases: result.cases_evaluated, format: result.source_format })}
          </p>
          <div className="table-scroll">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">{t(k('metric'))}</th>
                  <th scope="col">{t(k('uploaded'))}</th>
                  <th scope="col">{t(k('current'))}</th>
                </tr>
              </thead>
              <tbody>
                {METRIC_ROWS.map(([name, format]) => (
                  <tr key={name}>
                    <th scope="row">{t(k(`metrics.${name}`))}</th>
                    <td>{format(result.uploaded_metrics[name])}</td>
                    <td>{result.current_model ? format(result.current_model.metrics[name]) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {result.status === 'active' ? (
            <p className="notice notice-info">{t(k('alreadyActive'))}</p>
          ) : (
            <Button className="button button-danger" onPress={() => setConfirming(true)} isDisabled={activate.isPending}>
              {t(k('activate'))}
            </Button>
          )}
        </div>
      ) : null}
      <ConfirmDialog
        isOpen={confirming}
        isPending={activate.isPending}
        title={t(k('activate'))}
        body={t(k('activateConfirm'), { dataset, identifier: result?.model_identifier ?? '' })}
        confirmLabel={t(k('activate'))}
        cancelLabel={t('common.back')}
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          if (result) activate.mutate(result.model_identifier);
        }}
      />
    </Card>
  );
}
