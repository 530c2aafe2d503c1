/**
 * How a case's raw feature values are shown to participants: category codes and labels become
 * words in the current language, money and units get their formats, speed-dating incomes show
 * their percentile and partner ratings show as x/10.
 */
import type { TFunction } from 'i18next';
import type { DatasetType } from '../../worker/schemas/study-config';
import { localeOf } from './date-time';
import { incomePercentile, InvalidIncomeError } from './income';

type Value = string | number | null | undefined;

const number = (value: number, lng: string) => value.toLocaleString(localeOf(lng));

const CATEGORICAL: Record<DatasetType, readonly string[]> = {
  adult_income: ['workclass', 'education', 'marital_status', 'occupation', 'relationship', 'race', 'sex', 'native_country'],
  speed_dating: ['gender', 'race', 'field_cd', 'career_c'],
  compas: ['sex', 'race', 'c_charge_degree'],
};

export function formatFeature(t: TFunction, lng: string, dataset: DatasetType, field: string, value: Value): string {
  if (value === null || value === undefined || value === '') return t('common.unknown');
  if (CATEGORICAL[dataset].includes(field)) {
    const key = String(value);
    return t(`values.${dataset}.${field}.${key}`, { defaultValue: key.replace(/-/g, ' ') });
  }
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return String(value);
  if (field === 'age') return t('caseCard.years', { value: n });
  if (dataset === 'adult_income') {
    if (field === 'capital_gain' || field === 'capital_loss') return t('caseCard.dollars', { value: number(n, lng) });
    if (field === 'hours_per_week') return t('caseCard.hours', { value: n });
    return number(n, lng);
  }
  if (dataset === 'speed_dating') {
    if (field === 'income') {
      try {
        const { top } = incomePercentile(n);
        return t('caseCard.incomeTop', { value: number(n, lng), top });
      } catch (err) {
        if (err instanceof InvalidIncomeError) return t('caseCard.invalidIncome');
        throw err;
      }
    }
    if (field.startsWith('pf_o_')) return t('caseCard.points', { value: number(n, lng) });
    if (field.endsWith('_o')) return t('caseCard.outOf10', { value: n });
  }
  return number(n, lng);
}

/**
 * Fields shown side by side as one table instead of one line each: the speed-dating partner's
 * importance weights and the partner's ratings describe the same six attributes, so a participant
 * compares them row by row (and the case fits a phone screen).
 */
export type FeatureMatrix = { columns: readonly string[]; rows: readonly { id: string; fields: readonly string[] }[] };

export const FEATURE_MATRICES: Partial<Record<DatasetType, FeatureMatrix>> = {
  speed_dating: {
    columns: ['importance', 'rating'],
    rows: [
      { id: 'attractiveness', fields: ['pf_o_att', 'attr_o'] },
      { id: 'sincerity', fields: ['pf_o_sin', 'sinc_o'] },
      { id: 'intelligence', fields: ['pf_o_int', 'intel_o'] },
      { id: 'fun', fields: ['pf_o_fun', 'fun_o'] },
      { id: 'ambition', fields: ['pf_o_amb', 'amb_o'] },
      { id: 'shared_interests', fields: ['pf_o_sha', 'shar_o'] },
    ],
  },
};
