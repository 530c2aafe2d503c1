import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Checkbox, Radio, RadioGroup } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { InferResponseType } from 'hono/client';
import { RECRUITMENT_STATUS_VALUES } from '../../../worker/schemas/recruitment';
import { GroupTick, ROW_PX, useCategoryAxisWidth } from './dashboard-charts';
import { ConfirmDialog } from '../../components/ui/confirm-dialog';
import { StatusBadge } from '../../components/ui/status-badge';
import { api, unwrap } from '../../lib/api';
import { useDateTime } from '../../lib/date-time';

type Status = (typeof RECRUITMENT_STATUS_VALUES)[number];
type Progress = InferResponseType<typeof api.api.admin.recruitment.progress.$get, 200>;
type Targets = { overallTarget: number | null; cellTarget: number | null; cellTargets: Record<string, number> };
const cellKey = (c: { dataset_type: string; condition: string | null }) => `${c.dataset_type}:${c.condition ?? ''}`;
const minutes = (v: number | null) => (v === null ? '—' : v < 120 ? `${Math.round(v)} min` : `${(v / 60).toFixed(1)} h`);
/** A target typed in a field: a whole number, or empty for no limit. */
const parseTarget = (text: string): number | null | 'invalid' => {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isInteger(n) && n >= 0 ? n : 'invalid';
};

