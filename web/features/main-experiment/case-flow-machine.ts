/**
 * One main-experiment case as a state machine (part 2 §4 "Per-case steps"), shared by the real
 * cases and the tutorial's practice case. The spec's design (the participant's condition decides,
 * `condition-plan.ts`; without an initial judgement the case opens on the AI or the judgement,
 * without AI the initial judgement leads to the final one, without questions the final ends it):
 *
 *   initial ─initial_submitted─▶ explaining ─explanation_loaded─▶ explanation ─explanation_confirmed─▶ final
 *                                    │  ▲                                                            │
 *                 explanation_failed ▼  │ explanation_retried                          final_submitted ▼
 *                                  failed                                          done ◀─survey_submitted─ survey
 *
 * Every event carries the `performance.now()` reading of the moment it happened, taken by the
 * runner (the hook), so the times of the record are computed here and tests can fake time.
 */
import type { Judgement, TimedJudgement } from '../../components/ui/judgement-input';
import type { RatingItem } from '../../../worker/schemas/condition-plan';
import type { CasePlan } from './condition-plan';
import type { ShownExplanation } from './explanation';

/** The answers to the per-case questions the condition asks. */
export type SurveyResponse = Partial<Record<RatingItem, number>>;

/** Everything a finished case recorded; what the condition does not show or ask is null. */
export type CaseRecord = {
  initial: TimedJudgement | null;
  explanation: ShownExplanation | null;
  explanationViewMs: number | null;
  final: TimedJudgement;
  survey: SurveyResponse;
  totalMs: number;
};

export type CaseStep =
  | { kind: 'initial' }
  | { kind: 'explaining'; initial: TimedJudgement | null }
  | { kind: 'failed'; initial: TimedJudgement | null; detail: string }
  | { kind: 'explanation'; initial: TimedJudgement | null; explanation: ShownExplanation; shownAt: number }
  | { kind: 'final'; initial: TimedJudgement | null; explanation: ShownExplanation | null; explanationViewMs: number | null; shownAt: number }
  | { kind: 'survey'; initial: TimedJudgement | null; explanation: ShownExplanation | null; explanationViewMs: number | null; final: TimedJudgement }
  | { kind: 'done'; record: CaseRecord };

/**
 * What the server kept of a case under way (the start call's `cases_in_progress`): a case that
 * has it resumes at the step it left, with the kept judgements, never before them.
 */
export type KeptSteps = { initial: TimedJudgement | null; explanationViewMs: number | null; final: TimedJudgement | null };

export type CaseFlowState = {
  plan: CasePlan;
  startedAt: number;
  step: CaseStep;
  /** Kept by the server before this page opened the case; the AI's answer, fetched again, leads back to the step it says. */
  kept: KeptSteps | null;
};

export type CaseFlowEvent =
  /**
   * `shownAt`: when the step's screen was first shown, read by the runner; its time runs from
   * there (a pause or a chart's render can lie between deciding to show a step and showing it).
   */
  | { type: 'initial_submitted'; judgement: Judgement; at: number; shownAt?: number }
  | { type: 'explanation_loaded'; explanation: ShownExplanation; at: number }
  | { type: 'explanation_failed'; detail: string }
  | { type: 'explanation_retried' }
  | { type: 'explanation_confirmed'; at: number; shownAt?: number }
  | { type: 'final_submitted'; judgement: Judgement; at: number; shownAt?: number }
  | { type: 'survey_submitted'; survey: SurveyResponse; at: number };

/**
 * A case opens on its initial judgement; without one, on the AI (fetched first) or on the one
 * judgement. A case the server kept steps of opens where it left: with the AI, on the AI fetched
 * again (it then leads to the kept step); without, on the final judgement or the questions. Its
 * total time counts the kept steps' times and this page's, not the time away.
 */
export function initialCaseFlow(startedAt: number, plan: CasePlan, kept: KeptSteps | null = null): CaseFlowState {
  const resumes = kept !== null && (kept.initial !== null || kept.final !== null);
  if (!resumes) {
    if (plan.initial) return { plan, startedAt, step: { kind: 'initial' }, kept: null };
    if (plan.ai !== 'none') return { plan, startedAt, step: { kind: 'explaining', initial: null }, kept: null };
    return { plan, startedAt, step: { kind: 'final', initial: null, explanation: null, explanationViewMs: null, shownAt: startedAt }, kept: null };
  }
  const spent = (kept.initial?.response_time_ms ?? 0) + (kept.explanationViewMs ?? 0) + (kept.final?.response_time_ms ?? 0);
  const state = { plan, startedAt: startedAt - spent, kept };
  const initial = plan.initial ? kept.initial : null;
  if (plan.ai !== 'none') return { ...state, step: { kind: 'explaining', initial } };
  if (kept.final && plan.ratings.length > 0) return { ...state, step: { kind: 'survey', initial, explanation: null, explanationViewMs: null, final: kept.final } };
  return { ...state, step: { kind: 'final', initial, explanation: null, explanationViewMs: null, shownAt: startedAt } };
}

