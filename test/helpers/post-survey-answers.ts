/**
 * A complete, valid post-survey built from the definition itself, so tests follow every edit of
 * the instrument: each question gets a value its rules accept, `value(question)` may override.
 */
import { answeredQuestions, postSurvey, postSurveyFor, type AnsweredQuestion, type Audience, type SectionId } from '../../worker/schemas/post-survey';

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

/** `audience`: what the participant's condition showed (the survey asks only about that); all of it when left out. */
export function completePostSurvey(value: (q: AnsweredQuestion) => string | number | null | undefined = () => undefined, audience?: Audience): Answers {
  return Object.fromEntries(
    (audience ? postSurveyFor(audience) : postSurvey).sections.map((s) => [s.id, Object.fromEntries(answeredQuestions(s).map((q) => [q.name, value(q) ?? defaultAnswer(q)]))]),
  ) as Answers;
}
