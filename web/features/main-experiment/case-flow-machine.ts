/**
 * One main-experiment case as a state machine (part 2 §4 "Per-case steps"), shared by the real
 * cases and the tutorial's practice case:
 *
 *   initial ─initial_submitted─▶ explaining ─explanation_loaded─▶ explanation ─explanation_confirmed─▶ final
 *                                    │  ▲                                                            │
 *                 explanation_failed ▼  │ explanation_retried                          final_submitted ▼
 *                                  failed                                          done ◀─survey_submitted─ survey
 *
 * Every event carries the `performance.now()` reading of the moment it happened, taken by the
 * runner (the hook), so the times of the record are computed here and tests can fake time.
 */
import type { Judgement } from '../../components/ui/judgement-input';
import type { ShownExplanation } from './explanation';

export type TimedJudgement = Judgement & { response_time_ms: number };

export const SURVEY_ITEMS = ['comprehensibility', 'transparency', 'satisfaction', 'trust', 'alignment'] as const;
export type SurveyItem = (typeof SURVEY_ITEMS)[number];
export type SurveyResponse = Record<SurveyItem, number>;

/** Everything a finished case recorded. */
export type CaseRecord = {
  initial: TimedJudgement;
  explanation: ShownExplanation;
  explanationViewMs: number;
  final: TimedJudgement;
  survey: SurveyResponse;
  totalMs: number;
};

export type CaseStep =
  | { kind: 'initial' }
  | { kind: 'explaining'; initial: TimedJudgement }
  | { kind: 'failed'; initial: TimedJudgement; detail: string }
  | { kind: 'explanation'; initial: TimedJudgement; explanation: ShownExplanation; shownAt: number }
  | { kind: 'final'; initial: TimedJudgement; explanation: ShownExplanation; explanationViewMs: number; shownAt: number }
  | { kind: 'survey'; initial: TimedJudgement; explanation: ShownExplanation; explanationViewMs: number; final: TimedJudgement }
  | { kind: 'done'; record: CaseRecord };

export type CaseFlowState = { startedAt: number; step: CaseStep };

export type CaseFlowEvent =
  | { type: 'initial_submitted'; judgement: Judgement; at: number }
  | { type: 'explanation_loaded'; explanation: ShownExplanation; at: number }
  | { type: 'explanation_failed'; detail: string }
  | { type: 'explanation_retried' }
  | { type: 'explanation_confirmed'; at: number }
  | { type: 'final_submitted'; judgement: Judgement; at: number }
  | { type: 'survey_submitted'; survey: SurveyResponse; at: number };

export const initialCaseFlow = (startedAt: number): CaseFlowState => ({ startedAt, step: { kind: 'initial' } });

/** The four steps the indicator shows; `explaining` and `failed` belong to the explanation step. */
export const STEP_ORDER = ['initial', 'explanation', 'final', 'survey'] as const;
export function stepIndex(step: CaseStep): number {
  switch (step.kind) {
    case 'initial':
      return 0;
    case 'explaining':
    case 'failed':
    case 'explanation':
      return 1;
    case 'final':
      return 2;
    case 'survey':
    case 'done':
      return 3;
  }
}

const elapsed = (from: number, to: number) => Math.max(0, Math.round(to - from));

export function caseFlowReducer(state: CaseFlowState, event: CaseFlowEvent): CaseFlowState {
  const { step } = state;
  switch (event.type) {
    case 'initial_submitted':
      if (step.kind !== 'initial') return state;
      return { ...state, step: { kind: 'explaining', initial: { ...event.judgement, response_time_ms: elapsed(state.startedAt, event.at) } } };
    case 'explanation_loaded':
      if (step.kind !== 'explaining') return state;
      return { ...state, step: { kind: 'explanation', initial: step.initial, explanation: event.explanation, shownAt: event.at } };
    case 'explanation_failed':
      if (step.kind !== 'explaining') return state;
      return { ...state, step: { kind: 'failed', initial: step.initial, detail: event.detail } };
    case 'explanation_retried':
      if (step.kind !== 'failed') return state;
      return { ...state, step: { kind: 'explaining', initial: step.initial } };
    case 'explanation_confirmed':
      if (step.kind !== 'explanation') return state;
      return {
        ...state,
        step: { kind: 'final', initial: step.initial, explanation: step.explanation, explanationViewMs: elapsed(step.shownAt, event.at), shownAt: event.at },
      };
    case 'final_submitted':
      if (step.kind !== 'final') return state;
      return {
        ...state,
        step: {
          kind: 'survey',
          initial: step.initial,
          explanation: step.explanation,
          explanationViewMs: step.explanationViewMs,
          final: { ...event.judgement, response_time_ms: elapsed(step.shownAt, event.at) },
        },
      };
    case 'survey_submitted':
      if (step.kind !== 'survey') return state;
      return {
        ...state,
        step: {
          kind: 'done',
          record: {
            initial: step.initial,
            explanation: step.explanation,
            explanationViewMs: step.explanationViewMs,
            final: step.final,
            survey: event.survey,
            totalMs: elapsed(state.startedAt, event.at),
          },
        },
      };
  }
}
