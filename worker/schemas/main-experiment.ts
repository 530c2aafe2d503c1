/**
 * Wire shapes of the main experiment (part 2 §3 and §7): starting it with the session's stored
 * case set, and the alignment alpha of each case.
 */
import { z } from 'zod';
import { freeText } from './free-text';
import { caseSchema, sessionIdSchema } from './experiment';
import { AI_TIMINGS, datasetTypeSchema, EXPLANATION_KINDS, studyConfig } from './study';
import { TIMEOUT_RULES } from './study-terms';
import { understandingQuestion } from './understanding-test';

const prediction = z.union([z.literal(0), z.literal(1)]);
const confidence = z.number().int().min(studyConfig.confidence.min).max(studyConfig.confidence.max);
const rating = z.number().int().min(1).max(5);
/** A step taking longer than a day is a client clock error, not a judgement. */
const durationMs = z.number().int().min(0).max(24 * 3600 * 1000);
const reasoning = freeText(studyConfig.reasoningMaxLength).nullish();
/** The page's word that a judgement step's countdown ran out before the judgement was given (a condition's timeLimit); the Worker checks it against its own clock. */
const timedOut = z.boolean().optional();
const caseIdSchema = z.string().min(1).max(100).regex(/^[A-Za-z0-9_-]+$/, 'invalid case ID');

/** A judgement the server keeps for a case under way (`main_trial_progress`). */
export const keptJudgementSchema = z.object({
  prediction,
  confidence,
  response_time_ms: z.number().int(),
  reasoning: z.string().nullable(),
  /** The page said the step's time limit ran out before the judgement was given (a condition's timeLimit). */
  timed_out: z.boolean(),
});
export type KeptJudgement = z.infer<typeof keptJudgementSchema>;

/**
 * A case of the main set that is under way, as far as the server has kept it: the initial
 * judgement (kept when the AI was revealed), the time the explanation was read once the
 * participant moved on, and the final judgement before the per-case questions. A reload or
 * another device resumes the case at the step this says.
 */
export const keptProgressSchema = z.object({
  case_id: z.string(),
  initial: keptJudgementSchema.nullable(),
  explanation_viewing_time_ms: z.number().int().nullable(),
  final: keptJudgementSchema.nullable(),
});
export type KeptProgress = z.infer<typeof keptProgressSchema>;
/**
 * A case under way as the page is told it: what was kept, whether the AI was served for it (with
 * advice on request, whether it was asked for), and how many ms of a forced wait are left by the
 * Worker's clock (null where the condition has no wait or the initial judgement is not kept yet).
 */
export const caseInProgressSchema = keptProgressSchema.extend({
  advice_served: z.boolean(),
  advice_wait_left_ms: z.number().int().nonnegative().nullable(),
  /** Ms of the time limit left for the step the case is at, by the Worker's clock from when the step opened (null without a limit, or before the Worker saw the step open). */
  step_time_left_ms: z.number().int().nonnegative().nullable(),
});
export type CaseInProgress = z.infer<typeof caseInProgressSchema>;

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');
const numCases = z.coerce.number().int().min(1).max(studyConfig.mainExperiment.resumeRequestCases);

/**
 * `POST /api/experiments/main/start?session_id&num_cases[&participant_id]` (the spec's query form);
 * the same fields may come as a JSON body instead. `debug` / `tutorial` skip the check that the
 * pre-experiment is complete, as the spec's `?debug=true` and `?tutorial=true` do.
 */
export const mainStartQuerySchema = z.object({
  session_id: sessionIdSchema.optional(),
  num_cases: numCases.optional(),
  participant_id: sessionIdSchema.optional(),
  debug: flag.optional(),
  tutorial: flag.optional(),
});

export const mainStartBodySchema = z.object({
  session_id: sessionIdSchema.optional(),
  num_cases: z.number().int().min(1).max(studyConfig.mainExperiment.resumeRequestCases).optional(),
  participant_id: sessionIdSchema.optional(),
  debug: z.boolean().optional(),
  tutorial: z.boolean().optional(),
});

/** A main-experiment case as the participant gets it: no ground truth, with its alignment alpha. */
/** A case of the main set with the alpha it is explained with; null in a condition that shows no explanation. */
export const mainCaseSchema = caseSchema.extend({ alignment_alpha: z.number().min(0).max(1).nullable() });

