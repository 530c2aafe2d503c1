/**
 * The post-survey's rules, read from its one definition (`post-survey-instrument.ts`, in the shape
 * `post-survey-definition.ts` gives): how an answer is checked (part 2 §5, the same code in the
 * browser and the Worker) and how the instruments are scored. Kept free of zod, since the browser
 * loads it; the definition's schema and the wire shapes of `/api/post-survey` are in
 * `post-survey-schemas.ts`.
 */
import { postSurveyInstrument } from './post-survey-instrument';
import { FACTORS, type AnsweredQuestion, type Factor, type PostSurveyDefinition, type Question, type Section, type SectionId } from './post-survey-definition';
import { isCleanText } from './text';

export * from './post-survey-definition';

/** Factor scores are item means, except need for cognition, which is the item total (18–90). */
export const FACTOR_SCORING: Record<Factor, 'mean' | 'sum'> = {
  extraversion: 'mean',
  agreeableness: 'mean',
  conscientiousness: 'mean',
  emotional_stability: 'mean',
  openness: 'mean',
  internal_control: 'mean',
  external_control: 'mean',
  need_for_cognition: 'sum',
};

/** The study's post-survey (checked against its schema, `post-survey-schemas.ts`, when the Worker starts and in the tests). */
export const postSurvey: PostSurveyDefinition = postSurveyInstrument;

export const sectionById = (id: string): Section | undefined => postSurvey.sections.find((s) => s.id === id);

/** What a participant's condition showed them: the AI, its explanation, an explanation adjusted toward their own judgement. */
export type Audience = { ai: boolean; explanations: boolean; adjusted: boolean };

/**
 * The survey as a participant of the given audience answers it: questions about what their
 * condition did not show left out, and the disclosure telling them what was true for them.
 */
export function postSurveyFor(audience: Audience, definition: PostSurveyDefinition = postSurvey): PostSurveyDefinition {
  const asked = (q: Question) => q.kind === 'info' || !q.shownTo || (q.shownTo === 'ai' ? audience.ai : audience.explanations);
  return {
    sections: definition.sections.map((section) => ({
      ...section,
      questions: section.questions
        .filter(asked)
        .map((q) => (q.kind === 'info' && q.bodyUnadjusted && !audience.adjusted ? { ...q, body: q.bodyUnadjusted } : q)),
    })),
  };
}
export const answeredQuestions = (section: Section): AnsweredQuestion[] => section.questions.filter((q): q is AnsweredQuestion => q.kind !== 'info');
export const isRequired = (q: AnsweredQuestion) => !q.optional;

/**
 * Each answered question's name for messages, unique within its section: a label the section
 * uses more than once (the reasons asked after each rating) is named with the question it
 * follows ("Helpfulness… — Why (the positive side)"), so no two messages read the same.
 */
export function questionLabels(section: Section, lang: 'ja' | 'en'): Map<string, string> {
  const questions = answeredQuestions(section);
  const uses = new Map<string, number>();
  for (const q of questions) uses.set(q.label[lang], (uses.get(q.label[lang]) ?? 0) + 1);
  const names = new Map<string, string>();
  let lead: string | null = null;
  for (const q of questions) {
    const label = q.label[lang];
    if (uses.get(label) === 1) {
      lead = label;
      names.set(q.name, label);
    } else {
      names.set(q.name, lead ? `${lead} — ${label}` : label);
    }
  }
  return names;
}

/** A multiselect answer, stored as a JSON string (part 2 §3). */
export type MultiselectAnswer = { selections: string[]; other_text: string };
export const OTHER_OPTION = 'other';

export type AnswerValue = string | number | null | undefined;
export type SectionAnswers = Record<string, AnswerValue>;

/** Part 2 §5: empty means null, an empty string or whitespace only. */
const isEmpty = (v: unknown) => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');

export function parseMultiselect(value: unknown): MultiselectAnswer | null {
  if (typeof value !== 'string') return null;
  try {
    const parsed = JSON.parse(value) as { selections?: unknown; other_text?: unknown } | null;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    const { selections, other_text } = parsed;
    if (!Array.isArray(selections) || !selections.every((x) => typeof x === 'string') || typeof other_text !== 'string') return null;
    return { selections: selections as string[], other_text };
  } catch {
    return null;
  }
}

const multiselectIsEmpty = (v: unknown) => {
  const m = parseMultiselect(v);
  return !m || (m.selections.length === 0 && m.other_text.trim() === '');
};

export type ValidationIssue =
  | { code: 'required' }
  | { code: 'not_string' }
  | { code: 'too_short'; n: number }
  | { code: 'too_long'; n: number }
  | { code: 'not_number' }
  | { code: 'below_min'; min: number }
  | { code: 'above_max'; max: number }
  | { code: 'invalid_option' }
  | { code: 'out_of_scale'; min: number; max: number }
  | { code: 'other_text_required' }
  | { code: 'invalid_characters' }
  | { code: 'unknown_field' }
  | { code: 'invalid_section' };

