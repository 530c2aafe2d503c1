/**
 * The study's enumerations: its languages, phases, when the AI is shown, what a main case showed
 * of it, and the consent items. Taken by the study configuration (`study-config.ts`), its schema
 * (`study-schema.ts`) and the dataset registry alike, so it takes nothing itself; zod-free, as the
 * participant's first page load reads it.
 */

/** UI languages; the first is the default. */
export const LANGUAGES = ['ja', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const isLanguage = (value: unknown): value is Language => (LANGUAGES as readonly unknown[]).includes(value);

export const PHASES = ['pre_experiment', 'main_experiment', 'post_survey'] as const;
export type Phase = (typeof PHASES)[number];

/** When a condition shows the AI: after the participant's own first judgement (the spec's design), or with the case. */
export const AI_TIMINGS = ['after_initial', 'with_case'] as const;
/** What happens when a judgement step's time limit runs out (a condition's `timeLimit.onTimeout`): the choice made so far is taken, or the step stays open. */
export const TIMEOUT_RULES = ['submit', 'overrun'] as const;
export type TimeoutRule = (typeof TIMEOUT_RULES)[number];
export type AiTiming = (typeof AI_TIMINGS)[number];

/**
 * What a main case showed of the AI, and why: the explanation mixed with the participant's own
 * model by alpha (`human_aligned`), the AI's own because the condition shows it by design
 * (`ai_explanation`: a condition whose alphaLevels are [1]), the AI's own as the fallback when the
 * participant's model is missing (`ai_only`), or its prediction alone.
 */
export const EXPLANATION_KINDS = ['human_aligned', 'ai_explanation', 'ai_only', 'prediction_only'] as const;

/** The seven consent items of part 1 §2, all required. */
export const CONSENT_ITEMS = ['overview', 'voluntariness', 'privacy', 'publication', 'benefits_risks', 'data_handling', 'others'] as const;
