import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { SYNTHETIC_NAME } from '../../../worker/schemas/experiment';
import { DATASET_TYPES, studyConfig, type DatasetType } from '../../../worker/schemas/study-config';
import { ConfirmDialog } from '../../components/ui/confirm-dialog';
import { DataFields } from '../../components/ui/data-fields';
import { api, ApiError, unwrap } from '../../lib/api';
import { clearExperimentStorage } from '../../lib/storage-keys';
import type { Banner } from './dashboard-tables';

type Notify = (banner: Banner) => void;

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="form-field">
      <span>{label}</span>
      {children}
    </label>
  );
}

function DatasetSelect({ value, onChange }: { value: DatasetType; onChange: (d: DatasetType) => void }) {
  return (
    <select value={value} onChange={(e) => onChange(e.target.value as DatasetType)}>
      {DATASET_TYPES.map((d) => (
        <option key={d} value={d}>
          {d}
        </option>
      ))}
    </select>
  );
}

type SyntheticForm = { name: string; dataset: DatasetType; num: string; accuracy: string };

/** A name the registration tools accept: test_ and at least one more character. */
const isSyntheticName = (name: string) => SYNTHETIC_NAME.test(name.trim());

/**
 * Part 2 §2.6's dataset consistency check: the name's stored dataset against the one chosen.
 * success and new_user allow registration; mismatch blocks it; error means the check failed.
 */
function useDatasetConsistency(form: SyntheticForm) {
  const name = form.name.trim();
  const check = useQuery({
    queryKey: ['admin', 'data', 'dataset-consistency', name, form.dataset],
    enabled: isSyntheticName(name),
    queryFn: async () => unwrap(await api.api.admin['dataset-consistency'].$get({ query: { participant_name: name, dataset_type: form.dataset } })),
    retry: false,
  });
  if (!isSyntheticName(name)) return { state: 'idle' as const, stored: null };
  if (check.isError) return { state: 'error' as const, stored: null };
  if (!check.data) return { state: 'checking' as const, stored: null };
  return { state: check.data.state, stored: check.data.stored_dataset_type };
}

function DatasetConsistencyNote({ form, consistency }: { form: SyntheticForm; consistency: ReturnType<typeof useDatasetConsistency> }) {
  const { t } = useTranslation();
  const { state, stored } = consistency;
  if (state === 'idle') return null;
  const kind = state === 'mismatch' || state === 'error' ? 'notice-error' : state === 'checking' ? 'notice-info' : 'notice-success';
  return (
    <p className={`notice ${kind}`} role={state === 'mismatch' || state === 'error' ? 'alert' : 'status'} data-consistency={state}>
      {t(`admin.dashboard.consistency.${state}`, { name: form.name.trim(), stored, chosen: form.dataset })}
    </p>
  );
}

/**
 * What a registration failure says: the spec's texts for a missing name and a dataset clash,
 * otherwise the server's detail.
 */
function registrationError(t: TFunction, err: Error) {
  if (err instanceof ApiError && err.code === 'dataset_mismatch') return t('admin.dashboard.consistency.mismatchShort');
  return t('admin.dashboard.debug.failed', { message: err.message });
}

/** Who is registered and how: the fields both registration tools share. */
function SyntheticParticipantFields({ form, onChange, maxResponses }: { form: SyntheticForm; onChange: (next: Partial<SyntheticForm>) => void; maxResponses: number }) {
  const { t } = useTranslation();
  return (
    <>
      <Field label={t('admin.dashboard.debug.participantName')}>
        <input value={form.name} onChange={(e) => onChange({ name: e.target.value })} maxLength={45} />
      </Field>
      <Field label={t('admin.dashboard.debug.dataset')}>
        <DatasetSelect value={form.dataset} onChange={(dataset) => onChange({ dataset })} />
      </Field>
      <Field label={t('admin.dashboard.debug.numResponses')}>
        <input type="number" min={1} max={maxResponses} value={form.num} onChange={(e) => onChange({ num: e.target.value })} />
      </Field>
      <Field label={t('admin.dashboard.debug.accuracyRate')}>
        <input type="number" min={0} max={1} step={0.05} value={form.accuracy} onChange={(e) => onChange({ accuracy: e.target.value })} />
      </Field>
    </>
  );
}

