import { describe, expect, it } from 'vitest';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';

type Tree = { [key: string]: string | string[] | Tree };

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
const leaves = (t: Tree): string[] => Object.values(t).flatMap((v) => (typeof v === 'string' ? [v] : Array.isArray(v) ? v : leaves(v)));

describe('translations', () => {
  it('ja.json and en.json have identical keys, array lengths and placeholders', () => {
    expect(shape(en as Tree).sort()).toEqual(shape(ja as Tree).sort());
  });

  it('has no empty strings or lists', () => {
    for (const entry of [...shape(ja as Tree), ...shape(en as Tree)]) expect(entry).not.toMatch(/\[0\]$/);
    expect([...leaves(ja as Tree), ...leaves(en as Tree)].filter((s) => s.trim() === '')).toEqual([]);
  });

  it('writes Japanese parentheses full-width', () => {
    expect(leaves(ja as Tree).filter((s) => /[()]/.test(s))).toEqual([]);
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
  });
});
