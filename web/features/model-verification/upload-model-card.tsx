import { useMutation } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { Card } from '../../components/ui/card';
import { RefusalNotice } from '../../components/ui/refusal-notice';
import { api, unwrap } from '../../lib/api';
import { readJsonFile } from '../../lib/read-file';
import { CandidateComparison } from './model-versions';

type Uploaded = InferResponseType<(typeof api.api)['model-verification']['ai-model']['upload']['$post'], 201>;
const k = (key: string) => `modelVerification.upload.${key}`;

/**
 * The researcher's own model: a LightGBM `dump_model()` JSON with its `encoding.json`, or an
 * `xdl-gbdt` file. The Worker validates it against the dataset and scores it on the held-out
 * experiment cases beside the active model; it serves participants only once activated here.
 */
export function UploadModelCard({ dataset, notify }: { dataset: DatasetType; notify: (m: { kind: 'success' | 'error'; text: string }) => void }) {
  const { t } = useTranslation();
  const [modelFile, setModelFile] = useState<File | null>(null);
  const [encodingFile, setEncodingFile] = useState<File | null>(null);
  const [result, setResult] = useState<Uploaded | null>(null);
  const upload = useMutation({
    mutationFn: async () => {
      if (!modelFile) throw new Error(t(k('chooseModel')));
      const model = await readJsonFile(modelFile, (name) => `${t(k('model'))}: ${name} is not JSON`);
      const encoding = encodingFile ? await readJsonFile(encodingFile, (name) => `${t(k('encoding'))}: ${name} is not JSON`) : undefined;
      return unwrap(await api.api['model-verification']['ai-model'].upload.$post({ json: { dataset_type: dataset, model, ...(encoding ? { encoding } : {}) } }));
    },
    onMutate: () => setResult(null),
    onSuccess: (r) => setResult(r as Uploaded),
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
      {upload.error ? <RefusalNotice error={upload.error} lead={t(k('refused'))} texts={k('refusals')} testId="upload-refused" /> : null}
      {result ? (
        <div data-testid="upload-result">
          <p>
            {t(k('validated'), { identifier: result.model_identifier, trees: result.num_trees, cases: result.cases_evaluated, format: result.source_format })}
          </p>
          <CandidateComparison
            dataset={dataset}
            candidate={{ model_identifier: result.model_identifier, status: result.status, metrics: result.uploaded_metrics, current: result.current_model }}
            notify={notify}
            onActivated={() => setResult(null)}
          />
        </div>
      ) : null}
    </Card>
  );
}