/** Submits a registration form, or says the spec's '参加者名を入力してください' when no name follows test_. */
function submitRegistration(event: FormEvent, form: SyntheticForm, notify: Notify, t: TFunction, register: () => void) {
  event.preventDefault();
  const name = form.name.trim();
  if (name === '' || name === 'test_') return notify({ kind: 'error', text: t('admin.dashboard.consistency.nameRequired') });
  register();
}

const useRefreshData = () => {
  const client = useQueryClient();
  return () => void client.invalidateQueries({ queryKey: ['admin', 'data'] });
};

/** Debug tools: what resuming an ID would do, and bulk pre-experiment answers for a synthetic participant. */
export function DebugToolsTab({ notify }: { notify: Notify }) {
  const { t } = useTranslation();
  const refresh = useRefreshData();
  const [participantId, setParticipantId] = useState('');
  const [resumeResult, setResumeResult] = useState<unknown>(null);
  const [form, setForm] = useState({ name: 'test_', dataset: studyConfig.defaultDatasetType as DatasetType, num: '10', accuracy: '0.7', bias: '0' });
  const register = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.api.admin['register-user-responses'].$post({
          query: {
            participant_name: form.name.trim(),
            dataset_type: form.dataset,
            num_responses: form.num,
            accuracy_rate: form.accuracy,
            confidence_bias: form.bias,
            experiment_type: 'pre_experiment',
            use_fixed_case_set: 'true',
          },
        }),
      ),
    onSuccess: (r) => {
      notify({
        kind: 'success',
        text: t('admin.dashboard.debug.registered', {
          name: form.name.trim(),
          total: r.experiment_stats.total_responses,
          accuracy: (r.experiment_stats.accuracy_rate * 100).toFixed(1),
          asked: (Number(form.accuracy) * 100).toFixed(0),
        }),
      });
      refresh();
    },
    onError: (err) => notify({ kind: 'error', text: registrationError(t, err) }),
  });
  const consistency = useDatasetConsistency(form);
  const checkResume = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const res = await api.api.experiments.resume.$post({ json: { participant_name: participantId.trim() } });
      if (res.status === 404) return setResumeResult(t('admin.dashboard.resumeNotFound'));
      const body = await unwrap(res);
      setResumeResult(body);
    } catch (err) {
      setResumeResult(t('admin.dashboard.resumeFailed', { message: err instanceof Error ? err.message : String(err) }));
    }
  };
  return (
    <section className="tool-grid">
      <div className="card">
        <h3 className="card-title">{t('admin.dashboard.debug.resumeTitle')}</h3>
        <p>{t('admin.dashboard.debug.resumeLead')}</p>
        <form onSubmit={(e) => void checkResume(e)} className="inline-form">
          <Field label={t('admin.dashboard.debug.participantId')}>
            <input value={participantId} onChange={(e) => setParticipantId(e.target.value)} maxLength={200} required />
          </Field>
          <Button type="submit" className="button">
            {t('admin.dashboard.debug.check')}
          </Button>
        </form>
        {typeof resumeResult === 'string' ? <p className="notice notice-info">{resumeResult}</p> : resumeResult ? <DataFields data={resumeResult} /> : null}
      </div>
      <div className="card">
        <h3 className="card-title">{t('admin.dashboard.debug.bulkTitle')}</h3>
        <p>{t('admin.dashboard.debug.bulkLead')}</p>
        <p className="notice notice-info">{t('admin.dashboard.debug.guidance')}</p>
        <form className="stacked-form" onSubmit={(e) => submitRegistration(e, form, notify, t, () => register.mutate())}>
          <SyntheticParticipantFields form={form} onChange={(next) => setForm({ ...form, ...next })} maxResponses={studyConfig.preExperiment.numCases} />
          <DatasetConsistencyNote form={form} consistency={consistency} />
          <Field label={t('admin.dashboard.debug.confidenceBias')}>
            <input type="number" min={-2} max={2} step={0.5} value={form.bias} onChange={(e) => setForm({ ...form, bias: e.target.value })} />
          </Field>
          <Button type="submit" className="button button-primary" isDisabled={register.isPending || consistency.state === 'mismatch'}>
            {t('admin.dashboard.debug.register')}
          </Button>
        </form>
      </div>
    </section>
  );
}

