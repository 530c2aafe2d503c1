import type { InferResponseType } from 'hono/client';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { api } from '../../lib/api';

type Stats = InferResponseType<typeof api.api.admin.stats.$get, 200>;

/** The name of a group of trials by what they showed: its alpha, or the AI-only fallbacks. */
type ShownKind = 'human_aligned' | 'ai_only' | 'prediction_only' | 'no_ai';

/** A group of cases by what they showed (the alpha, or the kind), prefixed with its condition where the figures span several. */
export function shownGroupName(t: TFunction, g: { condition?: string; explanation_kind: ShownKind; alignment_alpha: number | null }, withCondition = false): string {
  const shown =
    g.explanation_kind === 'human_aligned'
      ? g.alignment_alpha === null
        ? '—'
        : String(g.alignment_alpha)
      : t(`admin.dashboard.charts.${g.explanation_kind === 'ai_only' ? 'aiOnly' : g.explanation_kind === 'prediction_only' ? 'predictionOnly' : 'noAi'}`);
  return withCondition && g.condition ? `${g.condition} · ${shown}` : shown;
}

/** Whether figures span more than one between-subject condition (their groups then say which). */
export const severalConditions = (groups: readonly { condition?: string }[]) => new Set(groups.map((g) => g.condition)).size > 1;

const percent = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 10);

/** Sessions per group (dataset, condition) as bars, the groups named in full down the side. */
function BalanceChart({ chart, caption, data, groupKey, fill }: { chart: string; caption: string; data: Record<string, string | number>[]; groupKey: string; fill: string }) {
  const { t } = useTranslation();
  return (
    <figure className="card chart-card" data-chart={chart}>
      <figcaption>{caption}</figcaption>
      {data.length === 0 ? (
        <p>{t('admin.dashboard.charts.none')}</p>
      ) : (
        <ResponsiveContainer width="100%" height={Math.max(160, 36 * data.length + 60)}>
          <BarChart data={data} layout="vertical" margin={{ left: 8, right: 16 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis type="number" allowDecimals={false} />
            <YAxis type="category" dataKey={groupKey} width={200} interval={0} />
            <Tooltip />
            <Bar dataKey="sessions" name={t('admin.dashboard.charts.sessions')} fill={fill} />
          </BarChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}

/** What a researcher would rather look at than read: the funnel, the dataset (and condition) balance and the per-alpha rates. */
export function DashboardCharts({ stats }: { stats: Stats }) {
  const { t } = useTranslation();
  const funnel = stats.funnel.map((f) => ({ step: t(`admin.dashboard.charts.steps.${f.step}`), sessions: f.sessions }));
  const withCondition = severalConditions(stats.by_alpha);
  const byAlpha = stats.by_alpha.map((a) => ({
    alpha: `${shownGroupName(t, a, withCondition)} (n=${a.cases})`,
    change: percent(a.judgment_change_rate),
    initial: percent(a.initial_accuracy),
    final: percent(a.final_accuracy),
  }));
  return (
    <section className="chart-grid" aria-label={t('admin.dashboard.charts.title')}>
      <figure className="card chart-card" data-chart="funnel">
        <figcaption>{t('admin.dashboard.charts.funnel')}</figcaption>
        <ResponsiveContainer width="100%" height={220}>
          <BarChart data={funnel} layout="vertical" margin={{ left: 24, right: 16 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis type="number" allowDecimals={false} />
            <YAxis type="category" dataKey="step" width={110} />
            <Tooltip />
            <Bar dataKey="sessions" name={t('admin.dashboard.charts.sessions')} fill="#2f6fd6" />
          </BarChart>
        </ResponsiveContainer>
      </figure>
      <BalanceChart chart="balance" caption={t('admin.dashboard.charts.balance')} data={stats.dataset_balance} groupKey="dataset_type" fill="#3a9b6a" />
      {stats.condition_balance.length > 1 ? (
        <BalanceChart chart="condition-balance" caption={t('admin.dashboard.charts.conditionBalance')} data={stats.condition_balance} groupKey="condition" fill="#7a5cc2" />
      ) : null}
      <figure className="card chart-card chart-wide" data-chart="by-alpha">
        <figcaption>{t('admin.dashboard.charts.byAlpha')}</figcaption>
        {byAlpha.length === 0 ? (
          <p>{t('admin.dashboard.charts.none')}</p>
        ) : (
          <ResponsiveContainer width="100%" height={withCondition ? 40 * byAlpha.length + 80 : 240}>
            {/* Groups of several conditions have long names: they go down the side, each in full. */}
            <BarChart data={byAlpha} layout={withCondition ? 'vertical' : 'horizontal'}>
              <CartesianGrid strokeDasharray="3 3" />
              {withCondition ? <XAxis type="number" unit="%" domain={[0, 100]} /> : <XAxis dataKey="alpha" />}
              {withCondition ? <YAxis type="category" dataKey="alpha" width={240} interval={0} /> : <YAxis unit="%" domain={[0, 100]} />}
              <Tooltip formatter={(v) => `${String(v)}%`} />
              <Legend />
              <Bar dataKey="change" name={t('admin.dashboard.charts.changeRate')} fill="#d68a2f" />
              <Bar dataKey="initial" name={t('admin.dashboard.charts.initialAccuracy')} fill="#9aa5b1" />
              <Bar dataKey="final" name={t('admin.dashboard.charts.finalAccuracy')} fill="#2f6fd6" />
            </BarChart>
          </ResponsiveContainer>
        )}
      </figure>
    </section>
  );
}
