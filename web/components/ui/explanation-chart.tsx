import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, Cell, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { formatFeature } from '../../lib/case-format';
import { predictionColours } from '../../lib/prediction-style';

/** One feature's bar: its signed share of the explanation (absolute values sum to 1). */
export type FeatureBar = { feature: string; importance: number; abs_importance: number; raw_shap: number };
type Features = Record<string, string | number | null>;

/** A label line's height, the bar's thickness and the space between rows (the label lines sit above their bar). */
const LINE_HEIGHT = 15;
const BAR_SIZE = 12;
const ROW_GAP = 12;
/** From a label's last baseline down to its bar: room for descenders, so the centre mark never touches them. */
const LABEL_GAP = 6;
const CHART_MARGIN = { top: 4, right: 4, bottom: 4, left: 4 };
const LABEL_FONT_PX = 12;

type Row = { key: string; index: number; share: number; label: string; lines: string[] };
export type MeasureText = (text: string) => number;

/** Rough advance of a 12 px label character (wide for CJK), for where no canvas can measure (tests, old browsers). */
export const estimateTextWidth: MeasureText = (text) => [...text].reduce((w, ch) => w + (ch.codePointAt(0)! >= 0x2e80 ? 12 : 6.9), 0);

let pageMeasure: MeasureText | null = null;

/** The label font's real advance, measured on one canvas (made at the first chart) with the page's own font; the estimate without one. */
function pageTextWidth(): MeasureText {
  if (pageMeasure) return pageMeasure;
  const context = typeof document === 'undefined' ? null : document.createElement('canvas').getContext?.('2d');
  if (!context) return (pageMeasure = estimateTextWidth);
  context.font = `${LABEL_FONT_PX}px ${getComputedStyle(document.body).fontFamily}`;
  return (pageMeasure = (text) => context.measureText(text).width);
}

/** Where a line may break: after a space in Latin text, between any two CJK characters. */
const breakUnits = (text: string): string[] => text.match(/[\u2e80-\u9fff\uff00-\uffef]|[^\s\u2e80-\u9fff\uff00-\uffef]+\s*|\s+/g) ?? [text];

/**
 * Wraps a bar's label into lines no wider than `width`, never shortening it: a participant reads
 * every name and value whole. A single word wider than the chart is broken between characters.
 */
export function wrapLabel(text: string, width: number, measure: MeasureText = estimateTextWidth): string[] {
  const lines: string[] = [];
  let line = '';
  const push = (unit: string) => {
    if (line && measure((line + unit).trimEnd()) > width) {
      lines.push(line.trimEnd());
      line = unit.trimStart();
    } else line += unit;
  };
  for (const unit of breakUnits(text)) {
    if (measure(unit.trimEnd()) <= width) push(unit);
    else for (const ch of unit) push(ch);
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines;
}

/** The chart's bars, largest share first, each with its readable name, this case's value and share, wrapped to `width`. */
export function explanationRows(
  t: ReturnType<typeof useTranslation>['t'],
  lng: string,
  datasetType: DatasetType,
  explanation: { shown: readonly FeatureBar[] },
  features: Features,
  width = Infinity,
  measure: MeasureText = estimateTextWidth,
): Row[] {
  return [...explanation.shown]
    .sort((a, b) => b.abs_importance - a.abs_importance)
    .map((c, index) => {
      const name = t(`fields.${datasetType}.${c.feature}.label`, { defaultValue: c.feature });
      const value = formatFeature(t, lng, datasetType, c.feature, features[c.feature]);
      const percent = Math.round(c.abs_importance * 100);
      const shown = percent === 0 && c.abs_importance > 0 ? '<1' : percent;
      const label = t('main.panel.barLabel', { name, value, percent: shown });
      return { key: c.feature, index, share: c.importance, label, lines: wrapLabel(label, width, measure) };
    });
}

type BarShapeProps = { x?: number; width?: number; fill?: string; payload?: Row };

/**
 * One row of the drawing, in its own band of `rowHeight`: the label's lines on top, then the bar
 * from the centre toward the label it pushes to, and the centre mark beside the bar only, so the
 * centre never runs through a label. Recharts places the band and the bar's length (`x`, `width`).
 */
function RowShape({ x = 0, width = 0, fill, payload, rowHeight }: BarShapeProps & { rowHeight: number }) {
  if (!payload) return null;
  // The bar sits at the foot of its band; the label's lines end just above it.
  const barTop = CHART_MARGIN.top + (payload.index + 1) * rowHeight - ROW_GAP / 2 - BAR_SIZE;
  return (
    <g>
      <text x={CHART_MARGIN.left} y={barTop - LABEL_GAP - payload.lines.length * LINE_HEIGHT} className="explanation-bar-label">
        {payload.lines.map((line, i) => (
          <tspan key={i} x={CHART_MARGIN.left} dy={LINE_HEIGHT}>
            {line}
          </tspan>
        ))}
      </text>
      {width !== 0 ? <rect x={Math.min(x, x + width)} y={barTop} width={Math.abs(width)} height={BAR_SIZE} fill={fill} /> : null}
      <line x1={x} x2={x} y1={barTop - 1} y2={barTop + BAR_SIZE + 3} className="explanation-centre" />
    </g>
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
  const measure = pageTextWidth();
  const rows = explanationRows(t, i18n.language, datasetType, { shown }, features, width - CHART_MARGIN.left - CHART_MARGIN.right, measure);
  if (!rows.some((r) => r.share !== 0)) return <p className="notice notice-warning">{t('main.panel.unavailable')}</p>;
  const extent = Math.max(0.05, ...rows.map((r) => Math.abs(r.share)));
  // Every row as tall as the longest label needs: the bars keep one rhythm.
  const rowHeight = Math.max(1, ...rows.map((r) => r.lines.length)) * LINE_HEIGHT + LABEL_GAP + BAR_SIZE + ROW_GAP;
  return (
    <figure className="explanation-chart">
      <figcaption>{caption ?? t('main.panel.chartCaption')}</figcaption>
      <div className="explanation-legend" aria-hidden="true">
        <span style={{ color: colours.negative }}>← {negative}</span>
        <span style={{ color: colours.positive }}>{positive} →</span>
      </div>
      <div aria-hidden="true">
        <ResponsiveContainer width="100%" height={rows.length * rowHeight + CHART_MARGIN.top + CHART_MARGIN.bottom} initialDimension={{ width: 320, height: 200 }} onResize={(w) => setWidth(w)}>
          <BarChart layout="vertical" data={rows} margin={CHART_MARGIN} barSize={BAR_SIZE} barCategoryGap={0} accessibilityLayer={false}>
            <XAxis type="number" domain={[-extent, extent]} hide />
            <YAxis type="category" dataKey="key" hide />
            <Bar dataKey="share" isAnimationActive={false} shape={(props: BarShapeProps) => <RowShape {...props} rowHeight={rowHeight} />}>
              {rows.map((r) => (
                <Cell key={r.key} fill={r.share >= 0 ? colours.positive : colours.negative} />
              ))}
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