/** The participant's between-subject condition, as the main experiment's pages follow it (study configuration `conditions`). */
export const conditionViewSchema = z.object({
  name: z.string(),
  shows: z.enum(['none', 'ai_prediction', 'explanation']),
  /** When the AI is shown: after the participant's own first judgement, or with the case; null when it is not shown. */
  ai_timing: z.enum(AI_TIMINGS).nullable(),
  /** Judgements per case: 2 (initial and final), or 1 (the AI shown with the case, or judging alone once). */
  judgements: z.union([z.literal(1), z.literal(2)]),
  /** The true outcome is shown after each case, once it is stored (`GET /api/experiments/main/feedback`). */
  outcome_feedback: z.boolean(),
  /** The AI is served only when the participant asks for it on a case, after the initial judgement (`adviceOnRequest`). */
  advice_on_request: z.boolean(),
  /** The AI is served no sooner than this many seconds after the kept initial judgement (`adviceWaitSeconds`); null without a wait. */
  advice_wait_seconds: z.number().int().positive().nullable(),
  /** Each judgement step's time limit (`timeLimit`): counted down on the page, timed by the Worker from when the step opened; null without one. */
  time_limit: z.object({ seconds: z.number().int().positive(), on_timeout: z.enum(TIMEOUT_RULES) }).nullable(),
  /** What the condition pays (`incentive`): a base payment and a bonus per correct judgement, at most the cap; null without one. */
  incentive: z
    .object({ base: z.number(), bonus_per_correct: z.number(), bonus_per_correct_pre: z.number(), cap: z.number(), currency: z.string() })
    .nullable(),
});
export type MainCase = z.infer<typeof mainCaseSchema>;

export const mainStartResponseSchema = z.object({
  success: z.literal(true),
  session_id: z.string(),
  dataset_type: datasetTypeSchema,
  case_set: z.array(mainCaseSchema),
  /** Cases of the set the database already holds an integrated response for. */
  answered_case_ids: z.array(z.string()),
  /** The set existed before this call (a resume or a retried start). */
  is_resumed: z.boolean(),
  /** Integrated responses already stored; the next case is `completed_cases + 1`. */
  completed_cases: z.number().int(),
  total_cases: z.number().int(),
  condition: conditionViewSchema,
  /** Cases of the set begun and not yet stored, with what the server kept of each (normally one, or none). */
  cases_in_progress: z.array(caseInProgressSchema),
});

export const alignmentAlphaParamSchema = z
  .object({
    sessionId: sessionIdSchema,
    caseIndex: z.coerce.number().int().min(0).max(studyConfig.mainExperiment.resumeRequestCases - 1),
    total: z.coerce.number().int().min(1).max(studyConfig.mainExperiment.resumeRequestCases),
  })
  .refine((p) => p.caseIndex < p.total, { message: 'caseIndex must be below total', path: ['caseIndex'] });

export const alignmentAlphaResponseSchema = z.object({
  session_id: z.string(),
  case_index: z.number().int(),
  total: z.number().int(),
  alpha: z.number().min(0).max(1),
  /** `stored`: fixed with the session's case set; `schedule`: the same schedule before the set exists; `fallback`: the spec's 0.5. */
  source: z.enum(['stored', 'schedule', 'fallback']),
});

/**
 * The initial judgement carried by the request that reveals the AI for a case of the main set, in
 * a condition that asks for one before the AI: the server keeps it before it shows anything, and
 * the stored trial takes it from there. All three of prediction, confidence and time, or none.
 */
function carriedInitial<P extends z.ZodTypeAny, C extends z.ZodTypeAny, D extends z.ZodTypeAny>(p: P, c: C, d: D) {
  return { initial_prediction: p.optional(), initial_confidence: c.optional(), initial_response_time_ms: d.optional(), initial_reasoning: reasoning, initial_timed_out: timedOut };
}
/**
 * A judgement (`initial` or `final`) comes whole or not at all: all three of its prediction,
 * confidence and time, or none (then the one the server kept, where it kept one).
 */
const wholeJudgement = (prefix: 'initial' | 'final') => {
  const parts = [`${prefix}_prediction`, `${prefix}_confidence`, `${prefix}_response_time_ms`] as const;
  return (v: Record<string, unknown>, ctx: z.RefinementCtx) => {
    const given = parts.filter((k) => v[k] !== undefined);
    if (given.length === 0 || given.length === parts.length) return;
    for (const k of parts) if (v[k] === undefined) ctx.addIssue({ code: 'custom', path: [k], message: `${k} is required with ${given.join(', ')}` });
  };
};
const wholeInitial = wholeJudgement('initial');

/**
 * `POST /api/human-aligned-explanation`. The case is named by `case_id` (or `case_data.case_id`,
 * as the spec's clients send it); its features come from the server's case table, never from
 * the client. `alignment_alpha` is accepted and ignored: a main case gets the alpha stored with the
 * session's set, the practice case the condition's level nearest the study's fallback alpha.
 */
