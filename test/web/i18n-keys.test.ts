import { describe, expect, it } from 'vitest';
import adminEn from '../../web/features/admin/i18n/en.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import mvEn from '../../web/features/model-verification/i18n/en.json';
import mvJa from '../../web/features/model-verification/i18n/ja.json';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { sampleRoleOf, UNDERSTANDING_QUESTIONS } from '../../worker/schemas/understanding-test';
import { datasetTranslations } from '../../worker/schemas/datasets';

type Tree = { [key: string]: string | (string | Tree)[] | Tree };

/** Every leaf path, with array lengths and interpolation variables, so both files must match. */
function shape(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (Array.isArray(value)) return [`${path}[${value.length}]`];
    if (typeof value === 'string') {
      const vars = [...value.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
      return [`${path}(${vars.join(',')})`];
    }
    return shape(value, path);
  });
}

/** Every text, list items included. */
const leaves = (t: Tree): string[] =>
  Object.values(t).flatMap((v) => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap((x) => (typeof x === 'string' ? [x] : leaves(x as Tree))) : leaves(v)));

describe('translations', () => {
  it('ja.json and en.json have identical keys, array lengths and placeholders', () => {
    expect(shape(en as Tree).sort()).toEqual(shape(ja as Tree).sort());
  });

  it.each([
    ['admin', adminEn, adminJa],
    ['model verification', mvEn, mvJa],
  ])("the %s screens' lazily loaded texts match in both languages too, with nothing empty", (_name, enTexts, jaTexts) => {
    expect(shape(enTexts as unknown as Tree).sort()).toEqual(shape(jaTexts as unknown as Tree).sort());
    expect([...leaves(jaTexts as unknown as Tree), ...leaves(enTexts as unknown as Tree)].filter((s) => s.trim() === '')).toEqual([]);
  });

  it('has no empty strings or lists', () => {
    for (const entry of [...shape(ja as Tree), ...shape(en as Tree)]) expect(entry).not.toMatch(/\[0\]$/);
    expect([...leaves(ja as Tree), ...leaves(en as Tree)].filter((s) => s.trim() === '')).toEqual([]);
  });

  it('writes Japanese parentheses full-width', () => {
    // The spec quotes this one with ASCII parentheses; verbatim wins.
    const verbatim = new Set([ja.postSurvey.errors.status]);
    expect(leaves(ja as Tree).filter((s) => /[()]/.test(s) && !verbatim.has(s))).toEqual([]);
  });

  it('keeps the spec texts verbatim in Japanese', () => {
    expect(ja.errors.http.badRequest).toBe('リクエストが無効です。入力内容を確認してください。');
    expect(ja.errors.http.notFound).toBe('データが見つかりません。');
    expect(ja.errors.http.server).toBe('サーバーエラーが発生しました。しばらく後に再試行してください。');
    expect(ja.errors.http.network).toBe('ネットワーク接続に問題があります。インターネット接続を確認してください。');
    expect(ja.errors.display.kinds.dataset_type.message).toBe('データセットタイプの取得に失敗しました。実験を続行できません。');
    expect(ja.errors.display.kinds.session.message).toBe('セッション情報の取得に失敗しました。ページを再読み込みしてください。');
    expect(ja.errors.display.kinds.network.message).toBe('ネットワークエラーが発生しました。接続を確認してください。');
    expect(ja.status.unreachable).toBe('バックエンドに接続できません');
    expect(ja.status.connectionError).toBe('接続エラー');
    expect(ja.main.startFailed).toBe('本実験の開始に失敗しました');
    expect(ja.main.explanationFailed).toBe('AI説明の読み込みに失敗しました');
    expect(ja.main.resumeFromHere).toBe('途中から再開');
    expect(ja.main.needMoreCases).toBe('実験継続のため追加のケースが必要です。管理者にお問い合わせください。');
    expect(datasetTranslations('ja').main.labels).toEqual({
      adult_income: { positive: '>$50,000', negative: '≤$50,000' },
      speed_dating: { positive: 'もう一度会いたい', negative: '会いたくない' },
      compas: { positive: '再犯あり', negative: '再犯なし' },
    });
    expect(ja.postSurvey.noSession).toBe('セッション情報が見つかりません。実験を最初からやり直してください。');
    expect(ja.postSurvey.errors.status).toBe('送信に失敗しました ({{status}})');
    expect(ja.postSurvey.errors.invalid).toBe('入力内容に問題があります');
    expect(ja.postSurvey.errors.format).toBe('データの形式に問題があります');
    expect(ja.postSurvey.errors.network).toBe('送信中にエラーが発生しました。ネットワーク接続を確認してください。');
  });
});

describe('the understanding test', () => {
  it('has a text for every option of every question in both languages: a sample feature, a label, or its own', () => {
    for (const texts of [ja, en]) {
      for (const q of UNDERSTANDING_QUESTIONS) {
        expect((texts.main.test.questions as Record<string, string>)[q.id], q.id).toBeTruthy();
        for (const option of q.options) {
          if (sampleRoleOf(option) || option === 'label_positive' || option === 'label_negative') continue;
          expect((texts.main.test.options as Record<string, string>)[option], `${q.id}: ${option}`).toBeTruthy();
        }
      }
    }
    // An option that only starts like a feature is a text of its own, not the sample's feature "share".
    expect(sampleRoleOf('feature_share')).toBeNull();
    expect(sampleRoleOf('feature_c')).toBe('c');
  });
});
