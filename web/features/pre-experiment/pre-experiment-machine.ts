/**
 * The pre-experiment as a state machine (part 1 §4 "Pre-experiment"): every screen and every
 * transition in one pure reducer, so a reviewer reads the phase here and tests drive it without
 * a browser. Side effects (loading, sending, timers) live in `use-pre-experiment.ts`, which only
 * dispatches these events.
 *
 *   loading ─loaded─▶ intro ─started (practice done)─▶ answering ─answered, next_case…─▶ sending
 *      │               (nothing answered yet)           ▲ (some answered: resumed)       │ │
 *      └─load_failed─▶ error ◀──────────send_failed──────┼────────────────────────────────┘ │
 *                                                       all_confirmed ▶ learning ─learned─▶ complete
 */
import type { ParticipantCase } from '../../../worker/schemas/experiment';
import type { PreExperimentData } from './load';

export type PreScreen =
  | { kind: 'loading' }
  | { kind: 'error'; messageKey: string; detail?: string }
  | { kind: 'intro' }
  | { kind: 'answering' }
  | { kind: 'sending'; offline: boolean }
  | { kind: 'learning' }
  | { kind: 'complete'; trained: boolean; samples: number };

export type PreState = {
  screen: PreScreen;
  data: PreExperimentData | null;
  /** Cases of the set answered so far (saved in the outbox or held by the server). */
  answered: ReadonlySet<string>;
  /** The case just answered while the spec's pause before the next one runs. */
  pausingAfter: string | null;
  tutorial: { open: boolean; done: boolean; cases: ParticipantCase[] | null };
};

export type PreEvent =
  | { type: 'loaded'; data: PreExperimentData; answered: Iterable<string> }
  | { type: 'load_failed'; messageKey: string; detail?: string }
  | { type: 'tutorial_cases'; cases: ParticipantCase[] }
  | { type: 'tutorial_opened' }
  | { type: 'tutorial_closed' }
  | { type: 'tutorial_done' }
  | { type: 'started' }
  | { type: 'answered'; caseId: string }
  | { type: 'next_case' }
  | { type: 'send_retrying'; offline: boolean }
  | { type: 'send_failed'; messageKey: string; detail?: string }
  | { type: 'all_confirmed' }
  | { type: 'learned'; trained: boolean; samples: number };

export const initialPreState = (tutorialDone: boolean): PreState => ({
  screen: { kind: 'loading' },
  data: null,
  answered: new Set(),
  pausingAfter: null,
  tutorial: { open: false, done: tutorialDone, cases: null },
});

/** The cases still to answer, in the participant's stored order. */
export const remainingCases = (state: PreState): ParticipantCase[] =>
  state.data ? state.data.cases.filter((c) => !state.answered.has(c.case_id)) : [];

/** The case on screen: the first unanswered one (the one just answered while the pause runs). */
export const currentCase = (state: PreState): ParticipantCase | null => {
  if (state.pausingAfter) return state.data?.cases.find((c) => c.case_id === state.pausingAfter) ?? null;
  return remainingCases(state)[0] ?? null;
};

/**
 * Answers the server holds: every answered case (those it held when the set was loaded, on another
 * device too, and those sent since, the one in the pause included) but those still waiting in this
 * browser's outbox. Counting the outbox alone would forget what was answered elsewhere.
 */
export const serverHeldCount = (state: PreState, pendingInOutbox: number) =>
  Math.max(0, state.answered.size + (state.pausingAfter ? 1 : 0) - pendingInOutbox);

const allAnswered = (state: PreState, answered: ReadonlySet<string>) => !!state.data && answered.size >= state.data.cases.length;

export function preReducer(state: PreState, event: PreEvent): PreState {
  switch (event.type) {
    case 'loaded': {
      // Only cases of this set count: a stray saved answer is sent (and refused) but never skips a case.
      const inSet = new Set(event.data.cases.map((c) => c.case_id));
      const answered = new Set([...event.answered].filter((id) => inSet.has(id)));
      const next = { ...state, data: event.data, answered };
      if (allAnswered(next, answered)) return { ...next, screen: { kind: 'sending', offline: false } };
      return { ...next, screen: answered.size > 0 ? { kind: 'answering' } : { kind: 'intro' } };
    }
    case 'load_failed':
      return { ...state, screen: { kind: 'error', messageKey: event.messageKey, detail: event.detail } };
    case 'tutorial_cases':
      return { ...state, tutorial: { ...state.tutorial, cases: event.cases } };
    case 'tutorial_opened':
      return { ...state, tutorial: { ...state.tutorial, open: true } };
    case 'tutorial_closed':
      return { ...state, tutorial: { ...state.tutorial, open: false } };
    case 'tutorial_done':
      return { ...state, tutorial: { ...state.tutorial, open: false, done: true } };
    case 'started':
      // The practice must be completed before the pre-experiment can start (part 1 §5).
      if (state.screen.kind !== 'intro' || !state.tutorial.done) return state;
      return { ...state, screen: { kind: 'answering' } };
    case 'answered': {
      const current = currentCase(state);
      // One answer per case, only for the case on screen, never beyond the set.
      if (state.screen.kind !== 'answering' || state.pausingAfter || current?.case_id !== event.caseId) return state;
      return { ...state, pausingAfter: event.caseId };
    }
    case 'next_case': {
      if (!state.pausingAfter) return state;
      const answered = new Set(state.answered).add(state.pausingAfter);
      const screen: PreScreen = allAnswered(state, answered) ? { kind: 'sending', offline: false } : state.screen;
      return { ...state, answered, pausingAfter: null, screen };
    }
    case 'send_retrying':
      if (state.screen.kind !== 'sending') return state;
      return { ...state, screen: { kind: 'sending', offline: event.offline } };
    case 'send_failed':
      return { ...state, screen: { kind: 'error', messageKey: event.messageKey, detail: event.detail } };
    case 'all_confirmed':
      if (state.screen.kind !== 'sending') return state;
      return { ...state, screen: { kind: 'learning' } };
    case 'learned':
      if (state.screen.kind !== 'learning') return state;
      return { ...state, screen: { kind: 'complete', trained: event.trained, samples: event.samples } };
  }
}
