/**
 * An administrator's retrain of a dataset's AI model inside the Worker: from the set-up's
 * training table in R2, with the ML core, stored as a new version beside the old ones. The new
 * version becomes active only after its stored file loads and predicts the hold-out exactly as
 * the model just trained; until then, and if that fails, the current model keeps serving. Sessions
 * already in their main experiment keep the version they started with (`sessions.ai_model_identifier`).
 */
import type { Db } from '../db/client';
import { activeAiModelRow } from '../db/queries/model-verification';
import { aiModels } from '../db/schema';
import { AppError } from '../errors';
import { compileModel } from '../ml/model';
import { predictProbability } from '../ml/predict';
import { retrainAiModel, trainingTableSchema } from '../ml/retrain';
import type { DatasetType } from '../schemas/study';
import { r2Keys } from '../storage/r2';
import { aiModelIdentifier, loadImmutableModel } from './model-store';
import { eq, sql } from 'drizzle-orm';

export async function retrainAi(db: Db, bucket: R2Bucket, input: { dataset: DatasetType; folds: number; testSize: number; now: Date }) {
  const object = await bucket.get(r2Keys.trainingTable(input.dataset));
  if (!object) throw new AppError(409, 'training_table_missing', `No training table for ${input.dataset} in storage; run the set-up (npm start) first`);
  const parsed = trainingTableSchema.safeParse(await object.json());
  if (!parsed.success || parsed.data.dataset !== input.dataset) {
    throw new AppError(409, 'training_table_invalid', `The training table for ${input.dataset} is not a valid training table`);
  }
  const table = parsed.data;
  const previous = await activeAiModelRow(db, input.dataset);
  const { model, report, holdout } = retrainAiModel(table, { folds: input.folds, testSize: input.testSize });

  const json = JSON.stringify(model);
  const identifier = await aiModelIdentifier(input.dataset, json);
  const key = r2Keys.aiModel(input.dataset, identifier);
  await bucket.put(key, json, { httpMetadata: { contentType: 'application/json' } });

  // Switch over only when the stored file is the model: loaded back, it predicts the hold-out exactly.
  const stored = await loadImmutableModel(bucket, key).catch(() => null);
  const trained = compileModel(model);
  const agrees =
    stored !== null &&
    holdout.every((i) => {
      const x = Float64Array.from(table.rows[i]!, (v) => v ?? Number.NaN);
      return predictProbability(stored, x) === predictProbability(trained, x);
    });
  if (!agrees) {
    if (previous?.r2Key !== key) await bucket.delete(key);
    throw new AppError(500, 'retrain_verification_failed', 'The retrained model did not load back correctly; the current model stays active');
  }

  const metrics = {
    test_accuracy: report.test.accuracy,
    test_precision: report.test.precision,
    test_recall: report.test.recall,
    test_f1_score: report.test.f1,
    test_logloss: report.test.logloss,
    train_accuracy: report.train.accuracy,
    cross_validation_score: report.cross_validation_score,
    cv_accuracy: report.cv_accuracy,
    cv_folds: report.cv_folds,
    training_samples: report.training_samples,
    validation_samples: report.validation_samples,
    test_samples: report.test_samples,
  };
  const trainedAt = input.now.toISOString();
  await db.batch([
    db
      .insert(aiModels)
      .values({
        datasetType: input.dataset,
        modelIdentifier: identifier,
        status: 'retired',
        r2Key: key,
        formatVersion: model.version,
        fileSizeBytes: json.length,
        metrics,
        datasetInfo: report.dataset_info,
        params: { ...report.params, trained_by: 'admin_retrain', test_size: input.testSize, cv_folds: input.folds },
        trainingTimeSeconds: report.training_time_seconds,
        trainedAt,
      })
      .onConflictDoNothing(),
    db
      .update(aiModels)
      .set({ status: sql`case when ${aiModels.modelIdentifier} = ${identifier} then 'active' else 'retired' end` })
      .where(eq(aiModels.datasetType, input.dataset)),
  ]);
  return { identifier, previous: previous?.modelIdentifier ?? null, metrics, trainingTimeSeconds: report.training_time_seconds };
}
