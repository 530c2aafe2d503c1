/**
 * A researcher's own decision task, made up by the test itself (nothing of it is committed): a
 * loan-approval CSV of a different shape from the shipped datasets, with 6 numeric and 4
 * categorical columns (one integer-coded, one ordinal), missing values written two ways, an
 * identifier and a name column that must never be read, and a 30/70 outcome; and its definition.
 * No I/O here: the ML tests write it to disk, the Worker tests post it.
 */
import type { DatasetDefinitionInput } from '../../worker/schemas/dataset-definition';
import { seededRandom } from './factories';

export const LOAN_ID = 'loan_approval';
export const LOAN_FILE = 'loan_approval/applications.csv';

const HOUSING = ['own', 'rent', 'mortgage'];
const PURPOSE = ['car', 'home', 'education', 'business'];
const EDUCATION = ['none', 'secondary', 'bachelor', 'graduate'];
const NAMES = ['Alex Example', 'Sam Sample', 'Kim Placeholder', 'Lee Testcase'];

const pick = <T>(random: () => number, items: readonly T[]) => items[Math.floor(random() * items.length)]!;

/** The purpose a few applications give (`rareLevels`): a category level too rare to be split on alone. */
export const RARE_PURPOSE = 'wedding';

/** The CSV text: `rows` applications, about 30% approved; `rareLevels`: about 1.5 % of them for a rare purpose. */
export function loanCsv(rows: number, seed = 7, options: { rareLevels?: boolean } = {}): string {
  const random = seededRandom(seed);
  const lines = ['applicant_id,applicant_name,income,debt_ratio,years_employed,credit_score,open_accounts,late_payments,housing,purpose,region,education,approved'];
  for (let i = 0; i < rows; i++) {
    const income = Math.round(20_000 + random() * 130_000);
    const debt = Math.round(random() * 80) / 100;
    const years = Math.floor(random() * 30);
    const score = Math.round(350 + random() * 500);
    const accounts = Math.floor(random() * 12);
    const late = random() < 0.7 ? 0 : Math.floor(random() * 6);
    const housing = pick(random, HOUSING);
    const purpose = options.rareLevels && random() < 0.015 ? RARE_PURPOSE : pick(random, PURPOSE);
    const region = 1 + Math.floor(random() * 4);
    const education = pick(random, EDUCATION);
    const z = (score - 600) / 80 + (income - 80_000) / 40_000 - debt * 3 - late * 0.6 + (housing === 'own' ? 0.5 : 0) + EDUCATION.indexOf(education) * 0.3 - 0.5;
    const approved = random() < 1 / (1 + Math.exp(-2 * z)) ? 'yes' : 'no';
    const missing = (value: string | number) => (random() < 0.04 ? (random() < 0.5 ? 'NA' : '') : String(value));
    lines.push(
      [`A${String(100000 + i)}`, `"${pick(random, NAMES)}, applicant"`, missing(income), missing(debt), years, missing(score), accounts, late, missing(housing), purpose, region, education, approved].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

const both = (en: string, ja: string) => ({ en, ja });

/** The definition of the task for a CSV with the given sha256. */
export function loanDefinition(sha256: string): DatasetDefinitionInput {
  return {
    id: LOAN_ID,
    source: { files: [{ path: LOAN_FILE, sha256 }] },
    columns: [
      { name: 'income', kind: 'numeric', integer: true, format: 'currency', currency: 'USD', unit: 'US dollars a year', meaning: 'Yearly income of the applicant', label: both('Income', '年収'), description: both('Yearly income before tax.', '税引前の年収。') },
      { name: 'debt_ratio', kind: 'numeric', meaning: 'Debt payments as a share of income', label: both('Debt ratio', '負債比率'), description: both('Monthly debt payments over monthly income.', '月々の返済額を月収で割った値。') },
      { name: 'years_employed', kind: 'numeric', integer: true, format: 'years', unit: 'years', meaning: 'Years with the current employer', label: both('Years employed', '勤続年数'), description: both('Years with the current employer.', '現在の勤務先での勤続年数。') },
      { name: 'credit_score', kind: 'numeric', integer: true, meaning: 'Credit score (350–850)', label: both('Credit score', '信用スコア'), description: both('Score from the credit bureau, 350 to 850.', '信用情報機関のスコア（350〜850）。') },
      { name: 'open_accounts', kind: 'numeric', integer: true, unit: 'accounts', meaning: 'Open credit accounts', label: both('Open accounts', '保有口座数'), description: both('Credit accounts currently open.', '現在開いている与信口座の数。') },
      { name: 'late_payments', kind: 'numeric', integer: true, unit: 'payments', meaning: 'Late payments in the last two years', label: both('Late payments', '延滞回数'), description: both('Late payments in the last two years.', '過去2年間の延滞回数。') },
      { name: 'housing', kind: 'categorical', meaning: 'Housing situation', label: both('Housing', '住居'), description: both('Whether the applicant owns or rents.', '持ち家か賃貸か。'), values: { own: both('Owns', '持ち家'), rent: both('Rents', '賃貸'), mortgage: both('Mortgage', '住宅ローン返済中') } },
      { name: 'purpose', kind: 'categorical', meaning: 'Purpose of the loan', label: both('Purpose', '用途'), description: both('What the loan is for.', '借入の用途。'), values: { car: both('Car', '自動車'), home: both('Home', '住宅'), education: both('Education', '教育'), business: both('Business', '事業') } },
      { name: 'region', kind: 'categorical', codes: { min: 1, max: 4 }, meaning: 'Sales region (coded 1–4)', label: both('Region', '地域'), description: both('Region of the branch.', '支店の地域。'), values: { '1': both('North', '北部'), '2': both('East', '東部'), '3': both('South', '南部'), '4': both('West', '西部') } },
      { name: 'education', kind: 'ordinal', levels: EDUCATION, meaning: 'Highest education (ordinal)', label: both('Education', '学歴'), description: both('Highest completed education.', '最終学歴。'), values: { none: both('None', 'なし'), secondary: both('Secondary', '中等教育'), bachelor: both("Bachelor's", '学士'), graduate: both('Graduate', '大学院') } },
    ],
    ignoredColumns: ['applicant_id', 'applicant_name'],
    missing: { markers: ['NA'], rows: 'keep' },
    outcome: { column: 'approved', positive: ['yes'], negative: ['no'] },
    texts: {
      en: { name: 'Loan approval', summary: 'Loan applications and whether the bank approved them.', task: 'Predict whether this loan application is approved.', positive: 'Approved', negative: 'Declined', aiPositive: 'Approve', aiNegative: 'Decline' },
      ja: { name: 'ローン審査', summary: 'ローンの申込みと、銀行が承認したかどうかのデータです。', task: 'このローン申込みが承認されるかどうかを予測してください。', positive: '承認', negative: '否決', aiPositive: '承認', aiNegative: '否決' },
    },
    colours: { positive: '#1a7f37', negative: '#a11d1d' },
    understandingSample: {
      prediction: 1,
      features: {
        a: { feature: 'credit_score', value: 780, ai: 0.42, user: 0.35 },
        b: { feature: 'debt_ratio', value: 0.45, ai: -0.24, user: -0.3 },
        c: { feature: 'income', value: 68000, ai: 0.15, user: 0.12 },
        d: { feature: 'region', value: 2, ai: 0.004, user: 0.003 },
      },
      otherAi: 0.186,
      otherUser: 0.227,
    },
    pools: { seed: 2024 },
  };
}
