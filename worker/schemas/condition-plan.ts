/**
 * What a between-subject condition makes of each main-experiment case, the one rule the Worker
 * checks stored answers against and the participant's pages follow: whether an initial judgement
 * comes first, what is shown of the AI, and which per-case questions follow. Zod-free, so the SPA
 * reads it too.
 */
import type { AiTiming, Condition } from './study';
import type { TimeoutRule } from './study-terms';
import type { EXPLANATION_KINDS } from './study-config';

/** The per-case questions (part 2 §3): all five follow an explanation, trust alone follows the AI's prediction alone. */
export const RATING_ITEMS = ['comprehensibility', 'transparency', 'satisfaction', 'trust', 'alignment'] as const;
export type RatingItem = (typeof RATING_ITEMS)[number];

/** A condition as far as its cases go (the start call sends it to the participant's pages in this form). */
export type ConditionShape = { shows: Condition['shows']; aiTiming: AiTiming | null; judgements: 1 | 2 };

export type AnswerPlan = {
  /** An initial judgement before anything of the AI (and, without AI, before judging again). */
  initial: boolean;
  ai: 'none' | 'prediction' | 'explanation';
  ratings: readonly RatingItem[];
};

/** The shape of a configured condition: the AI shown with the case leaves one judgement. */
export const shapeOf = (condition: Condition): ConditionShape =>
  condition.shows === 'none'
    ? { shows: 'none', aiTiming: null, judgements: condition.judgements }
    : { shows: condition.shows, aiTiming: condition.aiTiming, judgements: condition.aiTiming === 'with_case' ? 1 : 2 };

export function answerPlan(shape: ConditionShape): AnswerPlan {
  const ai = shape.shows === 'none' ? 'none' : shape.shows === 'explanation' ? 'explanation' : 'prediction';
  return { initial: shape.judgements === 2, ai, ratings: ai === 'explanation' ? RATING_ITEMS : ai === 'prediction' ? ['trust'] : [] };
}

/**
 * Whether the panel shows the AI's starting point (base rate) and its probability with the bars:
 * only where the bars are the AI's own (alpha 1, the AI's explanation by design or its fallback) and the study asks
 * for it (`mainExperiment.showAiBaseline`). The page draws by it and the Worker records it from
 * the serve by it.
 */
export const showsAiBaseline = (e: { kind: (typeof EXPLANATION_KINDS)[number]; alpha: number | null }, enabled: boolean) =>
  enabled && (e.kind === 'ai_only' || e.kind === 'ai_explanation' || e.alpha === 1);

/** Whether a condition shows the AI's own explanation by design: an explanation condition whose every alpha is 1 (`defaultAlphas`: the study's alphaLevels, for a condition without its own). */
export const showsAiExplanation = (condition: Condition, defaultAlphas: readonly number[]): boolean =>
  condition.shows === 'explanation' && (condition.alphaLevels ?? defaultAlphas).every((alpha) => alpha === 1);

/** Whether a condition shows the AI's confidence (its probability for the class it predicts) with its prediction (`aiConfidence`). */
export const showsAiConfidence = (condition: Condition): boolean => condition.shows !== 'none' && condition.aiConfidence === true;

/** The AI's confidence in its prediction: its probability for the class it predicts (0.5–1). */
export const confidenceOf = (aiProbability: number): number => Math.max(aiProbability, 1 - aiProbability);

/** Whether a condition sets the AI's accuracy on the main set (`aiAccuracy`). */
export const setsAiAccuracy = (condition: Condition): condition is Condition & { aiAccuracy: number } => condition.shows !== 'none' && condition.aiAccuracy !== undefined;

/** Which accuracy a condition's panel states (`statedAccuracy`): the model's measured one unless it says otherwise. */
export type AccuracyStatement = 'measured' | 'stated' | 'none';
export const accuracyStatementOf = (condition: Condition): AccuracyStatement | null =>
  condition.shows === 'none' ? null : condition.statedAccuracy === undefined || condition.statedAccuracy === 'measured' ? 'measured' : condition.statedAccuracy === 'none' ? 'none' : 'stated';

