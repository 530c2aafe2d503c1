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
 * With advice on request (`plan.onRequest`) the initial judgement leads to the final one, which
 * offers the AI: asking for it fetches it onto the same step (`request`), and the questions follow
 * only where it was seen.
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

/**
 * The AI on request, on the final step: offered, asked for (being fetched), failed, or shown (at
 * `at`, from when its viewing time runs).
 */
export type AdviceRequest = { state: 'offered' } | { state: 'asked' } | { state: 'failed'; detail: string } | { state: 'shown'; at: number };

export type CaseStep =
  | { kind: 'initial' }
  | { kind: 'explaining'; initial: TimedJudgement | null }
  | { kind: 'failed'; initial: TimedJudgement | null; detail: string }
  | { kind: 'explanation'; initial: TimedJudgement | null; explanation: ShownExplanation; shownAt: number }
  | {
      kind: 'final';
      initial: TimedJudgement | null;
      explanation: ShownExplanation | null;
      explanationViewMs: number | null;
      shownAt: number;
      /** The AI on request (`plan.onRequest`); null where the plan shows it without asking. */
      request: AdviceRequest | null;
    }
  | { kind: 'survey'; initial: TimedJudgement | null; explanation: ShownExplanation | null; explanationViewMs: number | null; final: TimedJudgement }
  | { kind: 'done'; record: CaseRecord };

/**
 * What the server kept of a case under way (the start call's `cases_in_progress`): a case that
 * has it resumes at the step it left, with the kept judgements, never before them.
 */
export type KeptSteps = {
  initial: TimedJudgement | null;
  explanationViewMs: number | null;
  final: TimedJudgement | null;
  /** The AI was served for the case (with advice on request: it was asked for). */
  adviceServed: boolean;
  /** Ms of the condition's forced wait left when the server answered, by its clock; null without a wait. */
  adviceWaitLeftMs: number | null;
  /** Ms of the time limit left for the step the case is at when the server answered, by its clock; null without a limit. */
  stepTimeLeftMs: number | null;
};

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
  | { type: 'advice_requested' }
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
    return { plan, startedAt, step: finalStep(plan, null, startedAt), kept: null };
  }
  const spent = (kept.initial?.response_time_ms ?? 0) + (kept.explanationViewMs ?? 0) + (kept.final?.response_time_ms ?? 0);
  const state = { plan, startedAt: startedAt - spent, kept };
  const initial = plan.initial ? kept.initial : null;
  // Advice on request: offered again where it was not asked for, fetched again (the same serve) where it was.
  if (plan.onRequest) return { ...state, step: { ...finalStep(plan, initial, startedAt), request: kept.adviceServed ? { state: 'asked' } : { state: 'offered' } } };
  if (plan.ai !== 'none') return { ...state, step: { kind: 'explaining', initial } };
  if (kept.final && plan.ratings.length > 0) return { ...state, step: { kind: 'survey', initial, explanation: null, explanationViewMs: null, final: kept.final } };
  return { ...state, step: finalStep(plan, initial, startedAt) };
}

/** The final judgement's step without the AI on screen: where the plan gives the AI on request, it is offered. */
const finalStep = (plan: CasePlan, initial: TimedJudgement | null, shownAt: number): Extract<CaseStep, { kind: 'final' }> => ({
  kind: 'final',
  initial,
  explanation: null,
  explanationViewMs: null,
  shownAt,
  request: plan.onRequest ? { state: 'offered' } : null,
});

