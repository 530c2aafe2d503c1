/**
 * How an incentive reads to a participant (issue #58, element 6): the scheme in the instructions,
 * in both languages, and what the consent can say before the condition is drawn.
 */
import i18next from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { consentIncentiveText, incentiveText, money } from '../../web/lib/incentive';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { conditionSchema } from '../../worker/schemas/study';

const PAID = { base: 2, bonusPerCorrect: 0.05, cap: 2.5, currency: 'GBP' };
const condition = (name: string, incentive?: object) => conditionSchema.parse({ name, shows: 'none', judgements: 2, ...(incentive ? { incentive } : {}), share: 1 });

let t: typeof i18next.t;
beforeAll(async () => {
  const instance = i18next.createInstance();
  await instance.init({ lng: 'en', resources: { en: { translation: en }, ja: { translation: ja } } });
  t = instance.t.bind(instance);
});

describe('incentive texts', () => {
  it('say the scheme with its amounts in the currency, with the pre-experiment bonus only where it pays', () => {
    const scheme = { base: 2, bonus_per_correct: 0.05, bonus_per_correct_pre: 0, cap: 2.5, currency: 'GBP' };
    expect(incentiveText(t, scheme, 'en')).toBe(
      'A base payment of £2.00, plus a bonus of £0.05 for each case of the main experiment whose final judgement is correct (the bonus is at most £2.50).',
    );
    expect(incentiveText(t, { ...scheme, bonus_per_correct_pre: 0.01 }, 'en')).toContain('and £0.01 for each correct case of the pre-experiment');
    const japanese = incentiveText(((key: string, options: object) => t(key, { ...options, lng: 'ja' })) as typeof t, scheme, 'ja');
    expect(japanese).toContain('基本報酬 £2.00');
    expect(japanese).toContain('上限 £2.50');
    expect(money(1200, 'JPY', 'ja')).toBe('￥1,200');
  });

  it('in the consent: the scheme where every condition pays the same, that it depends on the group where not, nothing where none pays', () => {
    expect(consentIncentiveText(t, 'en', [condition('a', PAID), condition('b', PAID)])).toContain('A base payment of £2.00');
    expect(consentIncentiveText(t, 'en', [condition('a', PAID), condition('b')])).toBe(
      "Depending on the group you are assigned to, you may receive a bonus for correct judgements (at most £2.50); the main experiment's instructions explain it before you start.",
    );
    expect(consentIncentiveText(t, 'en', [condition('a'), condition('b')])).toBeNull();
  });
});