/** Where a resumed case goes once the AI's answer is back: the questions, the final judgement, or the AI's own step. */
function resumedStep(kept: KeptSteps, plan: CasePlan, initial: TimedJudgement | null, explanation: ShownExplanation, at: number): CaseStep | null {
  if (kept.final && plan.ratings.length > 0) {
    const viewed = kept.explanationViewMs ?? (plan.aiStep ? null : kept.final.response_time_ms);
    return { kind: 'survey', initial, explanation, explanationViewMs: viewed, final: kept.final };
  }
  if (plan.aiStep && kept.explanationViewMs !== null) return { kind: 'final', initial, explanation, explanationViewMs: kept.explanationViewMs, shownAt: at };
  return null;
}

/** The step of the indicator a case is at (`plan.steps`): `explaining` and `failed` belong to the AI's step, or to the judgement it is shown with. */
export function stepIndex(step: CaseStep, plan: CasePlan): number {
  const at = (name: CasePlan['steps'][number]) => Math.max(0, plan.steps.indexOf(name));
  const judging = plan.initial ? at('final') : at('judgement');
  switch (step.kind) {
    case 'initial':
      return at('initial');
    case 'explaining':
    case 'failed':
    case 'explanation':
      return plan.aiStep ? at(plan.ai === 'explanation' ? 'explanation' : 'prediction') : judging;
    case 'final':
      return judging;
    case 'survey':
      return at('survey');
    case 'done':
      return plan.feedback ? at('feedback') : plan.ratings.length > 0 ? at('survey') : plan.steps.length - 1;
  }
}

const elapsed = (from: number, to: number) => Math.max(0, Math.round(to - from));

export function caseFlowReducer(state: CaseFlowState, event: CaseFlowEvent): CaseFlowState {
  const { step, plan } = state;
  const finish = (from: Extract<CaseStep, { kind: 'survey' }>, survey: SurveyResponse, at: number): CaseStep => ({
    kind: 'done',
    record: { initial: from.initial, explanation: from.explanation, explanationViewMs: from.explanationViewMs, final: from.final, survey, totalMs: elapsed(state.startedAt, at) },
  });
  switch (event.type) {
    case 'initial_submitted': {
      if (step.kind !== 'initial') return state;
      const initial = { ...event.judgement, response_time_ms: elapsed(event.shownAt ?? state.startedAt, event.at) };
      // Without the AI the final judgement is the next screen: its time runs from when it appears, as every step's does.
      if (plan.ai === 'none') return { ...state, step: { kind: 'final', initial, explanation: null, explanationViewMs: null, shownAt: event.at } };
      return { ...state, step: { kind: 'explaining', initial } };
    }
    case 'explanation_loaded': {
      if (step.kind !== 'explaining') return state;
      const resumed = state.kept ? resumedStep(state.kept, plan, step.initial, event.explanation, event.at) : null;
      if (resumed) return { ...state, step: resumed };
      // Shown with the case, the AI is read while judging: its viewing time is the judgement's.
      if (!plan.aiStep) return { ...state, step: { kind: 'final', initial: step.initial, explanation: event.explanation, explanationViewMs: null, shownAt: event.at } };
      return { ...state, step: { kind: 'explanation', initial: step.initial, explanation: event.explanation, shownAt: event.at } };
    }
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
        step: { kind: 'final', initial: step.initial, explanation: step.explanation, explanationViewMs: elapsed(event.shownAt ?? step.shownAt, event.at), shownAt: event.at },
      };
    case 'final_submitted': {
      if (step.kind !== 'final') return state;
      const final = { ...event.judgement, response_time_ms: elapsed(event.shownAt ?? step.shownAt, event.at) };
      const viewed = step.explanation && step.explanationViewMs === null ? final.response_time_ms : step.explanationViewMs;
      const answered: Extract<CaseStep, { kind: 'survey' }> = { kind: 'survey', initial: step.initial, explanation: step.explanation, explanationViewMs: viewed, final };
      return { ...state, step: plan.ratings.length > 0 ? answered : finish(answered, {}, event.at) };
    }
    case 'survey_submitted':
      if (step.kind !== 'survey') return state;
      return { ...state, step: finish(step, event.survey, event.at) };
  }
}
