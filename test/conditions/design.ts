/**
 * The between-subject design the `conditions` test project runs: the worked example of docs/running-a-study.md:
 * four conditions (no AI, the AI's prediction alone, the AI's own explanation, the human-aligned
 * explanation), two variants of when the AI appears and how often one judges alone, the
 * prediction with the AI's confidence and the prediction of an AI right on 70 % of the cases
 * (issue #58, elements 3 and 1).
 */
import { conditionSchema, type Condition } from '../../worker/schemas/study';

export const DESIGN: Condition[] = [
  { name: 'no_ai', shows: 'none', judgements: 2, share: 1 },
  { name: 'prediction_only', shows: 'ai_prediction', aiTiming: 'after_initial', share: 1 },
  { name: 'prediction_confidence', shows: 'ai_prediction', aiTiming: 'after_initial', aiConfidence: true, share: 1 },
  { name: 'prediction_70', shows: 'ai_prediction', aiTiming: 'after_initial', aiAccuracy: 0.7, share: 1 },
  { name: 'ai_explanation', shows: 'explanation', aiTiming: 'after_initial', alphaLevels: [1], share: 1 },
  { name: 'human_aligned', shows: 'explanation', aiTiming: 'after_initial', share: 1 },
  { name: 'explanation_with_case', shows: 'explanation', aiTiming: 'with_case', share: 1 },
  { name: 'no_ai_once', shows: 'none', judgements: 1, share: 1 },
].map((c) => conditionSchema.parse(c));