/** Main-experiment registration in the structure the participant's screen sends. */
export function RegistrationTab({ notify }: { notify: Notify }) {
  const { t } = useTranslation();
  const refresh = useRefreshData();
  // An empty alpha keeps the session's counterbalanced schedule (each alpha level on an equal share of cases).
  // An empty condition is drawn as for a person (balanced within the dataset).
  const [form, setForm] = useState({ name: 'test_', dataset: studyConfig.defaultDatasetType as DatasetType, num: '10', accuracy: '0.7', alpha: '', condition: '' });
  const register = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.api.admin['register-main-experiment-responses'].$post({
          query: { participant_name: form.name.trim(), dataset_type: form.dataset, num_responses: form.num, accuracy_rate: form.accuracy, ai_alignment_alpha: form.alpha, condition: form.condition },
        }),
      ),
    onSuccess: (r) => {
      notify({ kind: 'success', text: t('admin.dashboard.registration.result', { count: r.registered_cases, name: form.name.trim() }) });
      refresh();
    },
    onError: (err) => notify({ kind: 'error', text: registrationError(t, err) }),
  });
  const consistency = useDatasetConsistency(form);
  const c = (key: string) => t(`admin.dashboard.registration.columns.${key}`);
  return (
    <section className="card">
      <h3 className="card-title">{t('admin.dashboard.registration.title')}</h3>
      <p>{t('admin.dashboard.registration.lead')}</p>
      <p className="notice notice-info">{t('admin.dashboard.debug.guidance')}</p>
      <form className="stacked-form" onSubmit={(e) => submitRegistration(e, form, notify, t, () => register.mutate())}>
        <SyntheticParticipantFields form={form} onChange={(next) => setForm({ ...form, ...next })} maxResponses={studyConfig.mainExperiment.numCases} />
        <DatasetConsistencyNote form={form} consistency={consistency} />
        <Field label={t('admin.dashboard.registration.alpha')}>
          <input
            type="number"
            min={0}
            max={1}
            step={0.25}
            value={form.alpha}
            placeholder={t('admin.dashboard.registration.alphaSchedule')}
            onChange={(e) => setForm({ ...form, alpha: e.target.value })}
          />
        </Field>
        {studyConfig.conditions.length > 1 ? (
          <Field label={t('admin.dashboard.registration.condition')}>
            <select value={form.condition} onChange={(e) => setForm({ ...form, condition: e.target.value })}>
              <option value="">{t('admin.dashboard.registration.conditionDrawn')}</option>
              {studyConfig.conditions.map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name}
                </option>
              ))}
            </select>
          </Field>
        ) : null}
        <Button type="submit" className="button button-primary" isDisabled={register.isPending || consistency.state === 'mismatch'}>
          {t('admin.dashboard.registration.register')}
        </Button>
      </form>
      {register.data ? (
        <div className="table-scroll">
          <p>{t('admin.dashboard.registration.result', { count: register.data.registered_cases, name: form.name })}</p>
          <p data-testid="registered-condition">{t('admin.dashboard.registration.registeredCondition', { condition: register.data.condition })}</p>
          <p data-testid="realised-accuracy">
            {t('admin.dashboard.registration.realisedAccuracy', { value: (register.data.realised_accuracy_rate * 100).toFixed(1), asked: (Number(form.accuracy) * 100).toFixed(0) })}
          </p>
          <table className="table">
            <thead>
              <tr>
                <th>{c('case')}</th>
                <th>{c('original')}</th>
                <th>{c('initial')}</th>
                <th>{c('final')}</th>
                <th>{c('rating')}</th>
              </tr>
            </thead>
            <tbody>
              {register.data.case_details.map((d) => (
                <tr key={d.case_id}>
                  <td>{d.case_id}</td>
                  <td>{d.original_case_id}</td>
                  <td>{d.initial_prediction === null ? '—' : `${d.initial_prediction} (${d.initial_confidence})`}</td>
                  <td>
                    {d.final_prediction} ({d.final_confidence})
                  </td>
                  <td>{d.avg_subjective_rating === null ? '—' : d.avg_subjective_rating.toFixed(1)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

/** Cleanup for test deployments: each action behind a confirm dialog; a full cleanup reloads after 3 s. */
export function CleanupTab({ notify }: { notify: Notify }) {
  const { t } = useTranslation();
  const refresh = useRefreshData();
  const [confirming, setConfirming] = useState<'all' | 'models' | null>(null);
  const all = useMutation({
    mutationFn: async () => unwrap(await api.api.admin.cleanup['all-data'].$delete({ query: { confirm_deletion: 'true' } })),
    onSuccess: (r) => {
      clearExperimentStorage(window.localStorage, r.localStorage_keys_to_clear);
      notify({ kind: 'success', text: t('admin.dashboard.cleanup.allDone', { records: r.total_database_records, files: r.deleted_model_files }) });
      setTimeout(() => window.location.reload(), studyConfig.timingsMs.cleanupReload);
    },
    onError: (err) => notify({ kind: 'error', text: t('admin.dashboard.deleteFailed', { message: err.message }) }),
  });
  const models = useMutation({
    mutationFn: async () => unwrap(await api.api.admin.cleanup['model-files'].$delete({ query: { confirm_deletion: 'true' } })),
    onSuccess: (r) => {
      notify({ kind: 'success', text: t('admin.dashboard.cleanup.modelsDone', { files: r.deleted_files, records: r.deleted_db_records }) });
      refresh();
    },
    onError: (err) => notify({ kind: 'error', text: t('admin.dashboard.cleanup.modelsFailed', { message: err.message }) }),
  });
  return (
    <section>
      <p className="notice notice-warning" role="note">
        {t('admin.dashboard.cleanup.warning')}
      </p>
      <div className="tool-grid">
        <div className="card">
          <h3 className="card-title">{t('admin.dashboard.cleanup.allTitle')}</h3>
          <p>{t('admin.dashboard.cleanup.allBody')}</p>
          <Button className="button button-danger" onPress={() => setConfirming('all')} isDisabled={all.isPending}>
            {t('admin.dashboard.cleanup.allTitle')}
          </Button>
        </div>
        <div className="card">
          <h3 className="card-title">{t('admin.dashboard.cleanup.modelsTitle')}</h3>
          <p>{t('admin.dashboard.cleanup.modelsBody')}</p>
          <Button className="button button-danger" onPress={() => setConfirming('models')} isDisabled={models.isPending}>
            {t('admin.dashboard.cleanup.modelsTitle')}
          </Button>
        </div>
      </div>
      <ConfirmDialog
        isOpen={confirming !== null}
        title={t(confirming === 'all' ? 'admin.dashboard.cleanup.allTitle' : 'admin.dashboard.cleanup.modelsTitle')}
        body={t(confirming === 'all' ? 'admin.dashboard.cleanup.allConfirm' : 'admin.dashboard.cleanup.modelsConfirm')}
        confirmLabel={t('admin.dashboard.actions.confirmDelete')}
        cancelLabel={t('admin.dashboard.actions.cancel')}
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          if (confirming === 'all') all.mutate();
          else models.mutate();
          setConfirming(null);
        }}
      />
    </section>
  );
}
