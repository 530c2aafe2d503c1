import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Card } from '../../components/ui/card';
import { StatusBadge } from '../../components/ui/status-badge';
import { RefusalNotice, useRefusalText } from '../../components/ui/refusal-notice';
import { api, unwrap } from '../../lib/api';
import { localeOf, useDateTime } from '../../lib/date-time';
import { base64Of, readJsonFile } from '../../lib/read-file';
import { applyDefinitionChanges, MAX_PREVIEW_CSV_BYTES } from '../../../worker/schemas/dataset-definition';
import { loadStudyDatasets } from '../../lib/study-datasets';
import { MIN_TRAINING_ROWS } from '../../../worker/schemas/study-counts';
import { isLanguage, LANGUAGES } from '../../../worker/schemas/study-config';
import { DataTable, type ColumnDef } from './data-table';

const k = (key: string) => `admin.dashboard.datasets.${key}`;
/** Where the words for each refusal code are. */
const REFUSALS = k('refusals');

type Listed = Omit<InferResponseType<typeof api.api.admin.datasets.$get, 200>['datasets'][number], 'id'> & { id: number; dataset: string };
type Preview = InferResponseType<typeof api.api.admin.datasets.preview.$post, 200>;
type Added = InferResponseType<typeof api.api.admin.datasets.$post, 201>;
type FeatureRow = Preview['columns'][number] & { id: number };
type SourceRow = Preview['source_columns'][number] & { id: number };

/** After an administrator adds or enables a dataset: the lists again, and this page's own registry (its selectors list it at once). */
function useDatasetsChanged() {
  const client = useQueryClient();
  const { i18n } = useTranslation();
  return async () => {
    await loadStudyDatasets(i18n);
    await client.invalidateQueries({ queryKey: ['admin', 'data'] });
  };
}

/** Offers a dataset added here to new sessions (once every copy of the Worker knows it), or stops; sessions that have it keep it. */
function OfferToggle({ dataset, enabled, offerableFrom }: { dataset: string; enabled: boolean; offerableFrom: string }) {
  const { t, i18n } = useTranslation();
  const explain = useRefusalText(REFUSALS);
  const changed = useDatasetsChanged();
  const toggle = useMutation({
    mutationFn: async () => unwrap(await api.api.admin.datasets[':dataset'].enabled.$post({ param: { dataset }, json: { enabled: !enabled } })),
    onSuccess: changed,
  });
  const wait = Date.parse(offerableFrom) - Date.now();
  const [settled, setSettled] = useState(wait <= 0);
  useEffect(() => {
    if (settled) return;
    const timer = setTimeout(() => setSettled(true), Math.max(0, wait));
    return () => clearTimeout(timer);
  }, [settled, wait]);
  return (
    <span className="dataset-offer">
      <Button className="button button-small" onPress={() => toggle.mutate()} isDisabled={toggle.isPending || (!enabled && !settled)} data-testid={`dataset-offer-${dataset}`}>
        {t(k(enabled ? 'stopOffering' : 'offer'))}
      </Button>
      {!enabled && !settled ? <span className="muted">{t(k('offerableFrom'), { time: new Date(offerableFrom).toLocaleTimeString(localeOf(i18n.language)) })}</span> : null}
      {toggle.error ? <span role="alert">{explain(toggle.error) ?? toggle.error.message}</span> : null}
    </span>
  );
}