export const explanationBodySchema = z
  .object({
    session_id: sessionIdSchema,
    case_id: caseIdSchema.optional(),
    case_data: z.object({ case_id: caseIdSchema.optional() }).catchall(z.unknown()).optional(),
    alignment_alpha: z.number().min(0).max(1).optional(),
    dataset_type: datasetTypeSchema.optional(),
    ...carriedInitial(prediction, confidence, durationMs),
  })
  .superRefine(wholeInitial);

export const featureContributionSchema = z.object({
  feature: z.string(),
  importance: z.number(),
  abs_importance: z.number(),
  raw_shap: z.number(),
});

export const explanationResponseSchema = z.object({
  success: z.literal(true),
  session_id: z.string(),
  case_id: z.string(),
  dataset_type: datasetTypeSchema,
  /** The AI model's prediction (probability ≥ 0.5) and probability. */
  prediction: z.union([z.literal(0), z.literal(1)]),
  /** Null where the condition shows the prediction alone (the page is sent nothing it does not show). */
  ai_probability: z.number().nullable(),
  /**
   * The AI's confidence in its prediction (its probability for the class it predicts, 0.5–1), for
   * the panel to show: sent only where the condition shows it (`aiConfidence`), else null.
   */
  ai_confidence: z.number().min(0.5).max(1).nullable(),
  /**
   * The AI's starting point: the probability its trees give before any feature is looked at (the
   * sigmoid of TreeSHAP's base value); the bars move it to `ai_probability`.
   */
  ai_base_probability: z.number().nullable(),
  model_identifier: z.string(),
  /**
   * The AI model's accuracy on its held-out test cases, where the panel states it (the condition's
   * statedAccuracy is `measured`); null when not recorded, or when the condition states another
   * figure or none (the page is not sent what it does not show).
   */
  model_test_accuracy: z.number().nullable(),
  /** Which accuracy the panel states: the model's measured one, a figure the condition states, or none. */
  accuracy_statement: z.enum(['measured', 'stated', 'none']),
  /** The accuracy the panel states (0–1), as the serve recorded it; null with none. */
  stated_accuracy: z.number().min(0).max(1).nullable(),
  /** The alpha the bars mix with (1: the AI's own by design); null without a mix (the prediction alone, the AI-only fallback). */
  alignment_alpha: z.number().nullable(),
  ai_feature_importance: z.array(featureContributionSchema),
  user_feature_importance: z.array(featureContributionSchema),
  /** The bars shown to the participant. */
  shown_feature_importance: z.array(featureContributionSchema),
  explanation_kind: z.enum(EXPLANATION_KINDS),
  human_aligned_used: z.boolean(),
  user_model_available: z.boolean(),
  user_model_identifier: z.string().nullable(),
  /** The spec's rule (user shares summing above 0); the model's own probability beside it. */
  user_model_prediction: z.union([z.literal(0), z.literal(1)]).nullable(),
  user_model_probability: z.number().nullable(),
  /**
   * The Worker's record of this serve (a case of the session's main set, or its practice case):
   * the trial names it, and its AI side is stored from the record.
   */
  served_explanation_id: z.number().int().nullable(),
});
export type ExplanationResponse = z.infer<typeof explanationResponseSchema>;

const contributions = z.array(featureContributionSchema).max(100);

/**
 * `POST /api/experiments/main/integrated-response`: one main-experiment case as a whole (part 2
 * §3). The case number, ground truth, features and alpha come from the server's tables (the
 * client's copies are accepted and ignored); the explanation is stored exactly as it was shown.
 * What a case holds follows the session's condition (the study configuration's `conditions`): the
 * initial judgement only where one is asked before the final, the AI's prediction only where it is
 * shown, its explanation and the explanation items only where one is shown; the Worker refuses a
 * case that does not fit (`answerFits`).
 */
