/**
 * One case's explanation for one participant: the session's AI model's prediction and TreeSHAP
 * contributions, the participant's own model's where it exists and says something, and the bars
 * shown (the alpha mix, or the AI's own when there is no usable user model). Features come from
 * the server's case table; the ground truth never leaves it.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { aiModels, caseSetItems, cases, sessions, userModels } from '../db/schema';
import { AppError } from '../errors';
import { mixContributions, normaliseContributions, userExplanationCounts, userModelPredictionFromShares } from '../ml/explanation';
import { encodeRow, type CompiledModel } from '../ml/model';
import { predictProbability, sigmoid } from '../ml/predict';
import { treeShap } from '../ml/treeshap';
import type { ExplanationResponse } from '../schemas/main-experiment';
import { r2Keys } from '../storage/r2';
import type { DatasetType } from '../schemas/study';
import { aiRowColumns, loadActiveAiModel, loadAiRow, loadSessionAiModel, loadUserModel } from './model-store';

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

/** The active AI model's own explanation of a case: its prediction and normalised TreeSHAP shares. */
export async function aiExplanation(db: Db, bucket: R2Bucket, caseRow: CaseRow, sessionId?: string) {
  const ai = sessionId ? await loadSessionAiModel(db, bucket, sessionId, caseRow.datasetType) : await loadActiveAiModel(db, bucket, caseRow.datasetType);
  if (!ai) throw new AppError(503, 'ai_model_unavailable', `No active AI model for ${caseRow.datasetType}`);
  const part = explainWith(ai.model, caseRow.features);
  return {
    modelIdentifier: ai.identifier,
    testAccuracy: ai.testAccuracy,
    probability: part.probability,
    baseProbability: part.baseProbability,
    prediction: (part.probability >= 0.5 ? 1 : 0) as 0 | 1,
    shares: part.shares,
  };
}

type UserModelRow = { identifier: string; status: 'trained' | 'training_failed' };
type AiModelRow = Parameters<typeof loadAiRow>[1];

/**
 * What a participant's explanation of one case reads from D1, in one batch (one round trip): the
 * session with the AI model fixed for it, the case, its alpha in the session's main set, and the
 * participant's own model's row. A session explained before its main experiment started gets the
 * active AI model fixed here, but only when the call is going to succeed (not screened out, a case
 * of its dataset), so a refused call changes nothing.
 */
export async function explanationInputs(db: Db, sessionId: string, caseId: string) {
  const activeOfDataset = sql`(select a.model_identifier from ai_models a where a.dataset_type = sessions.dataset_type and a.status = 'active' limit 1)`;
  const willSucceed = sql`sessions.screened_out_at is null and exists (select 1 from cases c where c.case_id = ${caseId} and c.dataset_type = sessions.dataset_type)`;
  const [, [session], [caseRow], [item], [userModel]] = await db.batch([
    db
      .update(sessions)
      .set({ aiModelIdentifier: activeOfDataset })
      .where(and(eq(sessions.sessionId, sessionId), isNull(sessions.aiModelIdentifier), willSucceed)),
    db
      .select({ sessionId: sessions.sessionId, datasetType: sessions.datasetType, screenedOutAt: sessions.screenedOutAt, condition: sessions.condition, ai: aiRowColumns })
      .from(sessions)
      .leftJoin(aiModels, eq(aiModels.modelIdentifier, sessions.aiModelIdentifier))
      .where(eq(sessions.sessionId, sessionId)),
    db.select().from(cases).where(eq(cases.caseId, caseId)),
    db
      .select({ alpha: caseSetItems.alignmentAlpha })
      .from(caseSetItems)
      .where(and(eq(caseSetItems.sessionId, sessionId), eq(caseSetItems.phase, 'main_experiment'), eq(caseSetItems.caseId, caseId))),
    db.select({ identifier: userModels.modelIdentifier, status: userModels.status }).from(userModels).where(eq(userModels.sessionId, sessionId)),
  ]);
  return {
    session: session ?? null,
    caseRow: caseRow ?? null,
    /** The case is in the session's main set, with the alpha stored with it (null: none stored). */
    setItem: item ? { storedAlpha: item.alpha } : null,
    userModel: userModel ?? null,
  };
}

/** Explains a case for a session whose AI model row and user-model row are already read. */
export async function explainForSession(
  bucket: R2Bucket,
  input: { sessionId: string; caseRow: CaseRow; alpha: number; aiRow: AiModelRow; userModel: UserModelRow | null },
): Promise<ExplanationResponse> {
  const { sessionId, caseRow, alpha, userModel: userRow } = input;
  const ai = await loadAiRow(bucket, input.aiRow);
  if (!ai) throw new AppError(503, 'ai_model_unavailable', `No active AI model for ${caseRow.datasetType}`);
  const userModel = userRow?.status === 'trained' ? await loadUserModel(bucket, r2Keys.userModel(caseRow.datasetType, sessionId), userRow.identifier) : null;

  const aiPart = explainWith(ai.model, caseRow.features);
  const userPart = userModel ? explainWith(userModel, caseRow.features) : null;
  const usable = userPart !== null && userExplanationCounts(userPart.shares);
  return {
    success: true,
    session_id: sessionId,
    case_id: caseRow.caseId,
    dataset_type: caseRow.datasetType,
    prediction: aiPart.probability >= 0.5 ? 1 : 0,
    ai_probability: aiPart.probability,
    ai_base_probability: aiPart.baseProbability,
    model_identifier: ai.identifier,
    model_test_accuracy: ai.testAccuracy,
    alignment_alpha: alpha,
    ai_feature_importance: aiPart.shares,
    user_feature_importance: userPart?.shares ?? [],
    shown_feature_importance: usable ? mixContributions(aiPart.shares, userPart.shares, alpha) : aiPart.shares,
    explanation_kind: usable ? 'human_aligned' : 'ai_only',
    human_aligned_used: usable,
    user_model_available: usable,
    user_model_identifier: userPart ? (userRow?.identifier ?? null) : null,
    user_model_prediction: userPart ? userModelPredictionFromShares(userPart.shares) : null,
    user_model_probability: userPart?.probability ?? null,
  };
}

/**
 * What a condition that shows the AI's prediction alone gets: the prediction and the models'
 * outputs, no bars (nothing is sent that the participant is not shown).
 */
export const predictionOnly = (explanation: ExplanationResponse): ExplanationResponse => ({
  ...explanation,
  alignment_alpha: null,
  ai_feature_importance: [],
  user_feature_importance: [],
  shown_feature_importance: [],
  explanation_kind: 'prediction_only',
  human_aligned_used: false,
});

/** Explains one of a session's cases, reading what it needs in one batch (admin registration). */
export async function explainCase(db: Db, bucket: R2Bucket, input: { sessionId: string; caseRow: CaseRow; alpha: number }): Promise<ExplanationResponse> {
  const { session, userModel } = await explanationInputs(db, input.sessionId, input.caseRow.caseId);
  return explainForSession(bucket, { ...input, aiRow: session?.ai, userModel });
}
