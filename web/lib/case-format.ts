/**
 * How a case's raw feature values are shown to participants, as each column's definition says
 * (ml-assets/datasets/*.json): value words in the current language for categories, ordinal levels
 * and labelled numbers; money, years, hours, points and x/10 in their formats; an amount with its
 * percentile for `percentile` (speed dating's incomes).
 */
import type { TFunction } from 'i18next';
import { DATASETS, type ShownColumn } from '../../worker/schemas/datasets';
import { isLanguage, LANGUAGES, type DatasetType } from '../../worker/schemas/study-config';
import { localeOf } from './date-time';
import { InvalidAmountError, percentileOf } from './percentile';

type Value = string | number | null | undefined;

const number = (value: number, lng: string, digits?: number) =>
  value.toLocaleString(localeOf(lng), digits === undefined ? undefined : { minimumFractionDigits: digits, maximumFractionDigits: digits });

type NumericColumn = Extract<ShownColumn, { kind: 'numeric' }>;

/** A `plain` value: the column's decimals (every value alike) or up to 3, then its unit in the participant's language, if it gives one per language. */
function plainValue(t: TFunction, lng: string, column: NumericColumn, n: number): string {
  const digits = column.decimals;
  const text = n.toLocaleString(localeOf(lng), digits === undefined ? undefined : { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const unit = typeof column.unit === 'object' ? column.unit[isLanguage(lng) ? lng : LANGUAGES[0]] : undefined;
  return unit ? t('caseCard.withUnit', { value: text, unit }) : text;
}


/** One value of a column, in words or its format; `Unknown` when missing. */
export function formatValue(t: TFunction, lng: string, column: ShownColumn | undefined, value: Value): string {
  if (value === null || value === undefined || value === '') return t('common.unknown');
  if (!column) return String(value);
  const language = isLanguage(lng) ? lng : LANGUAGES[0];
  // An ordinal value is stored as its level's position.
  const key = column.kind === 'ordinal' && typeof value === 'number' ? (column.levels[value] ?? String(value)) : String(value);
  const words = column.values?.[key]?.[language];
  if (words !== undefined) return words;
  if (column.kind !== 'numeric') return key.replace(/-/g, ' ');
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return String(value);
  switch (column.format) {
    case 'age':
      return t('caseCard.years', { value: n });
    case 'years':
      return t('caseCard.duration', { value: n });
    case 'hours':
      return t('caseCard.hours', { value: n });
    case 'points':
      return t('caseCard.points', { value: number(n, lng, column.decimals) });
    case 'out_of_10':
      return t('caseCard.outOf10', { value: n });
    case 'currency':
      return column.currency === 'USD' ? t('caseCard.dollars', { value: number(n, lng) }) : n.toLocaleString(localeOf(lng), { style: 'currency', currency: column.currency ?? 'USD' });
    case 'percentile':
      // The definition's schema requires statistics with this format.
      try {
        // An amount of money as the spec shows speed dating's incomes; any other quantity as a plain value.
        if (column.currency) return t('caseCard.incomeTop', { value: number(n, lng), top: percentileOf(n, column.statistics!).top });
        return t('caseCard.valueTop', { value: plainValue(t, lng, column, n), top: percentileOf(n, column.statistics!, false).top });
      } catch (err) {
        if (err instanceof InvalidAmountError) return t('caseCard.invalidIncome');
        throw err;
      }
    default:
      return plainValue(t, lng, column, n);
  }
}

export function formatFeature(t: TFunction, lng: string, dataset: DatasetType, field: string, value: Value): string {
  // Looked up at each call: a dataset added on the dashboard is registered after this module loads.
  return formatValue(t, lng, DATASETS[dataset]?.columns.find((c) => c.name === field), value);
}

/**
 * Fields shown side by side as one table instead of one line each, as a definition's `matrix`
 * says: the speed-dating partner's importance weights and ratings describe the same six
 * attributes, so a participant compares them row by row (and the case fits a phone screen).
 */
export type FeatureMatrix = { columns: readonly string[]; rows: readonly { id: string; fields: readonly string[] }[] };

/** A dataset's table of fields, if its definition has one (looked up at each call: added datasets register later). */
export function featureMatrixOf(dataset: DatasetType): FeatureMatrix | undefined {
  const matrix = DATASETS[dataset]?.matrix;
  return matrix ? { columns: matrix.columns.map((c) => c.id), rows: matrix.rows.map((r) => ({ id: r.id, fields: r.fields })) } : undefined;
}
