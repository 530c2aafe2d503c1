/**
 * The understanding test of the main experiment (part 2 §2.1): one definition of the question
 * pool, the sample explanation each dataset's questions are about, the draw, and the scoring.
 * The SPA renders and checks from it; the Worker scores the stored attempts from it, so what a
 * researcher reports as comprehension is the same rule the participant was shown.
 *
 * Question and option texts live in the i18n files under `mainTest.questions.<id>`; an option
 * key `feature_<role>` names a feature of the sample, `label_positive` / `label_negative` the
 * dataset's prediction labels. No question mentions the alignment of explanations: the study
 * discloses it only in the post-survey. Kept free of zod, since the browser loads it; the wire
 * shape of a stored attempt is in `main-experiment.ts`.
 */
import { datasetOf } from './datasets';
import { studyConfig, type DatasetType } from './study-config';

/** The four features of a sample, by the part each plays in its chart. */
export const SAMPLE_ROLES = ['a', 'b', 'c', 'd'] as const;
export type SampleRole = (typeof SAMPLE_ROLES)[number];

/** Below this share a bar reads as "no influence" (part 2 §2.1). */
export const NO_INFLUENCE_BELOW = 0.01;
/** The samples are shown as a case at this alpha would be (part 2 §2.1). */
export const SAMPLE_ALPHA = 0.5;

export type SampleFeature = { feature: string; value: string | number; ai: number; user: number };

/**
 * A sample explanation: the AI's and a participant model's signed shares for the four features
 * the chart offers (each set's absolute values sum to 1 with the features not shown), and the
 * prediction. Roles: a pushes most toward the positive label, b toward the negative, c a little
 * toward the positive, d has no influence (|share| < 0.01 after mixing).
 */
export type UnderstandingSample = { prediction: 0 | 1; features: Record<SampleRole, SampleFeature>; otherAi: number; otherUser: number };

/** A dataset's sample, as its definition gives it (or set-up or the dashboard derived it); added datasets included once registered. */
export const understandingSampleOf = (dataset: DatasetType): UnderstandingSample => datasetOf(dataset).understandingSample as UnderstandingSample;

/** A sample's bars as shown: the two sets mixed at SAMPLE_ALPHA (their signs agree, so no renormalising is needed). */
export function sampleShares(sample: UnderstandingSample): { role: SampleRole; feature: string; value: string | number; share: number }[] {
  return SAMPLE_ROLES.map((role) => {
    const f = sample.features[role];
    return { role, feature: f.feature, value: f.value, share: SAMPLE_ALPHA * f.ai + (1 - SAMPLE_ALPHA) * f.user };
  });
}

/**
 * What the sample chart's caption says: the share of the influence the four bars shown carry, and
 * the share spread over the features not shown (the two make 100 %).
 */
export function sampleCaptionShares(sample: UnderstandingSample): { shown: number; other: number } {
  const shown = sampleShares(sample).reduce((sum, bar) => sum + Math.abs(bar.share), 0);
  return { shown, other: SAMPLE_ALPHA * sample.otherAi + (1 - SAMPLE_ALPHA) * sample.otherUser };
}

export type UnderstandingQuestion = {
  id: string;
  /** `chart`: about the sample chart shown above the question; `concept`: about reading any explanation. */
  type: 'chart' | 'concept';
  options: readonly string[];
  correct: string;
};

const features = ['feature_a', 'feature_b', 'feature_c', 'feature_d'] as const;
const directions = ['label_positive', 'label_negative', 'no_influence'] as const;

/** The pool (17 questions); five are drawn per attempt. */
/**
 * The sample chart's feature an option names (`feature_a` … `feature_d`), or null: other options
 * that start alike, such as `feature_share`, are texts of their own.
 */
export const sampleRoleOf = (option: string): SampleRole | null => {
  const role = option.startsWith('feature_') ? option.slice('feature_'.length) : null;
  return SAMPLE_ROLES.find((r) => r === role) ?? null;
};

export const UNDERSTANDING_QUESTIONS: readonly UnderstandingQuestion[] = [
  { id: 'chart_strongest', type: 'chart', options: features, correct: 'feature_a' },
  { id: 'chart_direction_a', type: 'chart', options: directions, correct: 'label_positive' },
  { id: 'chart_direction_b', type: 'chart', options: directions, correct: 'label_negative' },
  { id: 'chart_direction_d', type: 'chart', options: directions, correct: 'no_influence' },
  { id: 'chart_no_influence', type: 'chart', options: features, correct: 'feature_d' },
  { id: 'chart_against', type: 'chart', options: features, correct: 'feature_b' },
  { id: 'chart_prediction', type: 'chart', options: ['label_positive', 'label_negative'], correct: 'label_positive' },
  { id: 'chart_compare', type: 'chart', options: ['feature_b', 'feature_c', 'same'], correct: 'feature_b' },
  { id: 'chart_share', type: 'chart', options: ['pct_5', 'pct_40', 'pct_80', 'pct_100'], correct: 'pct_40' },
  { id: 'concept_length', type: 'concept', options: ['influence', 'accuracy', 'value', 'agreement'], correct: 'influence' },
  { id: 'concept_right', type: 'concept', options: ['toward_positive', 'toward_negative', 'no_influence', 'correct'], correct: 'toward_positive' },
  { id: 'concept_sum', type: 'concept', options: ['hundred', 'accuracy', 'feature_count', 'varies'], correct: 'hundred' },
  { id: 'concept_scope', type: 'concept', options: ['this_case', 'everyone', 'training', 'your_answers'], correct: 'this_case' },
  { id: 'concept_decision', type: 'concept', options: ['you', 'ai', 'follow_ai', 'researcher'], correct: 'you' },
  { id: 'concept_certainty', type: 'concept', options: ['no', 'yes', 'above_half', 'positive_only'], correct: 'no' },
  { id: 'concept_accuracy', type: 'concept', options: ['test_cases', 'your_accuracy', 'this_case', 'feature_share'], correct: 'test_cases' },
  { id: 'concept_small', type: 'concept', options: ['none', 'strongest', 'missing', 'negative'], correct: 'none' },
];

const byId = new Map(UNDERSTANDING_QUESTIONS.map((q) => [q.id, q]));
export const understandingQuestion = (id: string) => byId.get(id);

/** Fisher–Yates over a copy; `random` returns [0, 1). */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Draws an attempt's questions (distinct, in random order) with their options shuffled. */
export function drawUnderstandingQuestions(random: () => number = Math.random, count = studyConfig.mainExperiment.understandingTestQuestions): UnderstandingQuestion[] {
  return shuffled(UNDERSTANDING_QUESTIONS, random)
    .slice(0, count)
    .map((q) => ({ ...q, options: shuffled(q.options, random) }));
}

/** How many answers are right; the test is passed only when every drawn question is (part 2 §5). */
export function scoreUnderstanding(answers: readonly { question_id: string; answer: string }[]) {
  const correct = answers.filter((a) => understandingQuestion(a.question_id)?.correct === a.answer).length;
  return { correct, total: answers.length, passed: answers.length === studyConfig.mainExperiment.understandingTestQuestions && correct === answers.length };
}
