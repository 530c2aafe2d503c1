/**
 * One case's explanation for one participant: the session's AI model's prediction and TreeSHAP
 * contributions, the participant's own model's where it exists and says something, and the bars
 * shown (the alpha mix, or the AI's own when there is no usable user model). Features come from
 * the server's case table; the ground truth never leaves it.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { aiModels, caseSetItems, cases, mainExperimentResponses, mainTrialProgress, servedExplanations, sessions, userModels } from '../db/schema';
import { barsOfServe, serveColumns } from '../db/trial-record';
import { AppError, conflict } from '../errors';
import { mixContributions, normaliseContributions, userExplanationCounts, userModelPredictionFromShares, type FeatureContribution } from '../ml/explanation';
import { encodeRow, type CompiledModel } from '../ml/model';
import { predictedLabel, predictProbability, sigmoid } from '../ml/predict';
import { treeShap } from '../ml/treeshap';
import type { ExplanationResponse, KeptJudgement } from '../schemas/main-experiment';
import { r2Keys } from '../storage/r2';
import { studyConfig, type Condition, type DatasetType } from '../schemas/study';
import { accuracyStatementOf, confidenceOf, showsAiConfidence, showsAiExplanation, statedAccuracyOf } from '../schemas/condition-plan';
import { alphaLevelsOf, conditionOf } from './conditions';
import { alphaOfItem } from './main-case-sets';
import { recordServe, type AiOnlyReason, type ServedExplanation } from './served-explanations';
import { keepInitialAtReveal, requireWaitOver } from './trial-progress';
import { aiRowColumns, loadActiveAiModel, loadAiRow, loadUserModel } from './model-store';

type CaseRow = { caseId: string; datasetType: DatasetType; features: Record<string, string | number | null> };

function explainWith(model: CompiledModel, features: CaseRow['features']) {
  const x = encodeRow(model.header, features);
  const phi = treeShap(model, x);
  return {
    probability: predictProbability(model, x),
    // The last entry is the base value: the raw score before any feature.
    baseProbability: sigmoid(phi[model.numFeatures]!),
    shares: normaliseContributions(model.featureNames, phi.subarray(0, model.numFeatures)),
  };
}

/** The active AI model's own explanation of a case, for no session in particular: its prediction and normalised TreeSHAP shares. */
export async function aiExplanation(db: Db, bucket: R2Bucket, caseRow: CaseRow) {
  const ai = await loadActiveAiModel(db, bucket, caseRow.datasetType);
  if (!ai) throw new AppError(503, 'ai_model_unavailable', `No active AI model for ${caseRow.datasetType}`);
  const part = explainWith(ai.model, caseRow.features);
  return {
    modelIdentifier: ai.identifier,
    testAccuracy: ai.testAccuracy,
    probability: part.probability,
    baseProbability: part.baseProbability,
    prediction: predictedLabel(part.probability),
    shares: part.shares,
  };
}

type UserModelRow = { identifier: string; status: 'trained' | 'training_failed' };
type AiModelRow = Parameters<typeof loadAiRow>[1];

/**
 * What a participant's explanation of one case reads from D1, in one batch (one round trip): the
 * session with the AI model fixed for it, the case, its alpha in the session's main set, the
 * participant's own model's row, what was kept of the case under way, whether its trial is
 * stored, and the case's earlier serve. A session explained before its AI model was pinned (one
 * started before pinning existed) gets the active model fixed here, but only when the call is
 * going to succeed (its main experiment started, not screened out, a case of its dataset), so a
 * refused call changes nothing.
 */
