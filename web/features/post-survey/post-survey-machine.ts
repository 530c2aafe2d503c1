/**
 * The post-survey as a state machine (part 2 §4 "Post-survey"): loading the session, the form in
 * sections, submitting, the thank-you screen. Which sections show their errors, and where a
 * failed final check jumps, are decided here; the answer rules come from the definition.
 *
 *   loading ─loaded─▶ form ─submit (all sections valid)─▶ submitting ─submitted─▶ thanks
 *      │                ▲  └─submit (some invalid): errors shown, jump to the first─┘     │
 *      └─session_missing─▶ no_session        submit_failed ◀──────────────────────────────┘
 */
import { checkSection, postSurvey, SECTION_IDS, type AnswerValue, type PostSurveyDefinition, type SectionId } from '../../../worker/schemas/post-survey';

export type Answers = Record<SectionId, Record<string, AnswerValue>>;
export const emptyAnswers = (): Answers => Object.fromEntries(SECTION_IDS.map((id) => [id, {}])) as unknown as Answers;

export type SubmitError = { key: string; values?: Record<string, string | number>; items?: string[] };

export type SurveyScreen =
  | { kind: 'loading' }
  | { kind: 'no_session'; messageKey: string }
  | { kind: 'form' }
  | { kind: 'submitting' }
  | { kind: 'thanks'; alreadyAnswered: boolean };

export type SurveyState = {
  screen: SurveyScreen;
  sessionId: string | null;
  /** The survey as the participant's condition asks it (`postSurveyFor`); the whole one until loaded. */
  definition: PostSurveyDefinition;
  answers: Answers;
  section: number;
  /** Sections whose errors are on screen (after next or submit was tried there). */
  revealed: ReadonlySet<SectionId>;
  /** Sections with missing items listed after a failed final check. */
  incomplete: SectionId[];
  submitError: SubmitError | null;
};

export type SurveyEvent =
  | { type: 'loaded'; sessionId: string; answers: Answers; definition: PostSurveyDefinition }
  | { type: 'session_missing'; messageKey: string }
  | { type: 'retried' }
  | { type: 'answered'; section: SectionId; name: string; value: AnswerValue }
  | { type: 'section_chosen'; index: number }
  | { type: 'next' }
  | { type: 'previous' }
  | { type: 'submit' }
  | { type: 'submitted'; alreadyAnswered: boolean }
  | { type: 'submit_failed'; error: SubmitError };

export const initialSurveyState = (): SurveyState => ({
  screen: { kind: 'loading' },
  sessionId: null,
  definition: postSurvey,
  answers: emptyAnswers(),
  section: 0,
  revealed: new Set(),
  incomplete: [],
  submitError: null,
});

export const sectionIssues = (state: SurveyState, id: SectionId) => checkSection(state.definition.sections.find((s) => s.id === id)!, state.answers[id]);
export const sectionValid = (state: SurveyState, id: SectionId) => Object.keys(sectionIssues(state, id)).length === 0;
export const currentSectionId = (state: SurveyState): SectionId => SECTION_IDS[state.section]!;

export function surveyReducer(state: SurveyState, event: SurveyEvent): SurveyState {
  switch (event.type) {
    case 'loaded':
      return { ...state, screen: { kind: 'form' }, sessionId: event.sessionId, answers: event.answers, definition: event.definition };
    case 'session_missing':
      return { ...state, screen: { kind: 'no_session', messageKey: event.messageKey } };
    case 'retried':
      return { ...state, screen: { kind: 'loading' } };
    case 'answered':
      if (state.screen.kind !== 'form') return state;
      return { ...state, answers: { ...state.answers, [event.section]: { ...state.answers[event.section], [event.name]: event.value } } };
    case 'section_chosen':
      if (event.index < 0 || event.index >= SECTION_IDS.length) return state;
      return { ...state, section: event.index };
    case 'previous':
      return { ...state, section: Math.max(0, state.section - 1) };
    case 'next': {
      const id = currentSectionId(state);
      // Next needs the section to validate (part 2 §4); trying shows what is missing.
      if (!sectionValid(state, id)) return { ...state, revealed: new Set(state.revealed).add(id) };
      return { ...state, section: Math.min(SECTION_IDS.length - 1, state.section + 1) };
    }
    case 'submit': {
      if (state.screen.kind !== 'form') return state;
      const incomplete = SECTION_IDS.filter((id) => !sectionValid(state, id));
      if (incomplete.length > 0) {
        return { ...state, revealed: new Set([...state.revealed, ...incomplete]), incomplete, section: SECTION_IDS.indexOf(incomplete[0]!) };
      }
      return { ...state, screen: { kind: 'submitting' }, incomplete: [], submitError: null };
    }
    case 'submitted':
      return { ...state, screen: { kind: 'thanks', alreadyAnswered: event.alreadyAnswered } };
    case 'submit_failed':
      return { ...state, screen: { kind: 'form' }, submitError: event.error };
  }
}
