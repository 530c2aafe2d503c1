/**
 * What a participant's between-subject condition (the study configuration's `conditions`, drawn by
 * the Worker when the main experiment starts) makes of each case: whether an initial judgement
 * comes first, what is shown of the AI and when, which per-case questions follow, and the steps
 * the indicator lists. The spec's design is one of them: initial → explanation → final → survey.
 */
import type { z } from 'zod';
import type { conditionViewSchema } from '../../../worker/schemas/main-experiment';

export type ConditionView = z.infer<typeof conditionViewSchema>;

export const SURVEY_ITEMS = ['comprehensibility', 'transparency', 'satisfaction', 'trust', 'alignment'] as const;
export type SurveyItem = (typeof SURVEY_ITEMS)[number];

/** `judgement`: the one judgement of a case that has no initial one. */
export type StepName = 'initial' | 'explanation' | 'prediction' | 'final' | 'judgement' | 'survey';

export type CasePlan = {
  /** An initial judgement before anything of the AI (and, without AI, before judging again). */
  initial: boolean;
  ai: 'none' | 'prediction' | 'explanation';
  /** The AI has a step of its own, between the initial and the final judgement. */
  aiStep: boolean;
  survey: readonly SurveyItem[];
  steps: readonly StepName[];
};

export function planOf(condition: ConditionView): CasePlan {
  if (condition.shows === 'none') {
    return condition.judgements === 2
      ? { initial: true, ai: 'none', aiStep: false, survey: [], steps: ['initial', 'final'] }
      : { initial: false, ai: 'none', aiStep: false, survey: [], steps: ['judgement'] };
  }
  const ai = condition.shows === 'explanation' ? 'explanation' : 'prediction';
  // An explanation is asked about with all five questions; the AI's prediction alone with trust only.
  const survey = ai === 'explanation' ? SURVEY_ITEMS : (['trust'] as const);
  return condition.ai_timing === 'after_initial'
    ? { initial: true, ai, aiStep: true, survey, steps: ['initial', ai, 'final', 'survey'] }
    : { initial: false, ai, aiStep: false, survey, steps: ['judgement', 'survey'] };
}

/** The tutorial and the understanding test prepare for reading the explanation chart: conditions that show one have them. */
export const needsPreparation = (condition: ConditionView) => condition.shows === 'explanation';

/** The intro's sentence for a step of the plan (`main.flow.*`). */
export function flowTextKey(step: StepName, plan: CasePlan): string {
  const by = (explanation: string, prediction: string, alone: string) => (plan.ai === 'explanation' ? explanation : plan.ai === 'prediction' ? prediction : alone);
  switch (step) {
    case 'final':
      return by('main.flow.final', 'main.flow.finalPrediction', 'main.flow.finalAlone');
    case 'judgement':
      return by('main.flow.judgementExplanation', 'main.flow.judgementPrediction', 'main.flow.judgementAlone');
    case 'survey':
      return plan.ai === 'prediction' ? 'main.flow.surveyPrediction' : 'main.flow.survey';
    default:
      return `main.flow.${step}`;
  }
}

/** The intro's lead (`main.introLead*`): judging with the AI's explanation, its prediction, or alone. */
export const introLeadKey = (plan: CasePlan) => (plan.ai === 'explanation' ? 'main.introLead' : plan.ai === 'prediction' ? 'main.introLeadPrediction' : 'main.introLeadAlone');
