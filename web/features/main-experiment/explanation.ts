/**
 * Fetching a case's explanation as the panel shows it (part 2 §4 "Explanation"): the
 * human-aligned call first; if it fails, the AI-only fallback; if both fail, the caller shows the
 * failure screen. Both answers become one `ShownExplanation`, the payload stored with the trial.
 */
import type { InferResponseType } from 'hono/client';
import { api, ApiError, unwrap } from '../../lib/api';
import { studyConfig } from '../../../worker/schemas/study-config';
import { logger } from '../../lib/error-log';
import { saysStudyMovedOn } from '../../lib/use-study-moved-on';
import { showsAiBaseline as baselineRule } from '../../../worker/schemas/condition-plan';
import type { TimedJudgement } from '../../components/ui/judgement-input';

export type Contribution = { feature: string; importance: number; abs_importance: number; raw_shap: number };

export type ShownExplanation = {
  /** `prediction_only`: the participant's condition shows the AI's prediction without bars. */
  kind: 'human_aligned' | 'ai_explanation' | 'ai_only' | 'prediction_only';
  prediction: 0 | 1;
  /** Null where only the prediction is shown (the server sends no more). */
  aiProbability: number | null;
  /** The AI's confidence in its prediction (0.5–1), where the condition shows it; else null. */
  aiConfidence: number | null;
  /** The AI's starting point before any feature is looked at (its base rate). */
  aiBaseProbability: number | null;
  modelIdentifier: string;
  /** Test accuracy recorded with the AI model, where the panel states it; null when unknown or not stated. */
  testAccuracy: number | null;
  /** The accuracy the panel states (0–1), the server's: the measured one, a figure the condition states, or null for none. */
  statedAccuracy: number | null;
  accuracyStatement: 'measured' | 'stated' | 'none';
  /** The alpha the bars mix with; null without bars. */
  alpha: number | null;
  ai: Contribution[];
  user: Contribution[];
  /** The bars on screen. */
  shown: Contribution[];
  userModelAvailable: boolean;
  userModelIdentifier: string | null;
  userModelPrediction: 0 | 1 | null;
  userModelProbability: number | null;
  /** The server's record of this serve, which the stored case names. */
  servedId: number | null;
};

type HumanAligned = InferResponseType<(typeof api.api)['human-aligned-explanation']['$post'], 200>;

const fromHumanAligned = (r: HumanAligned): ShownExplanation => ({
  kind: r.explanation_kind,
  prediction: r.prediction,
  aiProbability: r.ai_probability,
  aiConfidence: r.ai_confidence,
  aiBaseProbability: r.ai_base_probability,
  modelIdentifier: r.model_identifier,
  testAccuracy: r.model_test_accuracy,
  statedAccuracy: r.stated_accuracy,
  accuracyStatement: r.accuracy_statement,
  alpha: r.alignment_alpha,
  ai: r.ai_feature_importance,
  user: r.user_feature_importance,
  shown: r.shown_feature_importance,
  userModelAvailable: r.user_model_available,
  userModelIdentifier: r.user_model_identifier,
  userModelPrediction: r.user_model_prediction,
  userModelProbability: r.user_model_probability,
  servedId: r.served_explanation_id,
});

/**
 * Whether the panel shows the AI's base rate and probability with the bars: only where the bars
 * are the AI's own (alpha 1, or the AI-only fallback), and only when the study configuration asks
 * for it. The stored case records the same answer.
 */
export const showsAiBaseline = (e: Pick<ShownExplanation, 'kind' | 'alpha'>, enabled: boolean = studyConfig.mainExperiment.showAiBaseline) => baselineRule(e, enabled);

/** The server's answer to a request for the AI before the condition's forced wait has run (ask again shortly). */
export const saysAdviceNotYet = (err: unknown) => err instanceof ApiError && err.status === 409 && err.code === 'advice_not_yet';

export class ExplanationUnavailable extends Error {
  override readonly name = 'ExplanationUnavailable';
}

/** The AI's prediction without its bars, for a condition that shows no more (the AI-only fallback has bars). */
const withoutBars = (e: ShownExplanation): ShownExplanation => ({
  ...e,
  kind: 'prediction_only',
  alpha: null,
  ai: [],
  user: [],
  shown: [],
  aiProbability: null,
  aiBaseProbability: null,
  userModelAvailable: false,
  userModelIdentifier: null,
  userModelPrediction: null,
  userModelProbability: null,
});

/**
 * The explanation of a case for this participant, as the server serves and records it (it holds
 * every alpha; `alpha` is the spec's field, sent along and not used). `predictionOnly`: the
 * condition shows the prediction alone.
 */
export async function fetchExplanation(input: {
  sessionId: string;
  caseId: string;
  alpha: number | null;
  predictionOnly?: boolean;
  /** The participant's initial judgement: the request revealing the AI carries it, and the server keeps it before it shows anything. */
  initial?: TimedJudgement | null;
}): Promise<ShownExplanation> {
  const { initial } = input;
  const carried = initial
    ? {
        initial_prediction: initial.prediction,
        initial_confidence: initial.confidence,
        initial_response_time_ms: initial.response_time_ms,
        ...(initial.reasoning ? { initial_reasoning: initial.reasoning } : {}),
        ...(initial.timed_out ? { initial_timed_out: true } : {}),
      }
    : {};
  const noted = (e: ShownExplanation) => {
    // Part 1 §8: without the model's accuracy the panel shows the study's fixed figure.
    if (e.accuracyStatement === 'measured' && e.testAccuracy === null) logger.fallback('model_accuracy', 'モデル精度の取得に失敗しました');
    return input.predictionOnly ? withoutBars(e) : e;
  };
  try {
    const r = await unwrap(
      await api.api['human-aligned-explanation'].$post({
        json: { session_id: input.sessionId, case_id: input.caseId, ...(input.alpha === null ? {} : { alignment_alpha: input.alpha }), ...carried },
      }),
    );
    return noted(fromHumanAligned(r));
  } catch (first) {
    // The case went further elsewhere (stored, or judged differently), or the wait is not over: no fallback can change that.
    if (saysStudyMovedOn(first) || saysAdviceNotYet(first)) throw first;
    logger.fallback('explanation', `human-aligned explanation failed; using the AI-only one: ${String(first)}`);
    try {
      // The spec's AI-only route: with the session it answers the same serve (the server decides what is served, not the route).
      const query = { session_id: input.sessionId, ...Object.fromEntries(Object.entries(carried).map(([k, v]) => [k, String(v)])) };
      const r = await unwrap(await api.api.experiments.explanations[':caseId'].$get({ param: { caseId: input.caseId }, query }));
      if (!r.explanation) throw new Error(`no serve of ${input.caseId} for ${input.sessionId}`);
      return noted(fromHumanAligned(r.explanation));
    } catch (second) {
      const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));
      throw new ExplanationUnavailable(`${reason(first)} / ${reason(second)}`);
    }
  }
}
