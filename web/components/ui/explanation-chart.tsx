import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, Cell, LabelList, ReferenceLine, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { formatFeature } from '../../lib/case-format';
import { predictionColours } from '../../lib/prediction-style';

/** One feature's bar: its signed share of the explanation (absolute values sum to 1). */
export type FeatureBar = { feature: string; importance: number; abs_importance: number; raw_shap: number };
type Features = Record<string, string | number | null>;

/** Each bar's row: its label line above a thin bar, so a phone needs no label column. */
const ROW_HEIGHT = 38;
const BAR_SIZE = 12;
const CHART_MARGIN = { top: 4, right: 4, bottom: 4, left: 4 };

type Row = { key: string; share: number; label: string; fitted: string };

/** Rough advance of a 12 px label character: wide for CJK, narrow otherwise (enough to keep a label inside the chart). */
const charWidth = (ch: string) => (ch.codePointAt(0)! >= 0x2e80 ? 12 : 6.9);
const textWidth = (text: string) => [...text].reduce((w, ch) => w + charWidth(ch), 0);

/** Shortens `value` with an ellipsis until the whole label fits `width` pixels (the full text stays in the case card and the list for screen readers). */
export function fitLabel(make: (value: string) => string, value: string, width: number): string {
  if (textWidth(make(value)) <= width) return make(value);
  const chars = [...value];
  for (let n = chars.length - 1; n > 0; n--) {
    const label = make(`${chars.slice(0, n).join('').trimEnd()}…`);
    if (textWidth(label) <= width) return label;
  }
  return make('…');
}

/** The chart's bars, largest share first, each with its readable name, this case's value and share. */
export function explanationRows(
  t: ReturnType<typeof useTranslation>['t'],
  lng: string,
  datasetType: DatasetType,
  explanation: { shown: readonly FeatureBar[] },
  features: Features,
  width = Infinity,
): Row[] {
  return [...explanation.shown]
    .sort((a, b) => b.abs_importance - a.abs_importance)
    .map((c) => {
      const name = t(`fields.${datasetType}.${c.feature}.label`, { defaultValue: c.feature });
      const value = formatFeature(t, lng, datasetType, c.feature, features[c.feature]);
      const percent = Math.round(c.abs_importance * 100);
      const shown = percent === 0 && c.abs_importance > 0 ? '<1' : percent;
      const make = (v: string) => t('main.panel.barLabel', { name, value: v, percent: shown });
      return { key: c.feature, share: c.importance, label: make(value), fitted: fitLabel(make, value, width) };
    });
}

/** The label line of a row, drawn just above its bar from the chart's left edge. */
function RowLabel(props: { y?: number | string; value?: unknown }) {
  const y = Number(props.y ?? 0);
  return (
    <text x={CHART_MARGIN.left} y={y - 5} className="explanation-bar-label">
      {String(props.value ?? '')}
    </text>
  );
}

/**
 * The feature-contribution bars: one per feature, largest first, pointing toward the label the
 * feature pushes to, in that label's colour; 'feature importance data unavailable' without any.
 */
export function ExplanationChart({
  datasetType,
  shown,
  features,
  caption,
}: {
  datasetType: DatasetType;
  shown: readonly FeatureBar[];
  features: Features;
  caption?: string;
}) {
  const { t, i18n } = useTranslation();
  const colours = predictionColours[datasetType];
  const positive = t(`main.labels.${datasetType}.positive`);
  const negative = t(`main.labels.${datasetType}.negative`);
  const [width, setWidth] = useState(320);
  const rows = explanationRows(t, i18n.language, datasetType, { shown }, features, width - CHART_MARGIN.left - CHART_MARGIN.right);
  if (!rows.some((r) => r.share !== 0)) return <p className="notice notice-warning">{t('main.panel.unavailable')}</p>;
  const extent = Math.max(0.05, ...rows.map((r) => Math.abs(r.share)));
  return (
    <figure className="explanation-chart">
      <figcaption>{caption ?? t('main.panel.chartCaption')}</figcaption>
      <div className="explanation-legend" aria-hidden="true">
        <span style={{ color: colours.negative }}>← {negative}</span>
        <span style={{ color: colours.positive }}>{positive} →</span>
      </div>
      <div aria-hidden="true">
        <ResponsiveContainer width="100%" height={rows.length * ROW_HEIGHT + CHART_MARGIN.top + CHART_MARGIN.bottom} initialDimension={{ width: 320, height: 200 }} onResize={(w) => setWidth(w)}>
          <BarChart layout="vertical" data={rows} margin={CHART_MARGIN} barSize={BAR_SIZE} accessibilityLayer={false}>
            <XAxis type="number" domain={[-extent, extent]} hide />
            <YAxis type="category" dataKey="key" hide />
            <ReferenceLine x={0} stroke="var(--muted)" />
            <Bar dataKey="share" isAnimationActive={false}>
              {rows.map((r) => (
                <Cell key={r.key} fill={r.share >= 0 ? colours.positive : colours.negative} />
              ))}
              <LabelList dataKey="fitted" content={RowLabel} />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
      {/* What the bars say, for screen readers (the drawing itself is hidden from them). */}
      <ol className="visually-hidden" data-testid="explanation-bars">
        {rows.map((r) => (
          <li key={r.key}>
            {r.label}: {r.share > 0 ? t('main.panel.toward', { label: positive }) : r.share < 0 ? t('main.panel.toward', { label: negative }) : t('main.panel.noInfluence')}
          </li>
        ))}
      </ol>
    </figure>
  );
}
