/**
 * What a participant's between-subject condition (the study configuration's `conditions`, drawn by
 * the Worker when the main experiment starts) makes of each case: whether an initial judgement
 * comes first, what is shown of the AI and when, which per-case questions follow, and the steps
 * the indicator lists. The spec's design is one of them: initial → explanation → final → survey.
 */
import type { z } from 'zod';
import { answerPlan, type AnswerPlan } from '../../../worker/schemas/condition-plan';
import type { conditionViewSchema } from '../../../worker/schemas/main-experiment';

export type ConditionView = z.infer<typeof conditionViewSchema>;

/** `judgement`: the one judgement of a case that has no initial one. */
export type StepName = 'initial' | 'explanation' | 'prediction' | 'final' | 'judgement' | 'survey' | 'feedback';

/** The condition's answer plan (the rule the Worker checks stored cases against), with the steps the pages run through. */
export type CasePlan = AnswerPlan & {
  /** The AI has a step of its own, between the initial and the final judgement. */
  aiStep: boolean;
  /** The true outcome is shown once the case is stored (the condition's outcomeFeedback), its last step. */
  feedback: boolean;
  /** The AI only when asked for, on the final judgement's step (the condition's adviceOnRequest). */
  onRequest: boolean;
  /** How long after the initial judgement the AI may be shown (adviceWaitSeconds), in ms; 0 without a wait. */
  waitMs: number;
  /** Each judgement step's time limit (timeLimit), in ms, and what happens when it runs out; null without one. */
  timeLimit: { ms: number; onTimeout: 'submit' | 'overrun' } | null;
  steps: readonly StepName[];
};

export function planOf(condition: ConditionView): CasePlan {
  const plan = answerPlan({ shows: condition.shows, aiTiming: condition.ai_timing, judgements: condition.judgements });
  const onRequest = condition.advice_on_request;
  const aiStep = plan.initial && plan.ai !== 'none' && !onRequest;
  const judging: StepName[] = plan.initial ? ['initial', ...(aiStep ? [plan.ai as StepName] : []), 'final'] : ['judgement'];
  const steps: StepName[] = [...judging, ...(plan.ratings.length > 0 ? (['survey'] as const) : []), ...(condition.outcome_feedback ? (['feedback'] as const) : [])];
  const limit = condition.time_limit;
  return {
    ...plan,
    aiStep,
    feedback: condition.outcome_feedback,
    onRequest,
    waitMs: (condition.advice_wait_seconds ?? 0) * 1000,
    timeLimit: limit ? { ms: limit.seconds * 1000, onTimeout: limit.on_timeout } : null,
    steps,
  };
}

/** The practice case's plan: the real cases' steps, but no outcome, since nothing of the practice is stored. */
export const practicePlanOf = (plan: CasePlan): CasePlan => ({ ...plan, feedback: false, steps: plan.steps.filter((step) => step !== 'feedback') });

/** The tutorial and the understanding test prepare for reading the explanation chart: conditions that show one have them. */
export const needsPreparation = (condition: ConditionView) => condition.shows === 'explanation';

/** The intro's sentences for a step of the plan (`main.flow.*`; `main.flow.wait` takes `seconds`). */
export function flowTextKeys(step: StepName, plan: CasePlan): string[] {
  const main = flowTextKey(step, plan);
  // A forced wait is said where the AI comes: its own step, or the final one that offers it.
  const waits = plan.waitMs > 0 && (step === 'explanation' || step === 'prediction' || (step === 'final' && plan.onRequest));
  return waits ? [main, 'main.flow.wait'] : [main];
}

function flowTextKey(step: StepName, plan: CasePlan): string {
  const by = (explanation: string, prediction: string, alone: string) => (plan.ai === 'explanation' ? explanation : plan.ai === 'prediction' ? prediction : alone);
  switch (step) {
    case 'final':
      if (plan.onRequest) return by('main.flow.finalOnRequest', 'main.flow.finalOnRequestPrediction', 'main.flow.finalAlone');
      return by('main.flow.final', 'main.flow.finalPrediction', 'main.flow.finalAlone');
    case 'judgement':
      return by('main.flow.judgementExplanation', 'main.flow.judgementPrediction', 'main.flow.judgementAlone');
    case 'survey':
      if (plan.onRequest) return plan.ai === 'prediction' ? 'main.flow.surveyOnRequestPrediction' : 'main.flow.surveyOnRequest';
      return plan.ai === 'prediction' ? 'main.flow.surveyPrediction' : 'main.flow.survey';
    default:
      return `main.flow.${step}`;
  }
}

/** The intro's lead (`main.introLead*`): judging with the AI's explanation, its prediction, or alone. */
export const introLeadKey = (plan: CasePlan) => (plan.ai === 'explanation' ? 'main.introLead' : plan.ai === 'prediction' ? 'main.introLeadPrediction' : 'main.introLeadAlone');
