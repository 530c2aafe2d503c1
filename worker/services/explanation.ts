/**
 * One case's explanation for one participant: the session's AI model's prediction and TreeSHAP
 * contributions, the participant's own model's where it exists and says something, and the bars
 * shown (the alpha mix, or the AI's own when there is no usable user model). Features come from
 * the server's case table; the ground truth never leaves it.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { userModels } from '../db/schema';
import { AppError } from '../errors';
import { mixContributions, normaliseContributions, userExplanationCounts, userModelPredictionFromShares } from '../ml/explanation';
import { encodeRow, type CompiledModel } from '../ml/model';
import { predictProbability } from '../ml/predict';
import { treeShap } from '../ml/treeshap';
import type { ExplanationResponse } from '../schemas/main-experiment';
import { r2Keys } from '../storage/r2';
import type { DatasetType } from '../schemas/study';
import { loadActiveAiModel, loadMutableModel, loadSessionAiModel } from './model-store';

type CaseRow = { caseId: string; datasetType: DatasetType; features: Record<string, string | number | null> };

function explainWith(model: CompiledModel, features: CaseRow['features']) {
  const x = encodeRow(model.source, features);
  const phi = treeShap(model, x);
  return {
    probability: predictProbability(model, x),
    shares: normaliseContributions(model.featureNames, phi.subarray(0, model.numFeatures)),
  };
}

/** The active AI model's own explanation of a case: its prediction and normalised TreeSHAP shares. */
export async function aiExplanation(db: Db, bucket: R2Bucket, caseRow: CaseRow, sessionId?: string) {
  const ai = sessionId ? await loadSessionAiModel(db, bucket, sessionId, caseRow.datasetType) : await loadActiveAiModel(db, bucket, caseRow.datasetType);
  if (!ai) throw new AppError(503, 'ai_model_unavailable', `No active AI model for ${caseRow.datasetType}`);
  const part = explainWith(ai.model, caseRow.features);
  return { modelIdentifier: ai.identifier, testAccuracy: ai.testAccuracy, probability: part.probability, prediction: (part.probability >= 0.5 ? 1 : 0) as 0 | 1, shares: part.shares };
}

export async function explainCase(
  db: Db,
  bucket: R2Bucket,
  input: { sessionId: string; caseRow: CaseRow; alpha: number },
): Promise<ExplanationResponse> {
  const { sessionId, caseRow, alpha } = input;
  const [ai, userRow] = await Promise.all([
    loadSessionAiModel(db, bucket, sessionId, caseRow.datasetType),
    db.select({ identifier: userModels.modelIdentifier, status: userModels.status }).from(userModels).where(eq(userModels.sessionId, sessionId)).get(),
  ]);
  if (!ai) throw new AppError(503, 'ai_model_unavailable', `No active AI model for ${caseRow.datasetType}`);
  const userModel = userRow?.status === 'trained' ? await loadMutableModel(bucket, r2Keys.userModel(caseRow.datasetType, sessionId)) : null;

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
