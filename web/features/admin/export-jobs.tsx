import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, ProgressBar } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import type { exportJobViewSchema } from '../../../worker/schemas/admin';
import { StatusBadge } from '../../components/ui/status-badge';
import { api, errorFromResponse, unwrap } from '../../lib/api';
import { saveResponse } from './downloads';

type ExportJobView = z.infer<typeof exportJobViewSchema>;
type Notify = (b: { kind: 'error' | 'success'; text: string }) => void;

export const EXPORT_JOBS_KEY = ['admin', 'export-jobs'] as const;
/** How often the list is read again while an export is being written. */
const POLL_MS = 2000;
const BADGE_STATE: Record<ExportJobView['status'], string> = { running: 'warning', completed: 'ready', failed: 'error' };
const k = (key: string) => `admin.dashboard.exports.jobs.${key}`;

/** Starts the all-data export as a Workflow; it then shows in `ExportJobs`. */
export function useStartAllDataExport(notify: Notify) {
  const { t } = useTranslation();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: { format: 'csv' | 'tsv' | 'excel'; userName: string }) =>
      unwrap(await api.api.admin['export-jobs'].$post({ json: { format: input.format, ...(input.userName ? { user_name: input.userName } : {}) } })),
    onSuccess: () => {
      notify({ kind: 'success', text: t(k('started')) });
      void client.invalidateQueries({ queryKey: EXPORT_JOBS_KEY });
    },
    onError: (err) => notify({ kind: 'error', text: t('admin.dashboard.exports.failed', { status: err.message }) }),
  });
}

/**
 * The latest all-data exports and daily backups, written in steps: how far each has got, its file
 * once complete, and a resume for one stopped by repeated failures.
 */
export function ExportJobs({ notify }: { notify: Notify }) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const jobs = useQuery({
    queryKey: EXPORT_JOBS_KEY,
    queryFn: async () => unwrap(await api.api.admin['export-jobs'].$get()),
    refetchInterval: (query) => (query.state.data?.jobs.some((j) => j.status === 'running') ? POLL_MS : false),
  });
  const resume = useMutation({
    mutationFn: async (id: string) => unwrap(await api.api.admin['export-jobs'][':id'].resume.$post({ param: { id } })),
    onSettled: () => void client.invalidateQueries({ queryKey: EXPORT_JOBS_KEY }),
    onError: (err) => notify({ kind: 'error', text: t('admin.dashboard.exports.failed', { status: err.message }) }),
  });
  const download = async (job: ExportJobView) => {
    try {
      const res = await api.api.admin['export-jobs'][':id'].file.$get({ param: { id: job.id } });
      // A copy deleted since (a participant who withdrew) says so in the answer's detail.
      if (!res.ok) throw await errorFromResponse(res);
      await saveResponse(res, 'all-data', 'zip');
    } catch (err) {
      notify({ kind: 'error', text: t('admin.dashboard.exports.failed', { status: err instanceof Error ? err.message : String(err) }) });
    }
  };
  const list = jobs.data?.jobs ?? [];
  if (list.length === 0) return null;
  const number = new Intl.NumberFormat(i18n.language);
  return (
    <section className="export-jobs" aria-label={t(k('title'))}>
      <h4 className="card-subtitle">{t(k('title'))}</h4>
      <ul className="export-job-list">
        {list.map((job) => (
          <li key={job.id} className="export-job" data-export-job={job.status}>
            <div className="export-job-head">
              <StatusBadge state={BADGE_STATE[job.status]} label={t(k(`status.${job.status}`))} />
              <span className="export-job-name">{job.kind === 'backup' ? t(k('backup')) : job.file_name}</span>
              <time dateTime={job.created_at}>{new Date(job.created_at).toLocaleString(i18n.language)}</time>
            </div>
            <ProgressBar
              className="progress-bar export-job-progress"
              aria-label={t(k('progressLabel'), { name: job.file_name })}
              value={job.files_done}
              maxValue={job.files_total}
              valueLabel={t(k('progress'), { done: job.files_done, total: job.files_total, rows: number.format(job.rows) })}
            >
              {({ percentage, valueText }) => (
                <>
                  <span className="export-job-figures">{valueText}</span>
                  <div className="progress-track">
                    <div className="progress-fill" style={{ width: `${percentage ?? 0}%` }} />
                  </div>
                </>
              )}
            </ProgressBar>
            {job.status === 'running' && job.current_file ? <p className="export-job-note">{t(k('current'), { file: job.current_file })}</p> : null}
            {job.status === 'running' && job.failed_attempts > 0 ? (
              <p className="export-job-note">{t(k('retrying'), { count: job.failed_attempts, error: job.last_error ?? '' })}</p>
            ) : null}
            {job.status === 'failed' ? <p className="export-job-note export-job-error">{t(k('stopped'), { error: job.last_error ?? '' })}</p> : null}
            {job.stalled ? <p className="export-job-note export-job-error">{t(k('stalled'))}</p> : null}
            <div className="button-row">
              {job.status === 'completed' ? (
                <Button className="button" onPress={() => void download(job)}>
                  {t(k('download'))}
                </Button>
              ) : null}
              {job.status === 'failed' || job.stalled ? (
                <Button className="button" isDisabled={resume.isPending} onPress={() => resume.mutate(job.id)}>
                  {t(k('resume'))}
                </Button>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