export const integratedResponseBodySchema = z.object({
  session_id: sessionIdSchema,
  case_id: caseIdSchema,
  case_number: z.number().int().optional(),
  ground_truth: z.number().int().nullish(),
  case_data: z.unknown().optional(),
  alignment_alpha: z.number().min(0).max(1).nullish(),
  initial_prediction: prediction.nullish(),
  initial_confidence: confidence.nullish(),
  initial_response_time_ms: durationMs.nullish(),
  initial_reasoning: reasoning,
  initial_timed_out: timedOut,
  /** Left out (all three) where the server kept the final judgement at its checkpoint: the kept one is stored. */
  final_prediction: prediction.optional(),
  final_confidence: confidence.optional(),
  final_response_time_ms: durationMs.optional(),
  final_reasoning: reasoning,
  final_timed_out: timedOut,
  ai_prediction: prediction.nullish(),
  ai_model_prediction: prediction.nullish(),
  user_model_prediction: prediction.nullish(),
  ai_feature_importance: contributions.optional(),
  user_feature_importance: contributions.optional(),
  shown_feature_importance: contributions.optional(),
  explanation_kind: z.enum(EXPLANATION_KINDS).optional(),
  ai_model_identifier: z.string().max(200).nullish(),
  user_model_identifier: z.string().max(200).nullish(),
  ai_probability: z.number().min(0).max(1).nullish(),
  user_model_probability: z.number().min(0).max(1).nullish(),
  comprehensibility: rating.nullish(),
  transparency: rating.nullish(),
  satisfaction: rating.nullish(),
  trust: rating.nullish(),
  alignment: rating.nullish(),
  explanation_viewing_time_ms: durationMs.nullish(),
  total_task_time_ms: durationMs,
  /** The AI's base rate and probability were shown with its bars (the study configuration's showAiBaseline). */
  ai_baseline_shown: z.boolean().optional(),
  /** The AI's confidence was shown with its prediction (the condition's aiConfidence). */
  ai_confidence_shown: z.boolean().optional(),
  /** The accuracy the panel stated (0–1), null with none (the condition's statedAccuracy). */
  ai_accuracy_stated: z.number().min(0).max(1).nullable().optional(),
  /** The serve the page showed (the explanation's `served_explanation_id`); left out, the case's last serve. */
  served_explanation_id: z.number().int().positive().nullish(),
}).superRefine(wholeJudgement('final'));
export type IntegratedResponseBody = z.infer<typeof integratedResponseBodySchema>;

export const integratedResponseResultSchema = z.object({
  success: z.literal(true),
  /** The case was already stored: a retry, counted as success; the stored row is never changed. */
  duplicate: z.boolean(),
  message: z.string(),
  /** Integrated responses the database holds for the session after this call. */
  completed_cases: z.number().int(),
  complete: z.boolean(),
});

/**
 * `GET /api/experiments/explanations/{caseId}`: the spec's AI-only fallback (part 2 §3). With a
 * session it answers the session's serve of the case (`feature_importance` = the bars shown);
 * without one, the active model's own explanation of a practice case.
 */
export const aiExplanationResponseSchema = z.object({
  success: z.literal(true),
  case_id: z.string(),
  dataset_type: datasetTypeSchema,
  prediction: prediction,
  /** Null where the session's condition shows the prediction alone. */
  probability: z.number().nullable(),
  /** The AI's starting point before any feature (see the explanation's ai_base_probability). */
  base_probability: z.number().nullable(),
  model_identifier: z.string(),
  model_test_accuracy: z.number().nullable(),
  feature_importance: z.array(featureContributionSchema),
  /** The shares come from exact TreeSHAP values and are already normalised: nothing is left for the client to do. */
  raw_shap_based: z.literal(true),
  requires_frontend_normalization: z.literal(false),
  /** With a session: the Worker's record of this serve (null without one). */
  served_explanation_id: z.number().int().nullable(),
  /**
   * With a session: the serve whole, as the human-aligned call gives it (the server decides its
   * kind; this route changes nothing of it); null without a session.
   */
  explanation: explanationResponseSchema.nullable(),
});

/** The AI-only explanation's optional session: given, the case is explained as that session's (its pinned model and condition) and recorded. */
export const aiExplanationQuerySchema = z
  .object({
    session_id: sessionIdSchema.optional(),
    ...carriedInitial(z.coerce.number().pipe(prediction), z.coerce.number().pipe(confidence), z.coerce.number().pipe(durationMs)),
    // A query string says it in words.
    initial_timed_out: flag.optional(),
  })
  .superRefine(wholeInitial);

/** `POST /api/experiments/main/predict?session_id&case_index`: the AI's prediction for a case of the session's set. */
export const mainPredictQuerySchema = z.object({
  session_id: sessionIdSchema,
  case_index: z.coerce.number().int().min(0).max(studyConfig.mainExperiment.resumeRequestCases - 1),
});
export const mainPredictBodySchema = z.object({ case_data: z.unknown().optional(), ...carriedInitial(prediction, confidence, durationMs) }).superRefine(wholeInitial);

