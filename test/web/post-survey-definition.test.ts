import { describe, expect, it } from 'vitest';
import { answeredQuestions, checkAnswer, issueMessage, postSurvey, sectionById, SECTION_IDS, type AnsweredQuestion } from '../../worker/schemas/post-survey';
import { postSurveyDefinitionSchema } from '../../worker/schemas/post-survey-schemas';
import { postSurveyInstrument } from '../../worker/schemas/post-survey-instrument';

const question = (name: string): AnsweredQuestion => {
  for (const s of postSurvey.sections) for (const q of answeredQuestions(s)) if (q.name === name) return q;
  throw new Error(`no question ${name}`);
};
const names = (id: string) => answeredQuestions(sectionById(id)!).map((q) => q.name);
const CONTEXTS = ['high_stakes', 'low_stakes', 'subjective', 'objective'];

describe('post-survey definition', () => {
  it('has the five sections in the spec’s order', () => {
    expect(postSurvey.sections.map((s) => s.id)).toEqual([...SECTION_IDS]);
  });

  it('has every demographic field with the spec’s options and ranges', () => {
    expect(question('age')).toMatchObject({ kind: 'number', min: 18, max: 120 });
    const options = (name: string) => (question(name) as Extract<AnsweredQuestion, { kind: 'radio' }>).options.map((o) => o.value);
    expect(options('gender_identity')).toEqual(['male', 'female', 'other', 'prefer_not_to_say']);
    expect(options('ethnicity')).toEqual(['asian', 'european', 'african', 'american', 'other', 'prefer_not_to_say']);
    expect(options('education_level')).toEqual(['high_school_or_less', 'bachelor', 'graduate', 'prefer_not_to_say']);
    expect(options('occupation')).toEqual(['student', 'employed', 'self_employed', 'unemployed', 'other', 'prefer_not_to_say']);
    for (const n of ['ai_trust_before_disclosure', 'ai_understanding_before_disclosure', 'ai_explanation_helpfulness_before']) expect(question(n)).toMatchObject({ kind: 'scale', min: 1, max: 5 });
  });

  it('has every benevolent-deception field with its limits', () => {
    for (const n of ['long_term_trust_rating', 'long_term_understanding_rating', 'perceived_effectiveness_general', 'initial_reaction_anxiety']) {
      expect(question(n)).toMatchObject({ kind: 'scale', min: 1, max: 5 });
      expect(question(`${n}_positive_reason`)).toMatchObject({ kind: 'text', maxLength: 600 });
      expect(question(`${n}_negative_reason`)).toMatchObject({ kind: 'text', maxLength: 600 });
    }
    expect(question('initial_reaction_feelings')).toMatchObject({ kind: 'text', maxLength: 800 });
    expect(question('ethical_acceptability_acceptable_conditions')).toMatchObject({ kind: 'text', maxLength: 800 });
    expect(question('ethical_acceptability_unacceptable_conditions')).toMatchObject({ kind: 'text', maxLength: 800 });
    for (const c of CONTEXTS) {
      expect(question(`ethical_acceptability_${c}`)).toMatchObject({ kind: 'scale', max: 5 });
      expect(question(`disclosure_necessity_${c}`)).toMatchObject({ kind: 'scale', max: 5, previousAnswers: CONTEXTS.map((x) => `ethical_acceptability_${x}`) });
      expect(question(`disclosure_content_what_${c}`)).toMatchObject({ kind: 'multiselect', otherMaxLength: 500 });
      expect(question(`disclosure_content_how_${c}`)).toMatchObject({ kind: 'multiselect', otherMaxLength: 500 });
    }
  });

  it('keys the Big Five (7-point, reverse 2, 4, 6, 8, 10), locus of control (7-point) and need for cognition (5-point, reverse where _r)', () => {
    expect(names('bigfive')).toEqual(Array.from({ length: 10 }, (_, i) => `bfi_${i + 1}`));
    for (const q of answeredQuestions(sectionById('bigfive')!)) {
      expect(q).toMatchObject({ kind: 'scale', max: 7 });
      expect(Boolean((q as { reverse?: boolean }).reverse)).toBe(Number(q.name.slice(4)) % 2 === 0);
    }
    const factors = answeredQuestions(sectionById('bigfive')!).map((q) => (q as { factor?: string }).factor);
    for (const f of ['extraversion', 'agreeableness', 'conscientiousness', 'emotional_stability', 'openness']) expect(factors.filter((x) => x === f)).toHaveLength(2);
    const locus = answeredQuestions(sectionById('locus')!);
    expect(locus.map((q) => q.name)).toEqual(Array.from({ length: 18 }, (_, i) => `loc_${i + 1}`));
    expect(locus.filter((q) => (q as { factor?: string }).factor === 'internal_control')).toHaveLength(9);
    expect(locus.filter((q) => (q as { factor?: string }).factor === 'external_control')).toHaveLength(9);
    const ncs = answeredQuestions(sectionById('cognition')!).filter((q) => q.name.startsWith('ncs_'));
    expect(ncs).toHaveLength(18);
    for (const q of ncs) {
      expect(q).toMatchObject({ kind: 'scale', max: 5, factor: 'need_for_cognition' });
      expect(Boolean((q as { reverse?: boolean }).reverse)).toBe(q.name.endsWith('_r'));
    }
    expect(question('experiment_rating')).toMatchObject({ kind: 'scale', max: 7 });
    expect(question('overall_feedback')).toMatchObject({ kind: 'text', optional: true });
  });

  it('has about 80 questions, every one worded in both languages', () => {
    const all = postSurvey.sections.flatMap((s) => answeredQuestions(s));
    expect(all.length).toBeGreaterThanOrEqual(75);
    for (const q of all) expect(q.label.ja && q.label.en).toBeTruthy();
  });

  it('refuses a definition with a duplicated name or a section out of order', () => {
    const [first, second, ...rest] = postSurveyInstrument.sections;
    expect(postSurveyDefinitionSchema.safeParse({ sections: [second, first, ...rest] }).success).toBe(false);
    const dup = { ...first!, questions: [...first!.questions, first!.questions[0]!] };
    expect(postSurveyDefinitionSchema.safeParse({ sections: [dup, second, ...rest] }).success).toBe(false);
  });
});

describe('post-survey answers (part 2 §5)', () => {
  it('give the spec’s messages verbatim', () => {
    const age = question('age');
    const msg = (value: unknown) => issueMessage(checkAnswer(age, value)!, '年齢', 'ja');
    expect(msg(null)).toBe('年齢は必須項目です');
    expect(msg('  ')).toBe('年齢は必須項目です');
    expect(msg('abc')).toBe('年齢は数値で入力してください');
    expect(msg(17)).toBe('年齢は18以上の値を入力してください');
    expect(msg(121)).toBe('年齢は120以下の値を入力してください');
    expect(issueMessage(checkAnswer(question('gender_identity'), 'x')!, '性自認', 'ja')).toBe('性自認は有効な選択肢から選んでください');
    expect(issueMessage(checkAnswer(question('bfi_1'), 0)!, 'Q', 'ja')).toBe('Qは1から7の範囲で選択してください');
    expect(issueMessage(checkAnswer(question('initial_reaction_feelings'), 'x'.repeat(801))!, 'Q', 'ja')).toBe('Qは800文字以内で入力してください');
    expect(checkAnswer(question('overall_feedback'), '')).toBeNull();
    expect(checkAnswer(question('age'), '45')).toBeNull();
  });
});