export async function explanationInputs(db: Db, sessionId: string, caseId: string) {
  const activeOfDataset = sql`(select a.model_identifier from ai_models a where a.dataset_type = sessions.dataset_type and a.status = 'active' limit 1)`;
  const willSucceed = sql`sessions.main_started_at is not null and sessions.screened_out_at is null and exists (select 1 from cases c where c.case_id = ${caseId} and c.dataset_type = sessions.dataset_type)`;
  const [, [session], [caseRow], [item], [userModel], [progress], [stored], [served]] = await db.batch([
    db
      .update(sessions)
      .set({ aiModelIdentifier: activeOfDataset })
      .where(and(eq(sessions.sessionId, sessionId), isNull(sessions.aiModelIdentifier), willSucceed)),
    db
      .select({
        sessionId: sessions.sessionId,
        datasetType: sessions.datasetType,
        consentedAt: sessions.consentedAt,
        mainStartedAt: sessions.mainStartedAt,
        mainCompletedAt: sessions.mainCompletedAt,
        postSurveyCompletedAt: sessions.postSurveyCompletedAt,
        screenedOutAt: sessions.screenedOutAt,
        condition: sessions.condition,
        ai: aiRowColumns,
      })
      .from(sessions)
      .leftJoin(aiModels, eq(aiModels.modelIdentifier, sessions.aiModelIdentifier))
      .where(eq(sessions.sessionId, sessionId)),
    db.select().from(cases).where(eq(cases.caseId, caseId)),
    db
      .select({ alpha: caseSetItems.alignmentAlpha })
      .from(caseSetItems)
      .where(and(eq(caseSetItems.sessionId, sessionId), eq(caseSetItems.phase, 'main_experiment'), eq(caseSetItems.caseId, caseId))),
    db.select({ identifier: userModels.modelIdentifier, status: userModels.status }).from(userModels).where(eq(userModels.sessionId, sessionId)),
    db
      .select()
      .from(mainTrialProgress)
      .where(and(eq(mainTrialProgress.sessionId, sessionId), eq(mainTrialProgress.caseId, caseId))),
    db
      .select({ id: mainExperimentResponses.id })
      .from(mainExperimentResponses)
      .where(and(eq(mainExperimentResponses.sessionId, sessionId), eq(mainExperimentResponses.caseId, caseId))),
    // The case's first serve; one a page asked for by the old AI-only route (reason `requested`) only when there is no other.
    db
      .select(serveColumns)
      .from(servedExplanations)
      .where(and(eq(servedExplanations.sessionId, sessionId), eq(servedExplanations.caseId, caseId)))
      .orderBy(sql`${servedExplanations.aiOnlyReason} is 'requested'`, asc(servedExplanations.id))
      .limit(1),
  ]);
  return {
    session: session ?? null,
    caseRow: caseRow ?? null,
    /** The case is in the session's main set, with the alpha stored with it (null: none stored). */
    setItem: item ? { storedAlpha: item.alpha } : null,
    userModel: userModel ?? null,
    /** What the server kept of the case under way (null: nothing yet), and whether its trial is stored. */
    progress: progress ?? null,
    stored: stored !== undefined,
    /** What the Worker already served of the case to this session (null: nothing yet). */
    served: served ?? null,
  };
}

/**
 * Explains a case for a session whose AI model row and user-model row are already read: the alpha
 * mix where the participant's model says something, else the AI's own bars, with the reason the
 * participant's model gave (none, failed, or all zero). Nothing but the model's state decides it.
 */
export async function explainForSession(
  bucket: R2Bucket,
  input: { sessionId: string; caseRow: CaseRow; alpha: number; aiRow: AiModelRow; userModel: UserModelRow | null },
): Promise<{ explanation: ExplanationResponse; aiOnlyReason: AiOnlyReason | null }> {
  const { sessionId, caseRow, alpha, userModel: userRow } = input;
  const ai = await loadAiRow(bucket, input.aiRow);
  if (!ai) throw new AppError(503, 'ai_model_unavailable', `No active AI model for ${caseRow.datasetType}`);
  const userModel = userRow?.status === 'trained' ? await loadUserModel(bucket, r2Keys.userModel(caseRow.datasetType, sessionId), userRow.identifier) : null;

  const aiPart = explainWith(ai.model, caseRow.features);
  const userPart = userModel ? explainWith(userModel, caseRow.features) : null;
  const usable = userPart !== null && userExplanationCounts(userPart.shares);
  const aiOnlyReason: AiOnlyReason | null = usable
    ? null
    : userPart
      ? 'user_model_uninformative'
      : userRow?.status === 'training_failed'
        ? 'user_model_failed'
        : 'no_user_model';
  const explanation: ExplanationResponse = {
    success: true,
    session_id: sessionId,
    case_id: caseRow.caseId,
    dataset_type: caseRow.datasetType,
    prediction: predictedLabel(aiPart.probability),
    ai_probability: aiPart.probability,
    // What the condition shows is decided by `serveCase`; the explanation itself carries no confidence.
    ai_confidence: null,
    ai_base_probability: aiPart.baseProbability,
    model_identifier: ai.identifier,
    model_test_accuracy: ai.testAccuracy,
    // Which accuracy the panel states is the condition's, decided by `serveCase` as the confidence is.
    accuracy_statement: 'measured',
    stated_accuracy: null,
    // The AI's own bars as the fallback are no mix: no alpha is shown with them.
    alignment_alpha: usable ? alpha : null,
    ai_feature_importance: aiPart.shares,
    user_feature_importance: userPart?.shares ?? [],
    shown_feature_importance: usable ? mixContributions(aiPart.shares, userPart.shares, alpha) : aiPart.shares,
    explanation_kind: usable ? 'human_aligned' : 'ai_only',
    human_aligned_used: usable,
    user_model_available: usable,
    user_model_identifier: userPart ? (userRow?.identifier ?? null) : null,
    user_model_prediction: userPart ? userModelPredictionFromShares(userPart.shares) : null,
    user_model_probability: userPart?.probability ?? null,
    served_explanation_id: null,
  };
  return { explanation, aiOnlyReason };
}

