import type { InferResponseType } from 'hono/client';
import type { TFunction } from 'i18next';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { api } from '../../lib/api';

type Stats = InferResponseType<typeof api.api.admin.stats.$get, 200>;

/** What a group of trials showed: an alpha of the human-aligned explanation, or another kind. */
type ShownKind = 'human_aligned' | 'ai_explanation' | 'ai_only' | 'prediction_only' | 'no_ai';
const KIND_LABELS: Record<Exclude<ShownKind, 'human_aligned'>, string> = { ai_explanation: 'aiExplanation', ai_only: 'aiOnly', prediction_only: 'predictionOnly', no_ai: 'noAi' };

/** A group of cases by what they showed (the alpha, or the kind), prefixed with its condition where the figures span several. */
export function shownGroupName(t: TFunction, g: { condition?: string; explanation_kind: ShownKind; alignment_alpha: number | null }, withCondition = false): string {
  const shown =
    g.explanation_kind === 'human_aligned'
      ? g.alignment_alpha === null
        ? '—'
        : String(g.alignment_alpha)
      : t(`admin.dashboard.charts.${KIND_LABELS[g.explanation_kind]}`);
  return withCondition && g.condition ? `${g.condition} · ${shown}` : shown;
}

/** Whether figures span more than one between-subject condition (their groups then say which). */
export const severalConditions = (groups: readonly { condition?: string }[]) => new Set(groups.map((g) => g.condition)).size > 1;

/** Splits a group's name into lines of at most `perLine` characters, at spaces where it can. */
function wrapLabel(text: string, perLine: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    for (let rest = word; rest.length > 0; ) {
      const room = perLine - (line ? line.length + 1 : 0);
      if (rest.length <= room) {
        line = line ? `${line} ${rest}` : rest;
        rest = '';
      } else if (line) {
        lines.push(line);
        line = '';
      } else {
        lines.push(rest.slice(0, perLine));
        rest = rest.slice(perLine);
      }
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** Pixels per character of the axis font (12 px), wide enough for Japanese. */
const CHAR_PX = 12;

/**
 * The width of a chart's category axis: each group named in full (wrapped over up to three lines),
 * never more than 40% of a phone's width, so the bars keep most of the card.
 */
export function useCategoryAxisWidth(labels: readonly string[]): number {
  const [viewport, setViewport] = useState(() => (typeof window === 'undefined' ? 1280 : window.innerWidth));
  useEffect(() => {
    const onResize = () => setViewport(window.innerWidth);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  const longest = Math.max(4, ...labels.map((l) => l.length));
  return Math.round(Math.min(longest * CHAR_PX * 0.6 + 12, viewport < 640 ? viewport * 0.4 : 260));
}

/** Height per group on a chart with the groups down the side (room for a wrapped name). */
export const ROW_PX = 46;

/** A category axis tick that names its group in full, wrapped to the axis' width (recharts passes x, y and payload). */
export function GroupTick({ x = 0, y = 0, payload, width }: { x?: number; y?: number; payload?: { value: string | number }; width: number }) {
  const lines = wrapLabel(String(payload?.value ?? ''), Math.max(4, Math.floor((width - 8) / (CHAR_PX * 0.6)))).slice(0, 3);
  return (
    <text className="group-tick" x={x} y={y} textAnchor="end" fontSize={12} fill="currentColor" dominantBaseline="middle">
      {lines.map((line, i) => (
        <tspan key={i} x={x} dy={i === 0 ? -((lines.length - 1) * 13) / 2 : 13}>
          {line}
        </tspan>
      ))}
    </text>
  );
}

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
    alpha: `${shownGroupName(t, a, withCondition)} (n=${a.cases_with_initial}/${a.cases})`,
    change: percent(a.judgment_change_rate),
    initial: percent(a.initial_accuracy),
    final: percent(a.final_accuracy),
  }));
  const axisWidth = useCategoryAxisWidth(byAlpha.map((a) => a.alpha));
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
          <ResponsiveContainer width="100%" height={ROW_PX * 1.6 * byAlpha.length + 90}>
            {/* The groups go down the side, each named in full (n = cases with an initial judgement / cases), however narrow the screen. */}
            <BarChart data={byAlpha} layout="vertical" margin={{ left: 4, right: 12 }}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis type="number" unit="%" domain={[0, 100]} />
              <YAxis type="category" dataKey="alpha" width={axisWidth} interval={0} tick={<GroupTick width={axisWidth} />} />
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
