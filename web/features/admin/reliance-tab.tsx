import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { useState } from 'react';
import { Button, Cell, Checkbox, Column, Row, Table, TableBody, TableHeader, type SortDescriptor } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, ErrorBar, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { StatusBadge } from '../../components/ui/status-badge';
import { api, unwrap } from '../../lib/api';
import { saveResponse } from './downloads';
import { GroupTick, ROW_PX, severalConditions, shownGroupName, useCategoryAxisWidth } from './dashboard-charts';
import { Paging, usePaging } from './data-table';

type Report = InferResponseType<typeof api.api.admin.analytics.reliance.$get, 200>;
type Group = Report['by_condition'][number];
type Notify = (b: { kind: 'error' | 'success'; text: string }) => void;

const k = (key: string) => `admin.dashboard.reliance.${key}`;
const fmt = (v: number | null | undefined) => (v === null || v === undefined ? '—' : Math.abs(v) < 10 ? v.toFixed(3) : v.toFixed(1));

/**
 * One measure per group as bars of the participants' mean with its 95% bootstrap interval, the
 * groups down the side, each named in full with its n (participants / trials), on the measure's
 * own range; the same numbers as a table beneath.
 */
function GroupChart({ groups, metric, label, testId, range }: { groups: { name: string; group: Group }[]; metric: string; label: string; testId: string; range: [number, number] }) {
  const { t } = useTranslation();
  const data = groups.map(({ name, group }) => {
    const m = group.metrics[metric];
    const mean = m?.mean ?? null;
    return {
      name: `${name} (n=${m?.participants ?? 0}/${m?.trials ?? 0})`,
      group: name,
      mean,
      low: m?.ci_low ?? null,
      high: m?.ci_high ?? null,
      // Distances below and above the mean, as recharts draws them.
      ci: mean !== null && m?.ci_low != null && m.ci_high != null ? [mean - m.ci_low, m.ci_high - mean] : [0, 0],
      participants: m?.participants ?? 0,
      trials: m?.trials ?? 0,
    };
  });
  const axisWidth = useCategoryAxisWidth(data.map((d) => d.name));
  return (
    <figure className="card chart-card" data-chart={testId} data-groups={data.length}>
      <figcaption>{label}</figcaption>
      {data.every((d) => d.mean === null) ? (
        <p>{t('admin.dashboard.charts.none')}</p>
      ) : (
        <ResponsiveContainer width="100%" height={ROW_PX * data.length + 50}>
          <BarChart data={data} layout="vertical" margin={{ left: 4, right: 12 }}>
            <CartesianGrid strokeDasharray="3 3" />
            {/* A measure in seconds has no upper end worth drawing to: its axis ends at the data. */}
            <XAxis type="number" domain={range[1] - range[0] > 100 ? [range[0], 'auto'] : range} allowDataOverflow />
            <YAxis type="category" dataKey="name" width={axisWidth} interval={0} tick={<GroupTick width={axisWidth} />} />
            <Tooltip
              formatter={(v, _n, item) => {
                const d = item.payload as { low: number | null; high: number | null; participants: number; trials: number };
                return [`${fmt(Number(v))} [${fmt(d.low)}, ${fmt(d.high)}] (${t(k('nParticipantsTrials'), { participants: d.participants, trials: d.trials })})`, t(k(`metrics.${metric}`))];
              }}
            />
            <Bar dataKey="mean" name={t(k(`metrics.${metric}`))} fill="#2f6fd6" isAnimationActive={false}>
              <ErrorBar dataKey="ci" direction="x" width={6} strokeWidth={1.5} stroke="#1b2b44" />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      )}
      <details className="chart-table">
        <summary>{t(k('asTable'))}</summary>
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{t(k('group'))}</th>
                <th scope="col">{t(k(`metrics.${metric}`))}</th>
                <th scope="col">{t(k('interval'))}</th>
                <th scope="col">{t(k('nColumn'))}</th>
              </tr>
            </thead>
            <tbody>
              {data.map((d) => (
                <tr key={d.group}>
                  <th scope="row">{d.group}</th>
                  <td>{fmt(d.mean)}</td>
                  <td>{d.low === null || d.high === null ? '—' : `${fmt(d.low)} – ${fmt(d.high)}`}</td>
                  <td>
                    {d.participants} / {d.trials}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/** Every pair of conditions' difference on the chosen measure, with its interval. */
function DifferencesTable({ report, metric }: { report: Report; metric: string }) {
  const { t } = useTranslation();
  const rows = report.condition_differences.filter((d) => d.metric === metric);
  if (rows.length === 0) return null;
  return (
    <figure className="card" data-testid="reliance-differences">
      <figcaption>{t(k('differences'))}</figcaption>
      <div className="table-scroll">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{t(k('conditionPair'))}</th>
              <th scope="col">{t(k('difference'))}</th>
              <th scope="col">{t(k('interval'))}</th>
              <th scope="col">n</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={`${d.condition_a}:${d.condition_b}`}>
                <th scope="row">
                  {d.condition_b} − {d.condition_a}
                </th>
                <td>{fmt(d.difference)}</td>
                <td>{d.ci_low === null || d.ci_high === null ? '—' : `${fmt(d.ci_low)} – ${fmt(d.ci_high)}`}</td>
                <td>
                  {d.participants_b} / {d.participants_a}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/** The alpha effect per condition: each model's slope, odds ratio and p, or why none was fitted. */
function AlphaModelsTable({ report }: { report: Report }) {
  const { t } = useTranslation();
  if (report.alpha_models.length === 0) return null;
  return (
    <figure className="card" data-testid="reliance-alpha-models">
      <figcaption>{t(k('alphaModels'))}</figcaption>
      <div className="table-scroll">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{t(k('conditionPair'))}</th>
              <th scope="col">{t(k('outcome'))}</th>
              <th scope="col">{t(k('slope'))}</th>
              <th scope="col">{t(k('oddsRatio'))}</th>
              <th scope="col">{t(k('pValue'))}</th>
              <th scope="col">{t(k('nColumn'))}</th>
            </tr>
          </thead>
          <tbody>
            {report.alpha_models.map((m) => (
              <tr key={`${m.condition}:${m.outcome}`}>
                <th scope="row">{m.condition}</th>
                <td>{t(k(`outcomes.${m.outcome}`))}</td>
                {'refused' in m ? (
                  <td colSpan={3}>{t(k('refused'), { reason: t(k(`refusals.${m.refused}`)) })}</td>
                ) : (
                  <>
                    <td>
                      {fmt(m.slope)} ({fmt(m.slope_se)})
                    </td>
                    <td>
                      {fmt(m.odds_ratio)} [{fmt(Math.exp(m.slope_ci_low))}, {fmt(Math.exp(m.slope_ci_high))}]
                    </td>
                    <td>
                      {m.slope_p < 0.001 ? '< 0.001' : m.slope_p.toFixed(3)} ({fmt(m.slope_t)}, {m.df}){m.few_clusters ? ' †' : ''}
                    </td>
                  </>
                )}
                <td>
                  {m.participants} / {m.trials}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {report.alpha_models.some((m) => 'few_clusters' in m && m.few_clusters) ? (
        <p className="muted" data-testid="few-clusters">
          † {t(k('fewClusters'), { min: report.definitions.alpha_models.few_clusters_below })}
        </p>
      ) : null}
    </figure>
  );
}

/**
 * The reliance tab: every metric by alignment alpha and by dataset (participants' mean with a 95%
 * interval), a participant table sortable by each metric, CSV exports of the same numbers, and a
 * toggle that leaves participants with a data-quality flag out of the group figures.
 */
export function RelianceTab({ notify, includeSynthetic, completedOnly }: { notify: Notify; includeSynthetic: boolean; completedOnly: boolean }) {
  const { t, i18n } = useTranslation();
  const [excludeFlagged, setExcludeFlagged] = useState(false);
  const [metric, setMetric] = useState('agreement');
  const [sort, setSort] = useState<SortDescriptor>({ column: 'user_id', direction: 'ascending' });
  const [paging, setPaging] = usePaging();
  const flag = (v: boolean) => String(v) as 'true' | 'false';
  const population = { exclude_flagged: flag(excludeFlagged), include_synthetic: flag(includeSynthetic), completed_only: flag(completedOnly) };
  // The participant table is sorted and paged by the server: a large study's list stays there.
  const table = {
    participants_offset: String(paging.page * paging.size),
    participants_limit: String(paging.size),
    participants_sort: String(sort.column),
    participants_direction: sort.direction,
  };
  const report = useQuery({
    queryKey: ['admin', 'data', 'reliance', excludeFlagged, includeSynthetic, completedOnly, table],
    queryFn: async () => unwrap(await api.api.admin.analytics.reliance.$get({ query: { ...population, ...table } })),
    placeholderData: keepPreviousData,
    // A stale report is being recomputed: ask again until the newer one is served.
    refetchInterval: (query) => (query.state.data?.computed.stale ? 2000 : false),
  });
  const r = report.data;
  const metrics = r?.definitions.metrics ?? [];
  const rows = r?.participants ?? [];

  const download = async (
    name: 'reliance-participants' | 'reliance-by-alpha' | 'reliance-by-condition' | 'reliance-by-dataset' | 'reliance-condition-differences' | 'reliance-alpha-models',
  ) => {
    try {
      const res = await api.api['enhanced-export'][':name'].$get({ param: { name }, query: { format: 'csv', ...population } });
      await saveResponse(res, name, 'csv');
    } catch (err) {
      notify({ kind: 'error', text: t('admin.dashboard.exports.failed', { status: err instanceof Error ? err.message : String(err) }) });
    }
  };

  if (report.isError) {
    return (
      <p role="alert" className="notice notice-error">
        {t('admin.dashboard.loadFailed', { message: report.error.message })}
      </p>
    );
  }
  if (!r) return <p>{t('common.loading')}</p>;
  const definition = metrics.find((m) => m.id === metric);
  const range: [number, number] = definition ? [definition.range[0], definition.range[1]] : [0, 1];
  const fallbackTrials = r.by_condition.reduce((a, g) => a + g.fallback_trials, 0);
  const fallbackReasons = new Map<string, number>();
  for (const g of r.by_condition) for (const [reason, n] of Object.entries(g.fallback_reasons)) fallbackReasons.set(reason, (fallbackReasons.get(reason) ?? 0) + n);
  const columns = [
    { id: 'user_name', label: t('admin.dashboard.columns.username') },
    { id: 'trials', label: t(k('trials')) },
    ...metrics.map((m) => ({ id: m.id, label: t(k(`metrics.${m.id}`)) })),
  ];
  return (
    <section className="reliance" data-testid="reliance-tab">
      <div className="card reliance-controls">
        <Checkbox className="checkbox" isSelected={excludeFlagged} onChange={setExcludeFlagged}>
          {t(k('excludeFlagged'))}
        </Checkbox>
        <p className="muted" data-testid="reliance-counts">
          {t(k('counts'), { included: r.participants_included, excluded: r.participants_excluded, trials: r.trials })} {t(k(r.completed_only ? 'countedCompleted' : 'countedEveryone'))}
        </p>
        <p className="muted" data-testid="reliance-computed">
          {t(k('computedAt'), { at: new Date(r.computed.at).toLocaleString(i18n.language) })}
          {r.computed.compute_ms >= 1000 ? t(k('computedIn'), { seconds: (r.computed.compute_ms / 1000).toFixed(1) }) : null}
        </p>
        {r.computed.stale ? (
          <p className="notice notice-info" role="status" data-testid="reliance-stale">
            {t(k('stale'))}
          </p>
        ) : null}
        <p className="muted" data-testid="reliance-method">
          {t(k('method'))} {t(k('reproduce'))}
        </p>
        <label>
          {t(k('metric'))}{' '}
          <select value={metric} onChange={(e) => setMetric(e.target.value)} data-testid="reliance-metric">
            {metrics.map((m) => (
              <option key={m.id} value={m.id}>
                {t(k(`metrics.${m.id}`))}
              </option>
            ))}
          </select>
        </label>
        {definition ? (
          <>
            <p className="muted reliance-formula">{t(k(`formulas.${definition.id}`), { defaultValue: `${definition.formula} (${definition.units})` })}</p>
            <p className="muted reliance-source" data-testid="reliance-source">
              {t(k('source'), { source: definition.source })}
            </p>
          </>
        ) : null}
        <div className="button-row">
          <Button className="button button-small" onPress={() => void download('reliance-participants')}>
            {t(k('exportParticipants'))}
          </Button>
          <Button className="button button-small" onPress={() => void download('reliance-by-alpha')}>
            {t(k('exportAlpha'))}
          </Button>
          <Button className="button button-small" onPress={() => void download('reliance-by-condition')}>
            {t(k('exportCondition'))}
          </Button>
          <Button className="button button-small" onPress={() => void download('reliance-by-dataset')}>
            {t(k('exportDataset'))}
          </Button>
          <Button className="button button-small" onPress={() => void download('reliance-condition-differences')}>
            {t(k('exportDifferences'))}
          </Button>
          <Button className="button button-small" onPress={() => void download('reliance-alpha-models')}>
            {t(k('exportModels'))}
          </Button>
        </div>
      </div>
      <div className="chart-grid">
        <GroupChart
          testId="reliance-by-alpha"
          label={t(k('byAlpha'))}
          metric={metric}
          range={range}
          groups={r.by_alpha.map((g) => ({ name: shownGroupName(t, g, severalConditions(r.by_alpha)), group: g }))}
        />
        {r.by_condition.length > 1 ? (
          <GroupChart testId="reliance-by-condition" label={t(k('byCondition'))} metric={metric} range={range} groups={r.by_condition.map((g) => ({ name: g.condition, group: g }))} />
        ) : null}
        <GroupChart
          testId="reliance-by-dataset"
          label={t(k('byDataset'))}
          metric={metric}
          range={range}
          groups={r.by_dataset.map((g) => ({ name: r.by_condition.length > 1 ? `${g.condition} · ${g.dataset_type}` : g.dataset_type, group: g }))}
        />
      </div>
      {fallbackTrials > 0 ? (
        <p className="muted" data-testid="reliance-fallback">
          {t(k('fallback'), {
            count: fallbackTrials,
            reasons: [...fallbackReasons]
              .map(([reason, count]) => t(k('fallbackReasonCount'), { reason: t(k(`fallbackReason.${reason}`), { defaultValue: reason }), count }))
              .join(i18n.language === 'ja' ? '、' : ', '),
          })}
        </p>
      ) : null}
      <DifferencesTable report={r} metric={metric} />
      <AlphaModelsTable report={r} />
      <figure className="card lean-card" data-testid="reliance-lean">
        <figcaption>{t(k('lean'))}</figcaption>
        <p className="muted">{t(k('formulas.bars_lean_with_ai'), { defaultValue: r.definitions.bars_lean_with_ai })}</p>
        <div className="table-scroll">
        <table className="table lean-table">
          <thead>
            <tr>
              <th scope="col">{t(k('group'))}</th>
              <th scope="col">{t(k('leanRate'))}</th>
              <th scope="col">{t(k('trials'))}</th>
            </tr>
          </thead>
          <tbody>
            {r.by_alpha.map((g) => (
              <tr key={`${g.condition}:${g.explanation_kind}:${g.alignment_alpha}`}>
                <th scope="row">{shownGroupName(t, g, severalConditions(r.by_alpha))}</th>
                <td>{g.bars_lean_with_ai.rate === null ? '—' : `${(g.bars_lean_with_ai.rate * 100).toFixed(1)}%`}</td>
                <td>{g.bars_lean_with_ai.trials}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      </figure>
      <div className="table-scroll">
        <Table
          aria-label={t(k('participants'))}
          className="table admin-table"
          sortDescriptor={sort}
          onSortChange={(next) => {
            setSort(next);
            setPaging((p) => ({ ...p, page: 0 }));
          }}
          data-testid="reliance-participants"
        >
          <TableHeader columns={columns}>
            {(c) => (
              <Column id={c.id} isRowHeader={c.id === 'user_name'} allowsSorting>
                {({ sortDirection }) => (
                  <span className="sortable">
                    {c.label} {sortDirection ? <span aria-hidden="true">{sortDirection === 'ascending' ? '▲' : '▼'}</span> : null}
                  </span>
                )}
              </Column>
            )}
          </TableHeader>
          <TableBody items={rows.map((p) => ({ ...p, id: p.user_id }))} dependencies={[columns]} renderEmptyState={() => <p className="table-empty">{t('admin.dashboard.empty')}</p>}>
            {(p) => (
              <Row columns={columns} className={p.included ? undefined : 'row-excluded'}>
                {(c) => (
                  <Cell>
                    {c.id === 'user_name' ? (
                      <>
                        {p.user_name}{' '}
                        {p.quality_flags.map((f) => (
                          <StatusBadge key={f} state="warning" label={t(`admin.dashboard.flags.${f}`)} />
                        ))}
                      </>
                    ) : c.id === 'trials' ? (
                      p.trials
                    ) : (
                      fmt(p.metrics[c.id])
                    )}
                  </Cell>
                )}
              </Row>
            )}
          </TableBody>
        </Table>
      </div>
      <Paging state={paging} total={r.participants_total} onChange={setPaging} />
    </section>
  );
}