const judged = { session_id: sessionIdSchema, case_id: caseIdSchema };
/**
 * `POST /api/experiments/main/trial-progress`: a step of a main-experiment case the server keeps
 * before the case is stored, so a reload or another device resumes there. `opened`: the case's
 * first judgement step is on screen (a condition with a time limit times the step from here, and
 * on the set's first case a reload comes back to it, not to the introduction); `initial`: the initial
 * judgement where no AI follows it (with AI, the request revealing it carries it);
 * `explanation_viewed`: the participant moved on from the AI; `final`: the final judgement, given
 * before the per-case questions. The first word counts: a step kept differently is refused (409).
 */
export const trialProgressBodySchema = z.discriminatedUnion('step', [
  z.object({ step: z.literal('opened'), ...judged }),
  z.object({
    step: z.literal('initial'),
    ...judged,
    initial_prediction: prediction,
    initial_confidence: confidence,
    initial_response_time_ms: durationMs,
    initial_reasoning: reasoning,
    initial_timed_out: timedOut,
  }),
  z.object({ step: z.literal('explanation_viewed'), ...judged, explanation_viewing_time_ms: durationMs }),
  z.object({
    step: z.literal('final'),
    ...judged,
    final_prediction: prediction,
    final_confidence: confidence,
    final_response_time_ms: durationMs,
    final_reasoning: reasoning,
    final_timed_out: timedOut,
    explanation_viewing_time_ms: durationMs.nullish(),
  }),
]);
export type TrialProgressBody = z.infer<typeof trialProgressBodySchema>;

export const trialProgressResultSchema = z.object({ success: z.literal(true), kept: caseInProgressSchema });

const ratingMean = z.number().nullable();

/** `GET /api/experiments/main/summary/{sessionId}`: the completion screen's summary, from stored rows. */
export const mainSummaryResponseSchema = z.object({
  success: z.literal(true),
  session_id: z.string(),
  completed_cases: z.number().int(),
  total_cases: z.number().int(),
  complete: z.boolean(),
  judgement_changes: z.number().int(),
  final_agrees_with_ai: z.number().int(),
  mean_ratings: z.object({
    comprehensibility: ratingMean,
    transparency: ratingMean,
    satisfaction: ratingMean,
    trust: ratingMean,
    alignment: ratingMean,
  }),
});

/** `POST /api/experiments/main/understanding-test`: one finished attempt, stored once per `attempt_id`. */
export const understandingAttemptBodySchema = z.object({
  session_id: sessionIdSchema,
  /** Made by the browser for the attempt, so a re-sent attempt is stored once. */
  attempt_id: z.string().regex(/^[A-Za-z0-9-]{8,64}$/, 'invalid attempt ID'),
  answers: z
    .array(
      z
        .object({ question_id: z.string().max(64), answer: z.string().max(64) })
        .refine((a) => understandingQuestion(a.question_id)?.options.includes(a.answer) ?? false, { message: 'unknown question or option' }),
    )
    .length(studyConfig.mainExperiment.understandingTestQuestions)
    .refine((answers) => new Set(answers.map((a) => a.question_id)).size === answers.length, { message: 'a question appears twice' }),
});

export const understandingAttemptResultSchema = z.object({
  success: z.literal(true),
  duplicate: z.boolean(),
  attempt_number: z.number().int(),
  correct: z.number().int(),
  total: z.number().int(),
  score_percent: z.number(),
  passed: z.boolean(),
  /** True once a Prolific participant has failed the test as often as the study allows. */
  screened_out: z.boolean(),
});

/** `GET /api/experiments/main/feedback?session_id&case_id`: a stored case's outcome feedback, for a condition that gives it. */
export const outcomeFeedbackQuerySchema = z.object(judged);

/**
 * The feedback after a stored case, from the server's record: the case's true outcome (its case
 * table), the final judgement stored, and the AI's prediction from its serve (null without AI).
 */
export const outcomeFeedbackSchema = z.object({
  session_id: z.string(),
  case_id: z.string(),
  ground_truth: prediction,
  final_prediction: prediction,
  final_correct: z.boolean(),
  ai_prediction: prediction.nullable(),
  ai_correct: z.boolean().nullable(),
  /** When the server first gave this feedback. */
  served_at: z.string(),
  /** The viewing time already recorded (a later report keeps it); null before. */
  viewing_time_ms: z.number().int().nullable(),
});

/**
 * `POST /api/experiments/main/feedback-viewed`: how long the feedback was on screen, from its first
 * frame to the click that moved on. The first report counts; it cannot exceed the time since the
 * server gave the feedback.
 */
export const feedbackViewedBodySchema = z.object({ ...judged, feedback_viewing_time_ms: durationMs });
