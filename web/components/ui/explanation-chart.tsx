import { useTranslation } from 'react-i18next';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { formatFeature } from '../../lib/case-format';
import { predictionColours } from '../../lib/prediction-style';

/** One feature's bar: its signed share of the explanation (absolute values sum to 1). */
export type FeatureBar = { feature: string; importance: number; abs_importance: number; raw_shap: number };
type Features = Record<string, string | number | null>;

type Row = { key: string; share: number; label: string };

/** The chart's bars, largest share first, each with its readable name, this case's value and share. */
export function explanationRows(
  t: ReturnType<typeof useTranslation>['t'],
  lng: string,
  datasetType: DatasetType,
  explanation: { shown: readonly FeatureBar[] },
  features: Features,
): Row[] {
  return [...explanation.shown]
    .sort((a, b) => b.abs_importance - a.abs_importance)
    .map((c) => {
      const name = t(`fields.${datasetType}.${c.feature}.label`, { defaultValue: c.feature });
      const value = formatFeature(t, lng, datasetType, c.feature, features[c.feature]);
      const percent = Math.round(c.abs_importance * 100);
      const shown = percent === 0 && c.abs_importance > 0 ? '<1' : percent;
      return { key: c.feature, share: c.importance, label: t('main.panel.barLabel', { name, value, percent: shown }) };
    });
}

/**
 * Where a bar lies on its track, in percent of the track's width: from the centre toward the side
 * it pushes to, as long as its share of `extent` (the largest share, at least 5 %) says.
 */
export function barGeometry(share: number, extent: number): { left: number; width: number } {
  const width = Math.min(1, Math.abs(share) / extent) * 50;
  return { left: share < 0 ? 50 - width : 50, width };
}

/**
 * The feature-contribution bars: one per feature, largest first, pointing toward the label the
 * feature pushes to, in that label's colour; 'feature importance data unavailable' without any.
 * Drawn in HTML and CSS, not a charting library: each label is page text that wraps whole where
 * the browser breaks lines, and nothing is measured, so a step shows it in one render (a drawing
 * sized by a measured container took a second render and a forced layout on every step; bench:ui).
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
  const rows = explanationRows(t, i18n.language, datasetType, { shown }, features);
  if (!rows.some((r) => r.share !== 0)) return <p className="notice notice-warning">{t('main.panel.unavailable')}</p>;
  const extent = Math.max(0.05, ...rows.map((r) => Math.abs(r.share)));
  return (
    <figure className="explanation-chart">
      <figcaption>{caption ?? t('main.panel.chartCaption')}</figcaption>
      <div className="explanation-legend" aria-hidden="true">
        <span style={{ color: colours.negative }}>← {negative}</span>
        <span style={{ color: colours.positive }}>{positive} →</span>
      </div>
      {/* Each row: its label whole on top (the browser wraps it), then its bar from the centre; every row as tall as the tallest, so the bars keep one rhythm. */}
      <div className="explanation-rows" aria-hidden="true">
        {rows.map((r) => {
          const bar = barGeometry(r.share, extent);
          return (
            <div key={r.key} className="explanation-row">
              <span className="explanation-bar-label">{r.label}</span>
              <span className="explanation-track">
                {r.share !== 0 ? (
                  <span className="explanation-bar" style={{ left: `${bar.left}%`, width: `${bar.width}%`, background: r.share > 0 ? colours.positive : colours.negative }} />
                ) : null}
              </span>
            </div>
          );
        })}
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
