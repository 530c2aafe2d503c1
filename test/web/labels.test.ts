/**
 * One name per thing in each language (issue #46, point 12), following the spec where it words it:
 * a case's two answers read the same in the pre-experiment and the main experiment (part 2 §3
 * words the main experiment's: '>$50,000' / '≤$50,000', 'もう一度会いたい' / '会いたくない'); the
 * post-survey is the spec's ポストサーベイ wherever it is named; a phase's count reads alike.
 */
import { describe, expect, it } from 'vitest';
import adult from '../../ml-assets/datasets/adult_income.json';
import compas from '../../ml-assets/datasets/compas.json';
import speedDating from '../../ml-assets/datasets/speed_dating.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';

const DEFINITIONS = { adult_income: adult, compas, speed_dating: speedDating };

describe('labels that stay the same', () => {
  it.each(Object.entries(DEFINITIONS))("%s: the answers are named alike before and with the AI, in both languages", (_id, definition) => {
    for (const texts of Object.values(definition.texts)) {
      expect(texts.positive).toBe(texts.aiPositive);
      expect(texts.negative).toBe(texts.aiNegative);
    }
  });

  it("uses the spec's own words for the main experiment's answers", () => {
    expect([adult.texts.ja.positive, adult.texts.ja.negative]).toEqual(['>$50,000', '≤$50,000']);
    expect([speedDating.texts.ja.positive, speedDating.texts.ja.negative]).toEqual(['もう一度会いたい', '会いたくない']);
    expect([compas.texts.ja.positive, compas.texts.ja.negative]).toEqual(['再犯あり', '再犯なし']);
  });

  it('names the post-survey one way in each language, the phase badge and the page alike', () => {
    expect(JSON.stringify([ja, adminJa])).not.toContain('事後アンケート');
    expect(ja.progress.phases.post_survey).toBe(ja.postSurvey.title);
    expect(en.progress.phases.post_survey).toBe(en.postSurvey.title);
    expect(JSON.stringify(en)).not.toMatch(/Post survey/);
  });

  it("words a phase's count alike in the pre-experiment and the main experiment", () => {
    expect(en.pre.remaining).toBe(en.main.remaining);
    expect(ja.pre.remaining).toBe(ja.main.remaining);
  });
});
