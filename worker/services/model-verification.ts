/**
 * The model-verification page's figures: the active AI model's recorded metrics, each
 * participant's user model and own accuracy, and the AI against the participants. Every figure
 * is computed here from stored rows, so the page shows what the database holds.
 */
import type { z } from 'zod';
import type { Db } from '../db/client';
import { activeAiModelRow, heldOutCases, participantAccuracies, preAnswersOf, userModelOverview } from '../db/queries/model-verification';
import type { SessionRow } from '../db/queries/sessions';
import type { userModels } from '../db/schema';
import type { aiModelStatusSchema, comparisonSchema, userModelDebugSchema, userPerformanceSchema } from '../schemas/model-verification';
import { studyConfig, type DatasetType } from '../schemas/study';
import { notFound } from '../errors';
import { meanAbsoluteShap, treeSummary } from '../ml/explanation';
import { encodeRow } from '../ml/model';
import { loadActiveAiModel } from './model-store';
import { userModelParams } from '../ml/user-model-params';

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : null);

export async function aiModelStatus(db: Db, bucket: R2Bucket, dataset: DatasetType): Promise<z.infer<typeof aiModelStatusSchema>> {
  const row = await activeAiModelRow(db, dataset);
  const exists = row ? (await bucket.head(row.r2Key)) !== null : false;
  const m = row?.metrics ?? {};
  const d = row?.datasetInfo ?? {};
  const missing = row ? null : `No active AI model for ${dataset}`;
  return {
    dataset_type: dataset,
    model_identifier: row?.modelIdentifier ?? null,
    model_file_exists: exists,
    current_performance: {
      test_accuracy: num(m.test_accuracy),
      test_f1_score: num(m.test_f1_score),
      test_samples: int(m.test_samples),
      baseline_majority_accuracy: num(m.baseline_majority_accuracy),
      baseline_logistic_accuracy: num(m.baseline_logistic_accuracy),
      error: missing ?? (exists ? null : `The model file ${row!.r2Key} is missing from storage`),
    },
    database_info: {
      model_exists: row !== null,
      training_samples: int(m.training_samples),
      validation_samples: int(m.validation_samples),
      cross_validation_score: num(m.cross_validation_score),
      test_score: num(m.test_accuracy),
      training_time_seconds: row?.trainingTimeSeconds ?? null,
      training_completed_at: row?.trainedAt ?? null,
    },
    dataset_info: {
      total_samples: int(d.total_samples),
      positive_samples: int(d.positive_samples),
      negative_samples: int(d.negative_samples),
      balance_ratio: num(d.balance_ratio),
      feature_count: int(d.feature_count),
      error: missing,
    },
  };
}

type ModelRow = typeof userModels.$inferSelect;

export function trainingStatus(model: ModelRow | null, answers: number) {
  if (model?.status === 'trained') return 'trained' as const;
  // A failed fit on every stored answer would fail again the same way (one answer to every case, say).
  if (model?.status === 'training_failed' && model.trainingSamples >= answers) return 'training_failed' as const;
  return answers >= studyConfig.userModelMinResponses ? ('trainable' as const) : ('insufficient_data' as const);
}

export async function userModelList(db: Db, dataset: DatasetType, input: { includeUnlearned: boolean; limit: number; offset: number }) {
  const rows = await userModelOverview(db, dataset, input);
  return rows
    .map((r) => ({
      user_id: r.userId,
      username: r.username,
      display_name: r.displayName,
      email: null,
      training_status: trainingStatus(r.model, r.answers),
      pre_experiment_responses: r.answers,
      file_size: r.model?.fileSizeBytes ?? null,
      metadata: {
        training_results:
          r.model?.status === 'trained'
            ? {
                train_accuracy: r.model.trainAccuracy,
                training_duration_seconds: r.model.trainingDurationMs === null ? null : r.model.trainingDurationMs / 1000,
                num_trees: r.model.numTrees,
                training_samples: r.model.trainingSamples,
              }
            : null,
      },
      failure_reason: r.model?.status === 'training_failed' ? r.model.failureReason : null,
    }))
    .filter((u) => input.includeUnlearned || u.training_status === 'trained');
}

const rate = (hits: number, of: number) => (of > 0 ? hits / of : null);

export async function userPerformance(db: Db, session: SessionRow): Promise<z.infer<typeof userPerformanceSchema>> {
  const answers = await preAnswersOf(db, session.sessionId);
  const correct = (list: typeof answers) => list.filter((a) => a.prediction === a.groundTruth).length;
  const high = answers.filter((a) => a.confidence >= 4);
  const low = answers.filter((a) => a.confidence <= 2);
  return {
    user_id: session.userId,
    username: session.participantCode,
    user_accuracy_vs_ground_truth: rate(correct(answers), answers.length),
    valid_cases: answers.length,
    high_confidence_accuracy: rate(correct(high), high.length),
    low_confidence_accuracy: rate(correct(low), low.length),
    confidence_distribution: { high: high.length, medium: answers.length - high.length - low.length, low: low.length },
  };
}