/**
 * The accuracy the panel states for a condition (0–1), null when it states none: the stated
 * figure, or the pinned model's measured test accuracy (the study's fixed figure for the dataset
 * where the model has none recorded, part 1 §8).
 */
export function statedAccuracyOf(condition: Condition, measured: number | null, fallbackPercent: number): number | null {
  if (condition.shows === 'none' || condition.statedAccuracy === 'none') return null;
  if (typeof condition.statedAccuracy === 'object') return condition.statedAccuracy.figure;
  return measured ?? fallbackPercent / 100;
}

/** The debrief a condition's participant reads when they finish: only where its panel stated a figure that is not the measured one. */
export const debriefOf = (condition: Condition): { ja: string; en: string } | null =>
  condition.shows !== 'none' && typeof condition.statedAccuracy === 'object' ? condition.statedAccuracy.debrief : null;

/** Whether a condition shows the true outcome after each main case (`outcomeFeedback`). */
export const givesOutcomeFeedback = (condition: Condition): boolean => condition.outcomeFeedback === true;

/** Whether a condition serves the AI only when the participant asks for it on the case (`adviceOnRequest`). */
export const advisesOnRequest = (condition: Condition): boolean => condition.shows !== 'none' && condition.adviceOnRequest === true;

/** How long after the kept initial judgement a condition's AI may be served (`adviceWaitSeconds`), in ms; 0 without a wait. */
export const adviceWaitMsOf = (condition: Condition): number => (condition.shows === 'none' ? 0 : (condition.adviceWaitSeconds ?? 0) * 1000);

/** A condition's time limit per judgement step (`timeLimit`), in ms, with what happens when it runs out; null without one. */
export type StepTimeLimit = { ms: number; onTimeout: TimeoutRule };
export const timeLimitOf = (condition: Condition): StepTimeLimit | null =>
  condition.timeLimit ? { ms: condition.timeLimit.seconds * 1000, onTimeout: condition.timeLimit.onTimeout } : null;

/**
 * The plan of a case whose advice was on request and not asked for: the participant's judgements
 * alone, and none of the questions about the AI, which they did not see.
 */
export const unadvisedPlan = (plan: AnswerPlan): AnswerPlan => ({ initial: plan.initial, ai: 'none', ratings: [] });

/** A condition's incentive as the participant's pages read it (the start call's `incentive`, the consent's text); null without one. */
export type IncentiveScheme = { base: number; bonus_per_correct: number; bonus_per_correct_pre: number; cap: number; currency: string };
export const incentiveSchemeOf = (condition: Condition): IncentiveScheme | null =>
  condition.incentive
    ? {
        base: condition.incentive.base,
        bonus_per_correct: condition.incentive.bonusPerCorrect,
        bonus_per_correct_pre: condition.incentive.bonusPerCorrectPre ?? 0,
        cap: condition.incentive.cap,
        currency: condition.incentive.currency,
      }
    : null;

/** A condition's incentive in whole cents of its currency (`incentive`); null without one. */
export type IncentiveCents = { currency: string; baseCents: number; perCorrectCents: number; perCorrectPreCents: number; capCents: number };
const cents = (amount: number) => Math.round(amount * 100);
export const incentiveOf = (condition: Condition): IncentiveCents | null =>
  condition.incentive
    ? {
        currency: condition.incentive.currency,
        baseCents: cents(condition.incentive.base),
        perCorrectCents: cents(condition.incentive.bonusPerCorrect),
        perCorrectPreCents: cents(condition.incentive.bonusPerCorrectPre ?? 0),
        capCents: cents(condition.incentive.cap),
      }
    : null;

/** The bonus for the correct judgements counted: per correct final (and pre-experiment) judgement, at most the cap, in cents. */
export const bonusCentsOf = (incentive: IncentiveCents, correctFinal: number, correctPre: number): number =>
  Math.min(incentive.capCents, correctFinal * incentive.perCorrectCents + correctPre * incentive.perCorrectPreCents);