/**
 * What a condition that shows the AI's prediction alone gets: the prediction, its model and that
 * model's accuracy note, nothing else (no bars, no probabilities, nothing of the participant's
 * model): nothing is sent that the participant is not shown.
 */
export const predictionOnly = (explanation: ExplanationResponse): ExplanationResponse => ({
  ...explanation,
  ai_probability: null,
  ai_base_probability: null,
  alignment_alpha: null,
  ai_feature_importance: [],
  user_feature_importance: [],
  shown_feature_importance: [],
  explanation_kind: 'prediction_only',
  human_aligned_used: false,
  user_model_available: false,
  user_model_identifier: null,
  user_model_prediction: null,
  user_model_probability: null,
});

/**
 * What a condition that shows the AI's own explanation by design gets: the AI's bars, coded as
 * such whether or not the participant's model was usable (the participant's model stays on the
 * record for analysis; it shaped nothing shown).
 */
const asAiExplanation = (explanation: ExplanationResponse): ExplanationResponse => ({
  ...explanation,
  alignment_alpha: 1,
  shown_feature_importance: explanation.ai_feature_importance,
  explanation_kind: 'ai_explanation',
  human_aligned_used: false,
});

/**
 * The alpha the practice case is explained with: the condition's own level nearest the study's
 * fallback alpha (the lower of two as near), so the practice shows the kind of mix the
 * participant's cases will; the page's word for it counts for nothing.
 */
export function practiceAlpha(condition: Condition): number {
  const levels = alphaLevelsOf(condition) ?? [studyConfig.mainExperiment.fallbackAlpha];
  const target = studyConfig.mainExperiment.fallbackAlpha;
  return [...levels].sort((a, b) => Math.abs(a - target) - Math.abs(b - target) || a - b)[0]!;
}

/**
 * A recorded serve as the explanation it was: every field from the record (its bars whole,
 * number for number), the model's accuracy note from the model's row. Serving a case again
 * returns this, so nothing a page asks for makes a serve of another kind.
 */
function explanationOfServe(serve: ServedExplanation, caseRow: CaseRow, testAccuracy: number | null, condition: Condition): ExplanationResponse {
  const bars = barsOfServe(serve) as { ai: FeatureContribution[]; user: FeatureContribution[]; shown: FeatureContribution[] };
  const prediction = serve.kind === 'prediction_only';
  const statement = serve.statedAccuracy === null ? 'none' : (accuracyStatementOf(condition) ?? 'measured');
  return {
    success: true,
    session_id: serve.sessionId,
    case_id: caseRow.caseId,
    dataset_type: caseRow.datasetType,
    prediction: serve.aiPrediction as 0 | 1,
    ai_probability: prediction ? null : serve.aiProbability,
    ai_confidence: serve.aiConfidenceShown ? confidenceOf(serve.aiProbability) : null,
    ai_base_probability: prediction ? null : serve.aiBaseProbability,
    model_identifier: serve.aiModelIdentifier,
    model_test_accuracy: statement === 'measured' ? testAccuracy : null,
    accuracy_statement: statement,
    stated_accuracy: serve.statedAccuracy,
    alignment_alpha: serve.alignmentAlpha,
    ai_feature_importance: bars.ai,
    user_feature_importance: bars.user,
    shown_feature_importance: bars.shown,
    explanation_kind: serve.kind,
    human_aligned_used: serve.kind === 'human_aligned',
    user_model_available: bars.user.length > 0 && userExplanationCounts(bars.user),
    user_model_identifier: serve.userModelIdentifier,
    user_model_prediction: serve.userModelPrediction as 0 | 1 | null,
    user_model_probability: serve.userModelProbability,
    served_explanation_id: serve.id,
  };
}