/** The study's datasets, each from its definition, with whether new sessions are offered it. */
function StudyDatasets() {
  const { t, i18n } = useTranslation();
  const dateTime = useDateTime();
  const language = isLanguage(i18n.language) ? i18n.language : LANGUAGES[0];
  const list = useQuery({ queryKey: ['admin', 'data', 'datasets'], queryFn: async () => unwrap(await api.api.admin.datasets.$get()) });
  const columns: ColumnDef<Listed>[] = [
    { id: 'id', label: t(k('columns.id')), render: (d) => <code>{d.dataset}</code> },
    { id: 'name', label: t(k('columns.name')), render: (d) => d.name[language] },
    { id: 'features', label: t(k('columns.features')), render: (d) => d.columns },
    {
      id: 'enabled',
      label: t(k('columns.enabled')),
      render: (d) => (
        <span className="dataset-enabled">
          <StatusBadge state={d.enabled ? 'ready' : 'neutral'} label={t(k(d.enabled ? 'enabled' : 'disabled'))} />
          {d.added ? <OfferToggle dataset={d.dataset} enabled={d.enabled} offerableFrom={d.added.offerable_from} /> : null}
        </span>
      ),
    },
    { id: 'origin', label: t(k('columns.origin')), render: (d) => (d.added ? t(k('addedOn'), { date: dateTime(d.added.added_at), cases: d.added.cases }) : t(k('builtIn'))) },
    { id: 'files', label: t(k('columns.files')), render: (d) => (d.added ? t(k('uploaded'), { sha: d.added.source_sha256.slice(0, 12) }) : d.source_files.join(', ')) },
    { id: 'pools', label: t(k('columns.pools')), render: (d) => `${d.pools.tutorial} / ${d.pools.pre} / ${d.pools.main} × ${d.pools.main_pools}` },
  ];
  return (
    <Card title={t(k('studyTitle'))}>
      <p className="muted">{t(k('studyLead'))}</p>
      {list.isError ? <p className="notice notice-error">{t('admin.dashboard.loadFailed', { message: list.error.message })}</p> : null}
      <DataTable label={t(k('studyTitle'))} columns={columns} rows={list.data?.datasets.map((d, id) => ({ ...d, dataset: d.id, id })) ?? []} />
    </Card>
  );
}

/** What the check found, in the interface's language, and the steps that build the dataset. */
type Upload = { definition: Record<string, unknown>; csv_base64: string };

/** Whether the file is the one the definition names, another, or the definition names none yet. */
const shaState = (preview: Preview) =>
  preview.csv.matches_definition ? 'shaMatches' : preview.changes.some((c) => c.reason === 'sha256' && c.from === null) ? 'shaMissing' : 'shaDiffers';

