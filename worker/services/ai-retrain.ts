/**
 * An administrator's retrain of a dataset's AI model inside the Worker: from the set-up's
 * training table in R2, with the ML core, fitted on every row as the set-up's model was. It is
 * stored as a *candidate* version, after its stored file loads back and predicts exactly as the
 * model just trained, and scored on the experiment cases beside the active model; it serves
 * participants only once an administrator activates it (`activateAiModel`, which also rolls back).
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { aiModels } from '../db/schema';
import { AppError } from '../errors';
import { compileModel } from '../ml/model';
import { predictProbability } from '../ml/predict';
import { retrainAiModel, trainingTableSchema } from '../ml/retrain';
import type { DatasetType } from '../schemas/study';
import { r2Keys } from '../storage/r2';
import { insertCandidate, scoreBesideActive } from './ai-upload';
import { aiModelIdentifier, loadImmutableModel } from './model-store';

export async function retrainAi(db: Db, bucket: R2Bucket, input: { dataset: DatasetType; folds: number; testSize: number; now: Date }) {
  const object = await bucket.get(r2Keys.trainingTable(input.dataset));
  if (!object) throw new AppError(409, 'training_table_missing', `No training table for ${input.dataset} in storage; run the set-up (npm start) first`);
  const parsed = trainingTableSchema.safeParse(await object.json());
  if (!parsed.success || parsed.data.dataset !== input.dataset) {
    throw new AppError(409, 'training_table_invalid', `The training table for ${input.dataset} is not a valid training table`);
  }
  const table = parsed.data;
  const { model, report, holdout } = retrainAiModel(table, { folds: input.folds, testSize: input.testSize });

  const json = JSON.stringify(model);
  const identifier = await aiModelIdentifier(input.dataset, json);
  const key = r2Keys.aiModel(input.dataset, identifier);
  const existing = await db.select({ status: aiModels.status }).from(aiModels).where(eq(aiModels.modelIdentifier, identifier)).get();
  await bucket.put(key, json, { httpMetadata: { contentType: 'application/json' } });

  // Keep it only when the stored file is the model: loaded back, it predicts the check rows exactly.
  const stored = await loadImmutableModel(bucket, key).catch(() => null);
  const trained = compileModel(model);
  const agrees =
    stored !== null &&
    holdout.every((i) => {
      const x = Float64Array.from(table.rows[i]!, (v) => v ?? Number.NaN);
      return predictProbability(stored, x) === predictProbability(trained, x);
    });
  if (!agrees) {
    if (!existing) await bucket.delete(key);
    throw new AppError(500, 'retrain_verification_failed', 'The retrained model did not load back correctly; nothing was stored');
  }

  const scored = await scoreBesideActive(db, bucket, input.dataset, trained);
  const metrics = {
    // On the experiment cases, beside the active model's on the same cases.
    ...scored.metrics,
    train_accuracy: report.train.accuracy,
    cross_validation_score: report.cross_validation_score,
    cv_accuracy: report.cv_accuracy,
    cv_folds: report.cv_folds,
    training_samples: report.training_samples,
    validation_samples: report.validation_samples,
    // The check fit on the other rows, scored on test_size of the training table.
    check_accuracy: report.test.accuracy,
    check_samples: report.test_samples,
  };
  const positives = scored.cases.filter((c) => c.groundTruth === 1).length;
  await insertCandidate(db, {
    dataset: input.dataset,
    identifier,
    key,
    formatVersion: model.version,
    fileSizeBytes: json.length,
    metrics,
    datasetInfo: { ...report.dataset_info, evaluated_on: 'experiment cases (none of them in the training table)', cases_evaluated: scored.cases.length, cases_positive: positives },
    params: { ...report.params, trained_by: 'admin_retrain', test_size: input.testSize, cv_folds: input.folds },
    trainingTimeSeconds: report.training_time_seconds,
    now: input.now,
  });
  // The same model trained again (same table and settings) keeps the version and status it has.
  const status = existing?.status ?? 'candidate';
  return { identifier, status, metrics, current: scored.current, casesEvaluated: scored.cases.length, trainingTimeSeconds: report.training_time_seconds };
}