/** Per cell: completed, in progress and abandoned against the target, as bars and as a table. */
function CellsView({ progress }: { progress: Progress }) {
  const { t } = useTranslation();
  const cells = progress.cells.map((c) => ({ ...c, name: `${c.dataset_type} · ${c.condition ?? t(k('noCondition'))}` }));
  const axisWidth = useCategoryAxisWidth(cells.map((c) => c.name));
  return (
    <figure className="card chart-card" data-chart="recruitment-cells" data-groups={cells.length}>
      <figcaption>{t(k('cells'))}</figcaption>
      <ResponsiveContainer width="100%" height={ROW_PX * cells.length + 80}>
        <BarChart data={cells} layout="vertical" margin={{ left: 4, right: 12 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis type="number" allowDecimals={false} />
          <YAxis type="category" dataKey="name" width={axisWidth} interval={0} tick={<GroupTick width={axisWidth} />} />
          <Tooltip />
          <Legend />
          <Bar dataKey="completed" stackId="a" name={t(k('completed'))} fill="#2f6fd6" isAnimationActive={false} />
          <Bar dataKey="in_progress" stackId="a" name={t(k('inProgress'))} fill="#3a9b6a" isAnimationActive={false} />
          <Bar dataKey="abandoned" stackId="a" name={t(k('abandoned'))} fill="#d68a2f" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
      <div className="table-scroll">
        <table className="table" data-testid="recruitment-cells">
          <thead>
            <tr>
              <th scope="col">{t(k('cell'))}</th>
              <th scope="col">{t(k('completed'))}</th>
              <th scope="col">{t(k('inProgress'))}</th>
              <th scope="col">{t(k('abandoned'))}</th>
              <th scope="col">{t(k('screenedOut'))}</th>
              <th scope="col">{t(k('target'))}</th>
            </tr>
          </thead>
          <tbody>
            {cells.map((c) => (
              <tr key={cellKey(c)}>
                <th scope="row">{c.name}</th>
                <td>
                  {c.completed}
                  {c.over_target > 0 ? <span className="muted"> {t(k('overTarget'), { count: c.over_target })}</span> : null}
                </td>
                <td>{c.in_progress}</td>
                <td>{c.abandoned}</td>
                <td>{c.screened_out}</td>
                <td>{c.target ?? t(k('noLimit'))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted">{t(k('abandonNote'), { minutes: progress.abandon_after_minutes })}</p>
    </figure>
  );
}

/** Where people leave, how long each phase takes, and when the study will finish at the current rate. */
function PaceView({ progress }: { progress: Progress }) {
  const { t } = useTranslation();
  const time = useDateTime();
  const m = progress.median_minutes;
  return (
    <div className="chart-grid">
      <figure className="card chart-card" data-testid="recruitment-funnel">
        <figcaption>{t(k('funnel'))}</figcaption>
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{t(k('step'))}</th>
                <th scope="col">{t(k('sessions'))}</th>
                <th scope="col">{t(k('leftBeforeNext'))}</th>
              </tr>
            </thead>
            <tbody>
              {progress.funnel.map((f) => (
                <tr key={f.step}>
                  <th scope="row">{t(k(`steps.${f.step}`))}</th>
                  <td>{f.sessions}</td>
                  <td>{f.left_before_next === null ? '—' : `${f.left_before_next}${f.sessions > 0 ? ` (${Math.round((f.left_before_next / f.sessions) * 100)}%)` : ''}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </figure>
      <figure className="card chart-card" data-testid="recruitment-pace">
        <figcaption>{t(k('pace'))}</figcaption>
        <dl className="kv">
          <dt>{t(k('medianTotal'))}</dt>
          <dd>{minutes(m.total)}</dd>
          <dt>{t(k('medianPhases'))}</dt>
          <dd>
            {t(k('phases'), { consent: minutes(m.consent), pre: minutes(m.pre_experiment), main: minutes(m.main_experiment), survey: minutes(m.post_survey) })}
          </dd>
          <dt>{t(k('rate'))}</dt>
          <dd>{t(k('rateValue'), { perHour: progress.completions_per_hour.toFixed(2), day: progress.completions_last_24h })}</dd>
          <dt>{t(k('remaining'))}</dt>
          <dd>{progress.remaining ?? t(k('noLimit'))}</dd>
          <dt>{t(k('projected'))}</dt>
          <dd>{progress.projected_finish ? time(progress.projected_finish) : t(k(progress.remaining === null ? 'noTarget' : 'noRate'))}</dd>
        </dl>
      </figure>
    </div>
  );
}

/** The targets in force, editable: overall, every cell, and each cell on its own. */
function TargetsForm({ progress, inForce, onSave, pending }: { progress: Progress; inForce: Targets; onSave: (t: Targets) => void; pending: boolean }) {
  const { t } = useTranslation();
  const cells = progress.cells.filter((c) => c.condition !== null);
  const [overall, setOverall] = useState(inForce.overallTarget?.toString() ?? '');
  const [every, setEvery] = useState(inForce.cellTarget?.toString() ?? '');
  const [own, setOwn] = useState<Record<string, string>>(() => Object.fromEntries(Object.entries(inForce.cellTargets).map(([key, v]) => [key, String(v)])));
  const parsed = { overall: parseTarget(overall), every: parseTarget(every), own: Object.entries(own).map(([key, v]) => [key, parseTarget(v)] as const) };
  const invalid = parsed.overall === 'invalid' || parsed.every === 'invalid' || parsed.own.some(([, v]) => v === 'invalid') || parsed.overall === 0 || parsed.every === 0;
  const save = () => {
    if (invalid) return;
    onSave({
      overallTarget: parsed.overall as number | null,
      cellTarget: parsed.every as number | null,
      cellTargets: Object.fromEntries(parsed.own.filter(([, v]) => v !== null) as [string, number][]),
    });
  };
  return (
    <div className="card" data-testid="recruitment-targets">
      <h3 className="card-title">{t(k('targets'))}</h3>
      <p className="muted">{t(k('targetsLead'))}</p>
      <div className="form-grid">
        <label>
          {t(k('overallTarget'))}
          <input type="number" min={1} inputMode="numeric" value={overall} onChange={(e) => setOverall(e.target.value)} data-testid="target-overall" />
        </label>
        <label>
          {t(k('everyCellTarget'))}
          <input type="number" min={1} inputMode="numeric" value={every} onChange={(e) => setEvery(e.target.value)} data-testid="target-every" />
        </label>
        {cells.map((c) => (
          <label key={cellKey(c)}>
            {`${c.dataset_type} · ${c.condition}`}
            <input
              type="number"
              min={0}
              inputMode="numeric"
              value={own[cellKey(c)] ?? ''}
              placeholder={every}
              onChange={(e) => setOwn((o) => ({ ...o, [cellKey(c)]: e.target.value }))}
              data-testid={`target-${cellKey(c)}`}
            />
          </label>
        ))}
      </div>
      {invalid ? (
        <p role="alert" className="notice notice-error">
          {t(k('targetsInvalid'))}
        </p>
      ) : null}
      <div className="button-row">
        <Button className="button button-primary" isDisabled={invalid || pending} onPress={save}>
          {t(k('saveTargets'))}
        </Button>
      </div>
    </div>
  );
}
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
  const progress = useQuery({ queryKey: ['admin', 'data', 'recruitment', 'progress'], queryFn: async () => unwrap(await api.api.admin.recruitment.progress.$get()) });
  const saveTargets = useMutation({
    mutationFn: async (targets: Targets) =>
      unwrap(await api.api.admin.recruitment.$put({ json: { status: state.data!.status, in_progress_may_finish: state.data!.in_progress_may_finish, targets } })),
    onSuccess: () => {
      notify({ kind: 'success', text: t(k('targetsSaved')) });
      void client.invalidateQueries({ queryKey: ['admin', 'data'] });
    },
    onError: (err) => notify({ kind: 'error', text: t(k('failed'), { message: err.message }) }),
  });
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
              {/* One box beside the radio: the state, its meaning beneath. */}
              <span>
                <strong>{t(`recruitment.status.${s}`)}</strong>
                <br />
                <span className="muted">{t(k(`explain.${s}`))}</span>
              </span>
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
      {progress.data ? (
        <>
          <CellsView progress={progress.data} />
          <PaceView progress={progress.data} />
          {current ? (
            <TargetsForm
              key={JSON.stringify(current.targets_in_force)}
              progress={progress.data}
              inForce={current.targets_in_force}
              onSave={(targets) => saveTargets.mutate(targets)}
              pending={saveTargets.isPending}
            />
          ) : null}
        </>
      ) : progress.isError ? (
        <p role="alert" className="notice notice-error">
          {t('admin.dashboard.loadFailed', { message: progress.error.message })}
        </p>
      ) : null}
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
