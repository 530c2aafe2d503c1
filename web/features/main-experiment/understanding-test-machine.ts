/**
 * One run of the understanding test (part 2 §2.1): answer (required) → check (correct or not,
 * with the right answer) → next … → result (pass only at 5 of 5). Retry draws five new questions
 * under a new attempt ID. Pure: the dialog supplies the draw and the attempt ID.
 */
import { scoreUnderstanding, type UnderstandingQuestion } from '../../../worker/schemas/understanding-test';

export type TestAnswer = { question_id: string; answer: string };

export type TestState = {
  attemptId: string;
  questions: UnderstandingQuestion[];
  index: number;
  selected: string | null;
  checked: boolean;
  answers: TestAnswer[];
  result: { correct: number; total: number; passed: boolean } | null;
};

export type TestEvent =
  | { type: 'selected'; option: string }
  | { type: 'checked' }
  | { type: 'next' }
  | { type: 'retried'; attemptId: string; questions: UnderstandingQuestion[] };

export const newAttempt = (attemptId: string, questions: UnderstandingQuestion[]): TestState => ({
  attemptId,
  questions,
  index: 0,
  selected: null,
  checked: false,
  answers: [],
  result: null,
});

export const currentQuestion = (s: TestState): UnderstandingQuestion | null => (s.result ? null : (s.questions[s.index] ?? null));
export const isLastQuestion = (s: TestState) => s.index === s.questions.length - 1;

export function testReducer(state: TestState, event: TestEvent): TestState {
  switch (event.type) {
    case 'selected':
      if (state.checked || state.result) return state;
      return { ...state, selected: event.option };
    case 'checked': {
      const question = currentQuestion(state);
      // An answer is required before check (part 2 §5).
      if (!question || state.checked || state.selected === null) return state;
      return { ...state, checked: true, answers: [...state.answers, { question_id: question.id, answer: state.selected }] };
    }
    case 'next':
      if (!state.checked) return state;
      if (isLastQuestion(state)) return { ...state, result: scoreUnderstanding(state.answers) };
      return { ...state, index: state.index + 1, selected: null, checked: false };
    case 'retried':
      if (!state.result || state.result.passed) return state;
      return newAttempt(event.attemptId, event.questions);
  }
}
