/**
 * A complete, valid post-survey built from the definition itself, so tests follow every edit of
 * the instrument: each question gets a value its rules accept, `value(question)` may override.
 */
import { answeredQuestions, postSurvey, type AnsweredQuestion, type SectionId } from '../../worker/schemas/post-survey';

export type Answers = Record<SectionId, Record<string, string | number | null>>;

export function defaultAnswer(q: AnsweredQuestion): string | number | null {
  switch (q.kind) {
    case 'number':
      return Math.min(q.max, Math.max(q.min, 30));
    case 'radio':
      return q.options[0]!.value;
    case 'scale':
      return 3;
    case 'text':
      return q.optional ? '' : 'ok';
    case 'multiselect':
      return JSON.stringify({ selections: [q.options[0]!.value], other_text: '' });
  }
}

export function completePostSurvey(value: (q: AnsweredQuestion) => string | number | null | undefined = () => undefined): Answers {
  return Object.fromEntries(
    postSurvey.sections.map((s) => [s.id, Object.fromEntries(answeredQuestions(s).map((q) => [q.name, value(q) ?? defaultAnswer(q)]))]),
  ) as Answers;
}
