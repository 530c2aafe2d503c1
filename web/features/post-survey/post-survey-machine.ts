/**
 * The post-survey as a state machine (part 2 §4 "Post-survey"): loading the session, the form in
 * sections, submitting, the thank-you screen. Which sections show their errors, and where a
 * failed final check jumps, are decided here; the answer rules come from the definition.
 *
 *   loading ─loaded─▶ form ─submit (all sections valid)─▶ submitting ─submitted─▶ thanks
 *      │                ▲  └─submit (some invalid): list them, jump to the first─┘       │
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
  /**
   * Sections whose missing items are marked: those the participant has passed (tried next or
   * submit there, or left for another section). A section never opened is never marked.
   */
  revealed: ReadonlySet<SectionId>;
  /** Sections with missing items when the final check failed (the page lists those still missing). */
  incomplete: SectionId[];
  /** Failed next or submit presses: each one takes the page to the first missing item. */
  missingShown: number;
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
  missingShown: 0,
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
    case 'section_chosen': {
      if (event.index < 0 || event.index >= SECTION_IDS.length || event.index === state.section) return state;
      // Leaving a section passes it: what it still misses is marked when the participant comes back.
      const left = currentSectionId(state);
      const revealed = sectionValid(state, left) ? state.revealed : new Set(state.revealed).add(left);
      return { ...state, section: event.index, revealed };
    }
    case 'previous':
      return { ...state, section: Math.max(0, state.section - 1) };
    case 'next': {
      const id = currentSectionId(state);
      // Next needs the section to validate (part 2 §4); trying shows what is missing.
      if (!sectionValid(state, id)) return { ...state, revealed: new Set(state.revealed).add(id), missingShown: state.missingShown + 1 };
      return { ...state, section: Math.min(SECTION_IDS.length - 1, state.section + 1) };
    }
    case 'submit': {
      if (state.screen.kind !== 'form') return state;
      const incomplete = SECTION_IDS.filter((id) => !sectionValid(state, id));
      if (incomplete.length > 0) {
        // The section on screen is passed; sections never passed stay unmarked, named in the list.
        const here = currentSectionId(state);
        const revealed = sectionValid(state, here) ? state.revealed : new Set(state.revealed).add(here);
        return { ...state, revealed, incomplete, section: SECTION_IDS.indexOf(incomplete[0]!), missingShown: state.missingShown + 1 };
      }
      return { ...state, screen: { kind: 'submitting' }, incomplete: [], submitError: null };
    }
    case 'submitted':
      return { ...state, screen: { kind: 'thanks', alreadyAnswered: event.alreadyAnswered } };
    case 'submit_failed':
      return { ...state, screen: { kind: 'form' }, submitError: event.error };
  }
}
