import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Checkbox, Radio, RadioGroup } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { RECRUITMENT_STATUS_VALUES } from '../../../worker/schemas/recruitment';
import { ConfirmDialog } from '../../components/ui/confirm-dialog';
import { StatusBadge } from '../../components/ui/status-badge';
import { api, unwrap } from '../../lib/api';
import { useDateTime } from '../../lib/date-time';

type Status = (typeof RECRUITMENT_STATUS_VALUES)[number];
type Notify = (b: { kind: 'error' | 'success'; text: string }) => void;
const k = (key: string) => `admin.dashboard.recruitment.${key}`;

/**
 * Recruitment: whether the study admits newcomers. Open, paused (nobody new; everyone in progress
 * continues) or closed (nobody new; those in progress finish unless told otherwise), changed after
 * a confirmation, recorded in the audit log, in effect on every copy of the Worker within seconds.
 */
export function RecruitmentTab({ notify }: { notify: Notify }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const time = useDateTime();
  const state = useQuery({ queryKey: ['admin', 'data', 'recruitment'], queryFn: async () => unwrap(await api.api.admin.recruitment.$get()) });
  const [choice, setChoice] = useState<Status | null>(null);
  const [mayFinish, setMayFinish] = useState(true);
  const [confirming, setConfirming] = useState(false);
  const change = useMutation({
    mutationFn: async (body: { status: Status; in_progress_may_finish: boolean }) => unwrap(await api.api.admin.recruitment.$put({ json: body })),
    onSuccess: (r) => {
      notify({ kind: 'success', text: t(k('changed'), { status: t(`recruitment.status.${r.status}`) }) });
      setChoice(null);
      void client.invalidateQueries({ queryKey: ['admin', 'data'] });
    },
    onError: (err) => notify({ kind: 'error', text: t(k('failed'), { message: err.message }) }),
  });
  const current = state.data;
  const selected = choice ?? current?.status ?? 'open';
  const finish = choice === 'closed' ? mayFinish : (current?.in_progress_may_finish ?? true);
  const changed = current !== undefined && (selected !== current.status || (selected === 'closed' && finish !== current.in_progress_may_finish));
  return (
    <section className="recruitment-tab" data-testid="recruitment-tab">
      <div className="card">
        <h3 className="card-title">{t(k('title'))}</h3>
        {state.isError ? (
          <p role="alert" className="notice notice-error">
            {t('admin.dashboard.loadFailed', { message: state.error.message })}
          </p>
        ) : null}
        {current ? (
          <p data-testid="recruitment-current">
            {t(k('current'))}{' '}
            <StatusBadge state={current.status === 'open' ? 'healthy' : current.status === 'paused' ? 'warning' : 'unknown'} label={t(`recruitment.status.${current.status}`)} />
            {current.status === 'closed' ? <span className="muted"> {t(k(current.in_progress_may_finish ? 'finishing' : 'stopped'))}</span> : null}
            {current.changed_at ? <span className="muted"> · {t(k('since'), { time: time(current.changed_at) })}</span> : null}
          </p>
        ) : (
          <p>{t('common.loading')}</p>
        )}
        <RadioGroup className="radio-group" value={selected} onChange={(v) => setChoice(v as Status)} aria-label={t(k('title'))}>
          {RECRUITMENT_STATUS_VALUES.map((s) => (
            <Radio key={s} value={s} className="radio">
              <strong>{t(`recruitment.status.${s}`)}</strong>
              <span className="muted"> {t(k(`explain.${s}`))}</span>
            </Radio>
          ))}
        </RadioGroup>
        {selected === 'closed' ? (
          <Checkbox className="checkbox" isSelected={finish} onChange={setMayFinish}>
            {t(k('mayFinish'))}
          </Checkbox>
        ) : null}
        <div className="button-row">
          <Button className="button button-primary" isDisabled={!changed || change.isPending} onPress={() => setConfirming(true)}>
            {t(k('apply'))}
          </Button>
        </div>
        <p className="muted">{t(k('note'))}</p>
      </div>
      <ConfirmDialog
        isOpen={confirming}
        title={t(k('confirmTitle'), { status: t(`recruitment.status.${selected}`) })}
        body={t(k(`confirm.${selected === 'closed' && !finish ? 'closedStop' : selected}`))}
        confirmLabel={t(k('apply'))}
        cancelLabel={t('admin.dashboard.actions.cancel')}
        isPending={change.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          change.mutate({ status: selected, in_progress_may_finish: selected === 'closed' ? finish : true });
        }}
      />
    </section>
  );
}