/** Where a resumed case goes once the AI's answer is back: the questions, the final judgement, or the AI's own step. */
function resumedStep(kept: KeptSteps, plan: CasePlan, initial: TimedJudgement | null, explanation: ShownExplanation, at: number): CaseStep | null {
  if (kept.final && plan.ratings.length > 0) {
    const viewed = kept.explanationViewMs ?? (plan.aiStep ? null : kept.final.response_time_ms);
    return { kind: 'survey', initial, explanation, explanationViewMs: viewed, final: kept.final };
  }
  if (plan.aiStep && kept.explanationViewMs !== null) return { kind: 'final', initial, explanation, explanationViewMs: kept.explanationViewMs, shownAt: at, request: null };
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
      // Without the AI (or with it on request) the final judgement is the next screen: its time runs from when it appears, as every step's does.
      if (plan.ai === 'none' || plan.onRequest) return { ...state, step: finalStep(plan, initial, event.at) };
      return { ...state, step: { kind: 'explaining', initial } };
    }
    case 'advice_requested':
      if (step.kind !== 'final' || (step.request?.state !== 'offered' && step.request?.state !== 'failed')) return state;
      return { ...state, step: { ...step, request: { state: 'asked' } } };
    case 'explanation_loaded': {
      if (step.kind === 'final' && step.request?.state === 'asked') {
        // Asked for before a reload that kept the final judgement: the questions about it follow.
        const kept = state.kept?.final;
        if (kept && plan.ratings.length > 0) {
          return { ...state, step: { kind: 'survey', initial: step.initial, explanation: event.explanation, explanationViewMs: state.kept!.explanationViewMs ?? kept.response_time_ms, final: kept } };
        }
        return { ...state, step: { ...step, explanation: event.explanation, request: { state: 'shown', at: event.at } } };
      }
      if (step.kind !== 'explaining') return state;
      const resumed = state.kept ? resumedStep(state.kept, plan, step.initial, event.explanation, event.at) : null;
      if (resumed) return { ...state, step: resumed };
      // Shown with the case, the AI is read while judging: its viewing time is the judgement's.
      if (!plan.aiStep) return { ...state, step: { kind: 'final', initial: step.initial, explanation: event.explanation, explanationViewMs: null, shownAt: event.at, request: null } };
      return { ...state, step: { kind: 'explanation', initial: step.initial, explanation: event.explanation, shownAt: event.at } };
    }
    case 'explanation_failed':
      if (step.kind === 'final' && step.request?.state === 'asked') return { ...state, step: { ...step, request: { state: 'failed', detail: event.detail } } };
      if (step.kind !== 'explaining') return state;
      return { ...state, step: { kind: 'failed', initial: step.initial, detail: event.detail } };
    case 'explanation_retried':
      if (step.kind !== 'failed') return state;
      return { ...state, step: { kind: 'explaining', initial: step.initial } };
    case 'explanation_confirmed':
      if (step.kind !== 'explanation') return state;
      return {
        ...state,
        step: { kind: 'final', initial: step.initial, explanation: step.explanation, explanationViewMs: elapsed(event.shownAt ?? step.shownAt, event.at), shownAt: event.at, request: null },
      };
    case 'final_submitted': {
      // Not while the AI asked for is on its way: what is judged with it is judged having seen it.
      if (step.kind !== 'final' || step.request?.state === 'asked') return state;
      const final = { ...event.judgement, response_time_ms: elapsed(event.shownAt ?? step.shownAt, event.at) };
      // Shown with the judgement, the AI is read while judging: from its first frame (asked for) or the step's.
      const shownFor = step.request?.state === 'shown' ? elapsed(step.request.at, event.at) : final.response_time_ms;
      const viewed = step.explanation && step.explanationViewMs === null ? shownFor : step.explanationViewMs;
      const answered: Extract<CaseStep, { kind: 'survey' }> = { kind: 'survey', initial: step.initial, explanation: step.explanation, explanationViewMs: viewed, final };
      // The questions ask about the AI: none where it was on request and not asked for.
      const asks = plan.ratings.length > 0 && (step.explanation !== null || plan.ai === 'none');
      return { ...state, step: asks ? answered : finish(answered, {}, event.at) };
    }
    case 'survey_submitted':
      if (step.kind !== 'survey') return state;
      return { ...state, step: finish(step, event.survey, event.at) };
  }
}