/** The first rule an answer breaks, or null (part 2 §5). */
export function checkAnswer(q: AnsweredQuestion, value: unknown): ValidationIssue | null {
  const empty = q.kind === 'multiselect' ? multiselectIsEmpty(value) : isEmpty(value);
  if (empty) return isRequired(q) ? { code: 'required' } : null;
  switch (q.kind) {
    case 'text': {
      if (typeof value !== 'string') return { code: 'not_string' };
      if (!isCleanText(value)) return { code: 'invalid_characters' };
      const length = [...value.trim()].length;
      if (q.minLength !== undefined && length < q.minLength) return { code: 'too_short', n: q.minLength };
      if (length > q.maxLength) return { code: 'too_long', n: q.maxLength };
      return null;
    }
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
      if (!Number.isFinite(n)) return { code: 'not_number' };
      if (n < q.min) return { code: 'below_min', min: q.min };
      if (n > q.max) return { code: 'above_max', max: q.max };
      return null;
    }
    case 'radio':
      return typeof value === 'string' && q.options.some((o) => o.value === value) ? null : { code: 'invalid_option' };
    case 'scale':
      return typeof value === 'number' && Number.isInteger(value) && value >= q.min && value <= q.max ? null : { code: 'out_of_scale', min: q.min, max: q.max };
    case 'multiselect': {
      const m = parseMultiselect(value);
      if (!m) return { code: 'invalid_option' };
      const allowed = new Set([...q.options.map((o) => o.value), OTHER_OPTION]);
      if (m.selections.some((s) => !allowed.has(s)) || new Set(m.selections).size !== m.selections.length) return { code: 'invalid_option' };
      if (!isCleanText(m.other_text)) return { code: 'invalid_characters' };
      if ([...m.other_text].length > q.otherMaxLength) return { code: 'too_long', n: q.otherMaxLength };
      if (m.selections.includes(OTHER_OPTION) && m.other_text.trim() === '') return { code: 'other_text_required' };
      return null;
    }
  }
}

/** Every broken rule of one section's answers, by field; unknown fields are errors too. */
export function checkSection(section: Section, answers: Record<string, unknown>): Record<string, ValidationIssue> {
  const issues: Record<string, ValidationIssue> = {};
  const known = new Set(answeredQuestions(section).map((q) => q.name));
  for (const q of answeredQuestions(section)) {
    const issue = checkAnswer(q, answers[q.name]);
    if (issue) issues[q.name] = issue;
  }
  for (const field of Object.keys(answers)) if (!known.has(field)) issues[field] = { code: 'unknown_field' };
  return issues;
}

/** Answered required questions over required ones (part 2 §5 "Progress"). */
export function sectionProgress(section: Section, answers: Record<string, unknown>) {
  const required = answeredQuestions(section).filter(isRequired);
  return { answered: required.filter((q) => checkAnswer(q, answers[q.name]) === null).length, required: required.length };
}

const MESSAGES: Record<'ja' | 'en', Record<ValidationIssue['code'], string>> = {
  ja: {
    required: '{label}は必須項目です',
    not_string: '{label}は文字で入力してください',
    too_short: '{label}は{n}文字以上で入力してください',
    too_long: '{label}は{n}文字以内で入力してください',
    not_number: '{label}は数値で入力してください',
    below_min: '{label}は{min}以上の値を入力してください',
    above_max: '{label}は{max}以下の値を入力してください',
    invalid_option: '{label}は有効な選択肢から選んでください',
    out_of_scale: '{label}は{min}から{max}の範囲で選択してください',
    other_text_required: '{label}：「その他」の内容を入力してください',
    invalid_characters: '{label}に使用できない文字が含まれています',
    unknown_field: '{label}はこの調査にない項目です',
    invalid_section: '無効なセクションです',
  },
  en: {
    required: '{label} is required',
    not_string: '{label} must be text',
    too_short: '{label} must be at least {n} characters',
    too_long: '{label} must be at most {n} characters',
    not_number: '{label} must be a number',
    below_min: '{label} must be {min} or more',
    above_max: '{label} must be {max} or less',
    invalid_option: '{label}: choose one of the options',
    out_of_scale: '{label}: choose a value from {min} to {max}',
    other_text_required: '{label}: describe "other"',
    invalid_characters: '{label} contains characters that cannot be stored',
    unknown_field: '{label} is not a question of this survey',
    invalid_section: 'Invalid section',
  },
};

/** The message a participant (or an API client) reads for an issue. */
export function issueMessage(issue: ValidationIssue, label: string, lang: 'ja' | 'en'): string {
  const values: Record<string, string | number> = { label, ...issue };
  return MESSAGES[lang][issue.code].replace(/\{(\w+)\}/g, (_, k: string) => String(values[k] ?? ''));
}

/** Factor scores from a full submission: reverse-keyed items count as (min + max − answer). */
export function scorePostSurvey(answers: Partial<Record<SectionId, Record<string, unknown>>>): Record<Factor, number | null> {
  const items = new Map<Factor, number[]>();
  for (const section of postSurvey.sections) {
    for (const q of answeredQuestions(section)) {
      if (q.kind !== 'scale' || !q.factor) continue;
      const value = answers[section.id]?.[q.name];
      if (typeof value !== 'number') continue;
      const keyed = q.reverse ? q.min + q.max - value : value;
      items.set(q.factor, [...(items.get(q.factor) ?? []), keyed]);
    }
  }
  return Object.fromEntries(
    FACTORS.map((f) => {
      const values = items.get(f) ?? [];
      if (values.length === 0) return [f, null];
      const sum = values.reduce((a, b) => a + b, 0);
      return [f, FACTOR_SCORING[f] === 'sum' ? sum : sum / values.length];
    }),
  ) as Record<Factor, number | null>;
}

