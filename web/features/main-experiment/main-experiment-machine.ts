/**
 * The main experiment as a state machine (part 2 §2.1 and §4): every screen and transition of
 * the phase in one pure reducer. The steps inside a case are `case-flow-machine.ts`; the side
 * effects (start call, outboxes, pause, final confirmation) live in `use-main-experiment.ts`.
 *
 *   loading ─loaded─▶ intro ─started (tutorial and test done)─▶ case ─case_done, next_case…─▶ finishing ─confirmed─▶ complete
 *      │               (answers exist: resumed) ─────────────────▶ ▲                              │
 *      └─load_failed─▶ error ◀───────────────────────────── finish_failed ◀─────────────────────────┘
 */
import type { CaseInProgress, MainCase } from '../../../worker/schemas/main-experiment';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { needsPreparation, type ConditionView } from './condition-plan';

export type MainData = {
  sessionId: string;
  datasetType: DatasetType;
  /** The participant's between-subject condition, drawn by the server's start. */
  condition: ConditionView;
  cases: MainCase[];
  /** Answers existed before this visit: show remaining counts and skip the intro. */
  resumed: boolean;
  /** Cases begun and not yet stored, with what the server kept of them: each resumes at the step it left. */
  inProgress: CaseInProgress[];
};

export type MainSummary = {
  completed: number;
  total: number;
  judgementChanges: number;
  finalAgreesWithAi: number;
  meanRatings: Record<string, number | null>;
};

export type MainScreen =
  | { kind: 'loading' }
  | { kind: 'error'; messageKey: string; detail?: string }
  | { kind: 'intro' }
  | { kind: 'case' }
  | { kind: 'finishing'; offline: boolean }
  | { kind: 'complete'; summary: MainSummary };

export type MainState = {
  screen: MainScreen;
  data: MainData | null;
  /** Cases answered so far (saved in the outbox or held by the server). */
  answered: ReadonlySet<string>;
  /** The case just saved while the spec's 800 ms pause runs. */
  pausingAfter: string | null;
  tutorial: { open: boolean; done: boolean };
  test: { open: boolean; passed: boolean };
};

export type MainEvent =
  | { type: 'loaded'; data: MainData; answered: Iterable<string> }
  | { type: 'load_failed'; messageKey: string; detail?: string }
  | { type: 'tutorial_opened' }
  | { type: 'tutorial_closed' }
  | { type: 'tutorial_done' }
  | { type: 'test_opened' }
  | { type: 'test_closed' }
  | { type: 'test_passed' }
  | { type: 'started' }
  | { type: 'case_done'; caseId: string }
  | { type: 'next_case' }
  | { type: 'finish_retrying'; offline: boolean }
  | { type: 'finish_failed'; messageKey: string; detail?: string }
  | { type: 'confirmed'; summary: MainSummary };

export const initialMainState = (flags: { tutorialDone: boolean; testPassed: boolean }): MainState => ({
  screen: { kind: 'loading' },
  data: null,
  answered: new Set(),
  pausingAfter: null,
  tutorial: { open: false, done: flags.tutorialDone },
  test: { open: false, passed: flags.testPassed },
});

export const remainingCases = (state: MainState): MainCase[] =>
  state.data ? state.data.cases.filter((c) => !state.answered.has(c.case_id)) : [];

/** The case on screen: the first unanswered one of the stored order (the one just saved while the pause runs). */
export const currentCase = (state: MainState): MainCase | null => {
  if (state.pausingAfter) return state.data?.cases.find((c) => c.case_id === state.pausingAfter) ?? null;
  return remainingCases(state)[0] ?? null;
};

/** The start button needs both the tutorial and the understanding test (part 2 §4). */
/** The tutorial and a passed understanding test come first where the condition shows explanations. */
export const canStart = (state: MainState) => !state.data || !needsPreparation(state.data.condition) || (state.tutorial.done && state.test.passed);

const setExhausted = (state: MainState, answered: ReadonlySet<string>) => !!state.data && state.data.cases.every((c) => answered.has(c.case_id));

export function mainReducer(state: MainState, event: MainEvent): MainState {
  switch (event.type) {
    case 'loaded': {
      const inSet = new Set(event.data.cases.map((c) => c.case_id));
      const answered = new Set([...event.answered].filter((id) => inSet.has(id)));
      const next = { ...state, data: event.data, answered };
      if (setExhausted(next, answered)) return { ...next, screen: { kind: 'finishing', offline: false } };
      // A participant with answers, or a case under way, resumes at their next case: tutorial and test were done before.
      if (answered.size > 0 || event.data.inProgress.length > 0) return { ...next, tutorial: { ...state.tutorial, done: true }, test: { ...state.test, passed: true }, screen: { kind: 'case' } };
      return { ...next, screen: { kind: 'intro' } };
    }
    case 'load_failed':
      return { ...state, screen: { kind: 'error', messageKey: event.messageKey, detail: event.detail } };
    case 'tutorial_opened':
      return { ...state, tutorial: { ...state.tutorial, open: true }, test: { ...state.test, open: false } };
    case 'tutorial_closed':
      return { ...state, tutorial: { ...state.tutorial, open: false } };
    case 'tutorial_done':
      return { ...state, tutorial: { open: false, done: true } };
    case 'test_opened':
      return { ...state, test: { ...state.test, open: true }, tutorial: { ...state.tutorial, open: false } };
    case 'test_closed':
      return { ...state, test: { ...state.test, open: false } };
    case 'test_passed':
      return { ...state, test: { ...state.test, passed: true } };
    case 'started':
      if (state.screen.kind !== 'intro' || !canStart(state)) return state;
      return { ...state, screen: { kind: 'case' } };
    case 'case_done': {
      const current = currentCase(state);
      if (state.screen.kind !== 'case' || state.pausingAfter || current?.case_id !== event.caseId) return state;
      return { ...state, pausingAfter: event.caseId };
    }
    case 'next_case': {
      if (!state.pausingAfter) return state;
      const answered = new Set(state.answered).add(state.pausingAfter);
      const screen: MainScreen = setExhausted(state, answered) ? { kind: 'finishing', offline: false } : state.screen;
      return { ...state, answered, pausingAfter: null, screen };
    }
    case 'finish_retrying':
      if (state.screen.kind !== 'finishing') return state;
      return { ...state, screen: { kind: 'finishing', offline: event.offline } };
    case 'finish_failed':
      return { ...state, screen: { kind: 'error', messageKey: event.messageKey, detail: event.detail } };
    case 'confirmed':
      if (state.screen.kind !== 'finishing') return state;
      return { ...state, screen: { kind: 'complete', summary: event.summary } };
  }
}
