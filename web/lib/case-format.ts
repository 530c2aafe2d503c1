/**
 * How a case's raw feature values are shown to participants: category codes and labels become
 * words in the current language, money and units get their formats, speed-dating incomes show
 * their percentile and partner ratings show as x/10.
 */
import type { TFunction } from 'i18next';
import type { DatasetType } from '../../worker/schemas/study';
import { incomePercentile, InvalidIncomeError } from './income';

type Value = string | number | null | undefined;

const number = (value: number, lng: string) => value.toLocaleString(lng === 'ja' ? 'ja-JP' : 'en-US');

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
