/**
 * How a condition's incentive (a base payment and a bonus per correct judgement, at most a cap)
 * reads to a participant: in the consent, where the condition is not drawn yet, and in the main
 * experiment's instructions, where it is.
 */
import type { TFunction } from 'i18next';
import { studyConfig } from '../../worker/schemas/study-config';
import { incentiveSchemeOf, type IncentiveScheme } from '../../worker/schemas/condition-plan';

/** An amount in its currency, in the page's language (two decimals where the currency has them). */
export const money = (amount: number, currency: string, language: string) => new Intl.NumberFormat(language === 'ja' ? 'ja-JP' : 'en-GB', { style: 'currency', currency }).format(amount);

/** The scheme in one sentence. */
export function incentiveText(t: TFunction, scheme: IncentiveScheme, language: string): string {
  const m = (x: number) => money(x, scheme.currency, language);
  const pre = scheme.bonus_per_correct_pre > 0 ? t('incentive.preClause', { perCorrectPre: m(scheme.bonus_per_correct_pre) }) : '';
  return t('incentive.scheme', { base: m(scheme.base), perCorrect: m(scheme.bonus_per_correct), cap: m(scheme.cap), pre });
}

type Condition = (typeof studyConfig.conditions)[number];

/**
 * What the consent can say of the study's incentives before the condition is drawn: the scheme
 * itself where every condition pays the same, that a bonus depends on the group (with the largest
 * cap) where only some do or they differ, nothing where none does.
 */
export function consentIncentiveText(t: TFunction, language: string, conditions: readonly Condition[] = studyConfig.conditions): string | null {
  const schemes = conditions.map(incentiveSchemeOf);
  const paying = schemes.filter((s): s is IncentiveScheme => s !== null);
  if (paying.length === 0) return null;
  const same = paying.length === schemes.length && paying.every((s) => JSON.stringify(s) === JSON.stringify(paying[0]));
  if (same) return incentiveText(t, paying[0]!, language);
  const largest = paying.reduce((a, b) => (b.cap > a.cap ? b : a));
  return t('incentive.depends', { cap: money(largest.cap, largest.currency, language) });
}