type ExplanationInputs = Awaited<ReturnType<typeof explanationInputs>>;

/**
 * Serves a case to a session, and records it: the one way anything of the AI reaches a
 * participant. Only a case of the session's main set (not yet stored; in a condition that asks for
 * an initial judgement first, only once it is kept) or the practice case (the tutorial's pool,
 * which no participant judges), only where the condition shows the AI (409 otherwise), and only in
 * the condition's shape. What is served is decided here from the condition, the alpha fixed with
 * the set and the state of the participant's model alone; a case served before is served the same
 * again, counted on its record, whichever route asks.
 */
export async function serveCase(
  db: Db,
  bucket: R2Bucket,
  inputs: ExplanationInputs & { session: NonNullable<ExplanationInputs['session']>; caseRow: CaseRow & { pool: string } },
  options: { now: string; initial: KeptJudgement | null },
): Promise<ExplanationResponse> {
  const { session, caseRow } = inputs;
  const condition = conditionOf(session);
  if (condition.shows === 'none') throw conflict('no_ai_in_condition', `Participant ${session.sessionId} is in condition ${condition.name}, which shows no AI`);
  const practice = caseRow.pool === 'tutorial';
  if (!practice) {
    if (!inputs.setItem) {
      throw new AppError(400, 'case_not_in_set', [
        { msg: `case ${caseRow.caseId} is neither in this session's main-experiment set nor the practice case: nothing of the AI is shown for it`, loc: ['case_id'] },
      ]);
    }
    // A stored case is not shown again: a page asking for it (an old tab) is told the study moved on.
    if (inputs.stored) throw conflict('case_already_stored', `Case ${caseRow.caseId} of ${session.sessionId} is already stored; the study has moved on`);
    // Nothing of the AI is shown before the initial judgement is kept, nor before a forced wait has run from it.
    const initialKeptAt = await keepInitialAtReveal(db, {
      sessionId: session.sessionId,
      caseId: caseRow.caseId,
      condition,
      progress: inputs.progress,
      carried: options.initial,
      now: options.now,
    });
    if (!inputs.served && initialKeptAt !== null) requireWaitOver(condition, caseRow.caseId, initialKeptAt, options.now);
  }
  if (inputs.served) {
    await db
      .update(servedExplanations)
      .set({ serveCount: sql`${servedExplanations.serveCount} + 1`, lastServedAt: options.now })
      .where(eq(servedExplanations.id, inputs.served.id));
    const accuracy = session.ai?.metrics.test_accuracy;
    return explanationOfServe(inputs.served, caseRow, typeof accuracy === 'number' ? accuracy : null, condition);
  }
  const alpha = practice ? practiceAlpha(condition) : (alphaOfItem(condition, inputs.setItem!.storedAlpha) ?? studyConfig.mainExperiment.fallbackAlpha);
  const prediction = condition.shows === 'ai_prediction';
  const served = await explainForSession(bucket, {
    sessionId: session.sessionId,
    caseRow,
    alpha,
    aiRow: session.ai,
    // The prediction alone never reads the participant's model.
    userModel: prediction ? null : inputs.userModel,
  });
  const inShape = prediction ? predictionOnly(served.explanation) : showsAiExplanation(condition, studyConfig.mainExperiment.alphaLevels) ? asAiExplanation(served.explanation) : served.explanation;
  const statement = accuracyStatementOf(condition)!;
  const fallbackPercent = studyConfig.modelAccuracy.fallbackPercent[caseRow.datasetType] ?? studyConfig.modelAccuracy.otherFallbackPercent;
  const shown: ExplanationResponse = {
    ...inShape,
    ai_confidence: showsAiConfidence(condition) ? confidenceOf(served.explanation.ai_probability!) : null,
    // Nothing of the measured accuracy goes to a page whose panel states another figure or none.
    model_test_accuracy: statement === 'measured' ? inShape.model_test_accuracy : null,
    accuracy_statement: statement,
    stated_accuracy: statedAccuracyOf(condition, inShape.model_test_accuracy, fallbackPercent),
  };
  const id = await recordServe(db, {
    shown,
    aiProbability: served.explanation.ai_probability!,
    aiBaseProbability: served.explanation.ai_base_probability!,
    aiOnlyReason: shown.explanation_kind === 'ai_only' ? served.aiOnlyReason : null,
    now: options.now,
  });
  return { ...shown, served_explanation_id: id };
}