/** The AI's held-out metrics against each participant's own pre-experiment accuracy. */
export async function aiVersusUsers(db: Db, dataset: DatasetType): Promise<z.infer<typeof comparisonSchema>> {
  const [ai, people] = await Promise.all([activeAiModelRow(db, dataset), participantAccuracies(db, dataset)]);
  const m = ai?.metrics ?? {};
  const aiAccuracy = num(m.test_accuracy);
  const individual = people.map((p) => ({ user_id: p.userId, username: p.username, accuracy: p.correct / p.validCases, valid_cases: p.validCases }));
  const accuracies = individual.map((p) => p.accuracy);
  const n = accuracies.length;
  const mean = n > 0 ? accuracies.reduce((a, b) => a + b, 0) / n : null;
  const std = n > 1 && mean !== null ? Math.sqrt(accuracies.reduce((s, a) => s + (a - mean) ** 2, 0) / (n - 1)) : null;
  return {
    dataset_type: dataset,
    ai_model: {
      test_accuracy: aiAccuracy,
      test_precision: num(m.test_precision),
      test_recall: num(m.test_recall),
      test_f1_score: num(m.test_f1_score),
    },
    user_models: {
      count: n,
      average_accuracy: mean,
      std_accuracy: std,
      min_accuracy: n > 0 ? Math.min(...accuracies) : null,
      max_accuracy: n > 0 ? Math.max(...accuracies) : null,
      individual_performances: individual,
    },
    comparison: {
      ai_better_than_users: aiAccuracy !== null && mean !== null ? aiAccuracy > mean : null,
      ai_vs_avg_user: aiAccuracy !== null && mean !== null ? aiAccuracy - mean : null,
      users_outperforming_ai: aiAccuracy === null ? 0 : accuracies.filter((a) => a > aiAccuracy).length,
    },
  };
}

export async function userModelDebug(db: Db, session: SessionRow, model: ModelRow | null): Promise<z.infer<typeof userModelDebugSchema>> {
  const answers = await preAnswersOf(db, session.sessionId);
  const status = trainingStatus(model, answers.length);
  const positives = answers.filter((a) => a.prediction === 1).length;
  const { category, params } = userModelParams(answers.length);
  const min = studyConfig.userModelMinResponses;
  const recommendations: string[] = [];
  if (answers.length < min) recommendations.push(`Collect at least ${min - answers.length} more pre-experiment answers before training (minimum ${min}).`);
  if (answers.length > 0 && (positives === 0 || positives === answers.length)) {
    recommendations.push('Every answer predicts the same class: the model can only repeat it, and its explanation will be flat.');
  }
  if (model?.status === 'training_failed') recommendations.push(`The last training failed (${model.failureReason ?? 'no reason recorded'}); retrain with force_retrain=true.`);
  if (status === 'trainable') recommendations.push('Enough answers are stored: train the model.');
  if (model?.status === 'trained' && model.trainingSamples < answers.length) recommendations.push(`The model was trained on ${model.trainingSamples} answers; ${answers.length} are stored now: retrain to use them all.`);
  return {
    success: true,
    user_id: session.userId,
    username: session.participantCode,
    dataset_type: session.datasetType,
    availability: {
      status,
      data_count: answers.length,
      can_train: answers.length >= min,
      message:
        status === 'trained'
          ? 'User model trained'
          : status === 'trainable'
            ? 'Enough answers to train a user model'
            : status === 'training_failed'
              ? `Training on all ${answers.length} answers failed: ${model?.failureReason ?? 'no reason recorded'}`
              : `At least ${min} pre-experiment answers are needed; ${answers.length} stored`,
    },
    data_analysis: {
      total_responses: answers.length,
      prediction_distribution: { high_income: positives, low_income: answers.length - positives },
      confidence_stats: { mean: answers.length > 0 ? answers.reduce((s, a) => s + a.confidence, 0) / answers.length : null },
    },
    estimated_params: { category, num_leaves: params.numLeaves ?? null, max_depth: params.maxDepth ?? null, learning_rate: params.learningRate ?? null },
    performance_info:
      model?.status === 'trained'
        ? {
            train_accuracy: model.trainAccuracy,
            num_trees: model.numTrees,
            training_duration_seconds: model.trainingDurationMs === null ? null : model.trainingDurationMs / 1000,
            data_size_category: model.dataSizeCategory,
            training_timestamp: model.trainedAt,
          }
        : null,
    recommendations,
    raw_user_data: answers.map((a) => ({ case_id: a.caseId, user_prediction: a.prediction, user_confidence: a.confidence, response_time_ms: a.responseTimeMs })),
  };
}

/**
 * The details tab: the active model itself, its global feature importance (mean |TreeSHAP| over
 * the dataset's experiment cases, all from the held-out split) and the shape of its trees.
 */
export async function aiModelDetails(db: Db, bucket: R2Bucket, dataset: DatasetType) {
  const ai = await loadActiveAiModel(db, bucket, dataset);
  if (!ai) throw notFound(`No active AI model for ${dataset}`);
  const held = await heldOutCases(db, dataset);
  const rows = held.map((c) => encodeRow(ai.model.header, c.features));
  return {
    dataset_type: dataset,
    model_identifier: ai.identifier,
    cases_explained: rows.length,
    feature_importance: meanAbsoluteShap(ai.model, rows),
    trees: treeSummary(ai.model),
    metadata_params: ai.model.header.metadata.params ?? null,
  };
}