function PreviewResult({ preview, upload, onApply, applying }: { preview: Preview; upload: Upload; onApply: () => void; applying: boolean }) {
  const { t } = useTranslation();
  const number = (n: number | null) => (n === null ? '—' : n.toLocaleString());
  const features: ColumnDef<FeatureRow>[] = [
    { id: 'id', label: t(k('col.name')), render: (c) => <code>{c.name}</code> },
    { id: 'kind', label: t(k('col.kind')), render: (c) => t(k(`kinds.${c.kind}`)) },
    { id: 'missing', label: t(k('col.missing')), render: (c) => number(c.missing) },
    { id: 'distinct', label: t(k('col.distinct')), render: (c) => number(c.distinct) },
    { id: 'range', label: t(k('col.range')), render: (c) => (c.min === null ? '—' : `${number(c.min)} – ${number(c.max)}`) },
    { id: 'quartiles', label: t(k('col.quartiles')), render: (c) => (c.quartiles ? `${number(c.quartiles.q1)} / ${number(c.quartiles.median)} / ${number(c.quartiles.q3)}` : '—') },
    { id: 'unlabelled', label: t(k('col.unlabelled')), render: (c) => (c.unlabelled.length ? <span className="badge badge-amber">{c.unlabelled.join(', ')}</span> : '—') },
  ];
  const source: ColumnDef<SourceRow>[] = [
    { id: 'id', label: t(k('col.name')), render: (c) => <code>{c.name}</code> },
    { id: 'readAs', label: t(k('col.readAs')), render: (c) => t(k(`readAs.${c.read_as}`)) },
    { id: 'looks', label: t(k('col.looks')), render: (c) => t(k(`looks.${c.looks}`)) },
    { id: 'filled', label: t(k('col.filled')), render: (c) => number(c.filled) },
  ];
  const poolText = { needed: preview.pools.needed_per_outcome, positive: preview.pools.held_out.positive, negative: preview.pools.held_out.negative };
  const steps = [
    ...(preview.build.sha256_to_set ? [t(k('steps.sha'), { sha: preview.build.sha256_to_set })] : []),
    t(k('steps.definition'), { file: preview.build.definition_file }),
    t(k('steps.csv'), { file: preview.build.csv_file }),
    t(k('steps.prepare')),
    t(k('steps.seed')),
    t(k('steps.serve')),
  ];
  return (
    <section className="dataset-preview" data-testid="dataset-preview">
      <h3>{t(k('resultTitle'), { dataset: preview.dataset })}</h3>
      <ul className="plain-list">
        <li>{t(k('rows'), { read: number(preview.rows.read), kept: number(preview.rows.kept) })}</li>
        <li>{t(k('balance'), { positive: number(preview.outcome.positive), negative: number(preview.outcome.negative), share: (preview.outcome.positive_share * 100).toFixed(1) })}</li>
        <li>
          <StatusBadge state={preview.csv.matches_definition ? 'ready' : 'warning'} label={t(k(shaState(preview)))} />
        </li>
        <li data-testid="dataset-preview-pools">
          <StatusBadge state={preview.pools.can_build ? 'ready' : 'error'} label={t(k(preview.pools.can_build ? 'poolsOk' : 'poolsShort'), poolText)} />
          {preview.pools.short.length > 0 ? (
            <ul data-testid="dataset-preview-short">
              {preview.pools.short.map((s) => (
                <li key={s.outcome}>{t(k(`short.${s.outcome}`), { value: s.value, held: number(s.held_out), needed: number(s.needed) })}</li>
              ))}
            </ul>
          ) : null}
        </li>
        {preview.names_in_use.map((same) => (
          <li key={`${same.dataset}-${same.language}`} data-testid="dataset-name-in-use">
            <StatusBadge state="warning" label={t(k('nameInUse'), { dataset: same.dataset, name: same.name })} />
          </li>
        ))}
        {preview.id_in_use ? (
          <li>
            <StatusBadge state="error" label={t(k('idInUse'), { dataset: preview.dataset })} />
          </li>
        ) : null}
      </ul>
      <ProposedChanges preview={preview} onApply={onApply} applying={applying} />
      {preview.accuracy ? <ModelAccuracy accuracy={preview.accuracy} /> : null}
      <AddDataset preview={preview} upload={upload} />
      <h4>{t(k('featuresTitle'))}</h4>
      <DataTable label={t(k('featuresTitle'))} columns={features} rows={preview.columns.map((c, id) => ({ ...c, id }))} />
      <h4>{t(k('sourceTitle'))}</h4>
      <DataTable label={t(k('sourceTitle'))} columns={source} rows={preview.source_columns.map((c, id) => ({ ...c, id }))} />
      <h4>{t(k('stepsTitle'))}</h4>
      <p className="muted">{t(k('stepsLead'))}</p>
      <ol data-testid="dataset-preview-steps">
        {steps.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
    </section>
  );
}

/**
 * What the check proposes to change in the definition, each edit said in words, applied with one
 * click (and checked again); when no setting fits, what the data would need.
 */
function ProposedChanges({ preview, onApply, applying }: { preview: Preview; onApply: () => void; applying: boolean }) {
  const { t } = useTranslation();
  const { pools, changes } = preview;
  const proposal = pools.proposal;
  if (changes.length === 0 && (pools.can_build || proposal)) return null;
  const sample = preview.understanding_sample.sample.features;
  const describe = (change: Preview['changes'][number]) => {
    switch (change.reason) {
      case 'sha256':
        return (
          <>
            {t(k('change.sha256'), { sha: '' })}
            <code className="sha256">{String(change.to)}</code>
          </>
        );
      case 'main_pools':
        return t(k('change.mainPools'), { from: String(change.from), to: String(change.to) });
      case 'test_share':
        return t(k('change.testShare'), { from: String(change.from), to: String(change.to) });
      case 'understanding_sample':
        return t(k('change.sample'), { a: sample.a.feature, b: sample.b.feature, c: sample.c.feature, d: sample.d.feature });
    }
  };
  return (
    <div className="dataset-proposal" data-testid="dataset-proposal">
      <h4>{t(k('proposalTitle'))}</h4>
      {!pools.can_build && !proposal ? (
        <p className="notice notice-error">{t(k('noFit'), { needed: pools.needed_with_one_main_pool, min: MIN_TRAINING_ROWS })}</p>
      ) : null}
      {proposal ? (
        <p data-testid="dataset-proposal-fit">
          {t(k('proposalFit'), {
            pools: proposal.main_pools,
            share: proposal.test_size,
            held: proposal.held_out.positive + proposal.held_out.negative,
            training: proposal.training_rows,
          })}
        </p>
      ) : null}
      {changes.length > 0 ? (
        <>
          <ul>
            {changes.map((change) => (
              <li key={change.reason}>{describe(change)}</li>
            ))}
          </ul>
          <Button className="button button-primary" onPress={onApply} isDisabled={applying} data-testid="dataset-apply">
            {applying ? t(k('checking')) : t(k('apply'))}
          </Button>
        </>
      ) : null}
      {pools.options.length > 1 ? (
        <details>
          <summary>{t(k('otherOptions'))}</summary>
          <ul>
            {pools.options.slice(1).map((o) => (
              <li key={o.main_pools}>{t(k('option'), { pools: o.main_pools, share: o.test_size, training: o.training_rows })}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

/** Whether the AI is worth studying here: its cross-validated accuracy beside the two baselines', on the same rows and folds. */
function ModelAccuracy({ accuracy }: { accuracy: NonNullable<Preview['accuracy']> }) {
  const { t } = useTranslation();
  const percent = (x: number) => (x * 100).toFixed(1);
  // Within a percentage point of a baseline is no better, at the precision shown.
  const weak = accuracy.ai_model < Math.max(accuracy.logistic_regression, accuracy.majority) + 0.01;
  return (
    <div data-testid="dataset-accuracy">
      <p>
        {t(k(`accuracy.${accuracy.split}`), {
          rows: accuracy.training_rows.toLocaleString(),
          folds: accuracy.cv_folds,
          ai: percent(accuracy.ai_model),
          lr: percent(accuracy.logistic_regression),
          majority: percent(accuracy.majority),
        })}
      </p>
      {weak ? (
        <p className="notice notice-warning" data-testid="dataset-accuracy-weak">
          {t(k('accuracy.weak'))}
        </p>
      ) : null}
    </div>
  );
}

/** The definition as checked, to keep: what set-up reads and what the dashboard added. */
function DownloadDefinition({ upload, dataset }: { upload: Upload; dataset: string }) {
  const { t } = useTranslation();
  const save = () => {
    const url = URL.createObjectURL(new Blob([`${JSON.stringify(upload.definition, null, 2)}\n`], { type: 'application/json' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: `${dataset}.json` });
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Button className="button" onPress={save} data-testid="dataset-download-definition">
      {t(k('downloadDefinition'), { file: `${dataset}.json` })}
    </Button>
  );
}

/** Adds the checked dataset: built inside the Worker by set-up's rules, then offered to new sessions from the table above. */
function AddDataset({ preview, upload }: { preview: Preview; upload: Upload }) {
  const { t } = useTranslation();
  const changed = useDatasetsChanged();
  const add = useMutation({
    mutationFn: async (): Promise<Added> => unwrap(await api.api.admin.datasets.$post({ json: upload })),
    onSuccess: changed,
  });
  const blockers = [
    ...(preview.id_in_use ? [t(k('idInUse'), { dataset: preview.dataset })] : []),
    ...(preview.csv.matches_definition ? [] : [t(k(shaState(preview)))]),
    ...(preview.pools.can_build ? [] : [t(k('poolsCannot'))]),
    ...preview.accuracy_shortfalls.map((x) =>
      t(k('accuracyShort'), { condition: x.condition, share: x.ai_accuracy, neededRight: x.needed_right, neededWrong: x.needed_wrong, right: x.right, wrong: x.wrong }),
    ),
  ];
  const percent = (x: number) => (x * 100).toFixed(1);
  return (
    <div className="dataset-add" data-testid="dataset-add">
      <h4>{t(k('addTitle'))}</h4>
      <p className="muted">{t(k('addLead'))}</p>
      {blockers.length > 0 ? (
        <p className="notice notice-warning">{t(k('cannotAdd'), { reasons: blockers.join('; ') })}</p>
      ) : add.data ? (
        <p role="status" className="notice notice-success" data-testid="dataset-added">
          {t(k('added'), {
            dataset: add.data.dataset,
            cases: add.data.cases,
            rows: add.data.rows.toLocaleString(),
            accuracy: percent(add.data.test_accuracy),
            cv: percent(add.data.cross_validation_score),
            lr: percent(add.data.baselines.logistic_regression),
            majority: percent(add.data.baselines.majority),
          })}
        </p>
      ) : (
        <Button className="button button-primary" onPress={() => add.mutate()} isDisabled={add.isPending} data-testid="dataset-add-button">
          {add.isPending ? t(k('adding')) : t(k('add'))}
        </Button>
      )}
      {add.error ? <RefusalNotice error={add.error} lead={t(k('refused'))} texts={REFUSALS} testId="dataset-add-refused" /> : null}
    </div>
  );
}

/** A researcher's new task: its definition and CSV, checked by the Worker by set-up's rules; nothing is stored. */
function CheckDataset() {
  const { t } = useTranslation();
  const [definitionFile, setDefinitionFile] = useState<File | null>(null);
  const [csvFile, setCsvFile] = useState<File | null>(null);
  // Over the Worker's limit the file is not sent at all: said here, before any upload.
  const tooLarge = csvFile !== null && csvFile.size > MAX_PREVIEW_CSV_BYTES;
  const check = useMutation({
    /** The files as chosen, or (`applied`) the last upload with the check's changes applied. */
    mutationFn: async (applied?: Upload) => {
      let upload = applied;
      if (!upload) {
        if (!definitionFile || !csvFile) throw new Error(t(k('checkLead')));
        const definition = await readJsonFile(definitionFile, (file) => t(k('notJson'), { file }));
        upload = { definition, csv_base64: await base64Of(csvFile) };
      }
      return { upload, applied: applied !== undefined, preview: await unwrap(await api.api.admin.datasets.preview.$post({ json: upload })) };
    },
  });
  const apply = () => {
    if (!check.data) return;
    const { upload, preview } = check.data;
    check.mutate({ ...upload, definition: applyDefinitionChanges(upload.definition, preview.changes) });
  };
  return (
    <Card title={t(k('checkTitle'))}>
      <p className="muted">{t(k('checkLead'))}</p>
      <div className="dataset-check-form">
        <label>
          {t(k('definitionFile'))} <input type="file" accept=".json,application/json" data-testid="dataset-definition-file" onChange={(e) => setDefinitionFile(e.target.files?.[0] ?? null)} />
        </label>
        <label>
          {t(k('csvFile'))} <input type="file" accept=".csv,.data,.txt,text/csv,text/plain" data-testid="dataset-csv-file" onChange={(e) => setCsvFile(e.target.files?.[0] ?? null)} />
        </label>
        <Button className="button button-primary" onPress={() => check.mutate(undefined)} isDisabled={!definitionFile || !csvFile || tooLarge || check.isPending}>
          {check.isPending ? t(k('checking')) : t(k('check'))}
        </Button>
      </div>
      {tooLarge ? (
        <p className="notice notice-error" role="alert" data-testid="dataset-csv-too-large">
          {t(k('csvTooLarge'), { file: csvFile.name, size: (csvFile.size / 1024 / 1024).toFixed(1), max: MAX_PREVIEW_CSV_BYTES / 1024 / 1024 })}
        </p>
      ) : null}
      {check.error ? <RefusalNotice error={check.error} lead={t(k('refused'))} texts={REFUSALS} testId="dataset-refused" /> : null}
      {check.data?.applied ? (
        <p className="notice notice-success" role="status" data-testid="dataset-applied">
          {t(k('applied'))} <DownloadDefinition upload={check.data.upload} dataset={check.data.preview.dataset} />
        </p>
      ) : null}
      {check.data ? (
        <PreviewResult
          key={check.submittedAt}
          preview={check.data.preview}
          upload={check.data.upload}
          onApply={apply}
          applying={check.isPending}
        />
      ) : null}
    </Card>
  );
}

/** The Datasets tab: the study's datasets and the check of a new one. */
export function DatasetsTab() {
  return (
    <>
      <StudyDatasets />
      <CheckDataset />
    </>
  );
}
