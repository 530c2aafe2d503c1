/**
 * A participant's own model: a small GBDT fitted, inside the request, on their pre-experiment
 * answers (labels = their predictions). It uses the AI model's feature order and category codes,
 * so the two explanations speak about the same encoded features.
 *
 * Confidence is used as a sample weight, normalised so the scale's midpoint weighs 1
 * (1 → 0.33, 5 → 1.67): a judgement the participant was sure of says more about their pattern.
 */
import { asc, count, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { SessionRow } from '../db/queries/sessions';
import { cases, preExperimentResponses, userModels, userModelVersions } from '../db/schema';
import { caseShown } from '../db/trial-record';
import { binaryMetrics } from '../ml/metrics';
import { compileModel, encodeRow } from '../ml/model';
import { predictProbability } from '../ml/predict';
import { trainGbdt } from '../ml/train';
import { userModelParams } from '../ml/user-model-params';
import { studyConfig } from '../schemas/study';
import { r2Keys } from '../storage/r2';
import { loadActiveAiModel, USER_MODEL_IDENTIFIER_METADATA } from './model-store';

export type UserModelOutcome = {
  status: 'trained' | 'insufficient_data' | 'training_failed';
  modelIdentifier: string | null;
  trainingSamples: number;
  message: string;
};

type UserModelRow = typeof userModels.$inferSelect;
type CurrentUserModel = Omit<typeof userModels.$inferInsert, 'id'>;

/**
 * Makes `row` the session's current model. A record it replaces moves to user_model_versions, its
 * file copied to its own key before `writeFile` puts the new one in its place, so main-experiment
 * cases explained by it keep pointing at a record and a file; the old record's move and the new
 * record then go in one batch.
 */
async function replaceCurrentModel(
  db: Db,
  bucket: R2Bucket,
  existing: UserModelRow | undefined,
  row: CurrentUserModel,
  now: Date,
  writeFile: () => Promise<unknown> = async () => undefined,
) {
  const upsert = db.insert(userModels).values(row).onConflictDoUpdate({ target: userModels.sessionId, set: row });
  if (!existing) {
    await writeFile();
    await upsert;
    return;
  }
  let versionKey: string | null = null;
  if (existing.r2Key) {
    const file = await bucket.get(existing.r2Key);
    if (file) {
      versionKey = r2Keys.userModelVersion(existing.datasetType, existing.sessionId, existing.modelIdentifier);
      await bucket.put(versionKey, await file.arrayBuffer(), { httpMetadata: file.httpMetadata, customMetadata: file.customMetadata });
    }
  }
  await writeFile();
  const { id: _id, ...record } = existing;
  await db.batch([db.insert(userModelVersions).values({ ...record, r2Key: versionKey, supersededAt: now.toISOString() }), upsert]);
}

/**
 * Fits (or refits) the session's participant model. Without `force` a trained model is kept only
 * while it has seen every stored pre-experiment answer: one trained early (say on 6 answers) is
 * refitted once more answers are in, so the main experiment always explains with the model of the
 * whole pre-experiment. `force` refits in any case.
 */
export async function trainUserModel(
  db: Db,
  bucket: R2Bucket,
  session: SessionRow,
  options: { force: boolean; now: Date },
): Promise<UserModelOutcome> {
  const existing = await db.select().from(userModels).where(eq(userModels.sessionId, session.sessionId)).get();
  const answers = await db
    .select({
      prediction: preExperimentResponses.prediction,
      confidence: preExperimentResponses.confidence,
      caseData: caseShown(preExperimentResponses),
    })
    .from(preExperimentResponses)
    .innerJoin(cases, eq(cases.caseId, preExperimentResponses.caseId))
    .where(eq(preExperimentResponses.sessionId, session.sessionId))
    .orderBy(asc(preExperimentResponses.caseNumber));

  if (existing?.status === 'trained' && !options.force && existing.trainingSamples >= answers.length) {
    return {
      status: 'trained',
      modelIdentifier: existing.modelIdentifier,
      trainingSamples: existing.trainingSamples,
      message: `User model already trained on all ${existing.trainingSamples} answers`,
    };
  }

  if (answers.length < studyConfig.userModelMinResponses) {
    return {
      status: 'insufficient_data',
      modelIdentifier: null,
      trainingSamples: answers.length,
      message: `At least ${studyConfig.userModelMinResponses} pre-experiment answers are needed; ${answers.length} stored`,
    };
  }

  const modelIdentifier = `user_${session.sessionId}_${options.now.getTime()}`;
  const { category, params } = userModelParams(answers.length);
  const base = {
    participantId: session.userId,
    sessionId: session.sessionId,
    datasetType: session.datasetType,
    modelIdentifier,
    trainingSamples: answers.length,
    numTrees: params.numTrees ?? null,
    numLeaves: params.numLeaves ?? null,
    maxDepth: params.maxDepth ?? null,
    learningRate: params.learningRate ?? null,
    dataSizeCategory: category,
    trainedAt: options.now.toISOString(),
  };
  try {
    const ai = await loadActiveAiModel(db, bucket, session.datasetType);
    if (!ai) throw new Error(`no active AI model for ${session.datasetType} to take the feature encoding from`);
    const encoding = ai.model.header;
    const rows = answers.map((a) => encodeRow(encoding, a.caseData as Record<string, string | number | null>));
    const labels = answers.map((a) => a.prediction);
    // A participant who gave one answer to every case has no pattern to fit: recorded as a failed
    // fit (the researcher sees it and its reason), so the main experiment explains with the AI's own bars.
    if (new Set(labels).size < 2) throw new Error(`every one of the ${labels.length} pre-experiment answers is ${labels[0]}: a model of the participant's judgements needs both answers`);
    const started = performance.now();
    const model = trainGbdt(
      {
        featureNames: encoding.feature_names,
        categorical: encoding.feature_names.map((f) => encoding.categorical_features.includes(f)),
        columns: encoding.feature_names.map((_, f) => Float64Array.from(rows, (x) => x[f]!)),
        labels,
        weights: answers.map((a) => a.confidence / studyConfig.confidence.default),
      },
      params,
      { categoryCodes: encoding.category_codes },
    );
    const durationMs = performance.now() - started;
    const compiled = compileModel(model);
    const trainAccuracy = binaryMetrics(labels, rows.map((x) => predictProbability(compiled, x))).accuracy;
    model.metadata = { ...model.metadata, kind: 'user_model', session_id: session.sessionId, data_size_category: category, train_accuracy: trainAccuracy };
    const body = JSON.stringify(model);
    const key = r2Keys.userModel(session.datasetType, session.sessionId);
    const row = {
      ...base,
      status: 'trained' as const,
      r2Key: key,
      formatVersion: model.version,
      trainAccuracy,
      trainingDurationMs: durationMs,
      fileSizeBytes: body.length,
      failureReason: null,
    };
    await replaceCurrentModel(db, bucket, existing, row, options.now, () =>
      bucket.put(key, body, { httpMetadata: { contentType: 'application/json' }, customMetadata: { [USER_MODEL_IDENTIFIER_METADATA]: modelIdentifier } }),
    );
    return { status: 'trained', modelIdentifier, trainingSamples: answers.length, message: `User model trained on ${answers.length} answers` };
  } catch (err) {
    const reason = err instanceof Error ? err.message.slice(0, 500) : String(err);
    console.error('user model training failed', session.sessionId, reason);
    const row = { ...base, status: 'training_failed' as const, r2Key: null, failureReason: reason };
    await replaceCurrentModel(db, bucket, existing, row, options.now);
    return { status: 'training_failed', modelIdentifier: null, trainingSamples: answers.length, message: 'User model training failed; the experiment continues' };
  }
}

/**
 * Makes sure the participant's own model was fitted on every stored pre-experiment answer before
 * the main experiment explains with it: the main start calls it, since the page's own call to
 * train may never have come (the tab closed after the 200th answer, a reload at that moment,
 * another device). It fits in the request (well under a second). A fit that failed on the same
 * answers is not tried again: it would fail the same way, and its failure stays on record.
 */
export async function ensureUserModel(db: Db, bucket: R2Bucket, session: SessionRow, now: Date): Promise<void> {
  const [[existing], [stored]] = await db.batch([
    db.select({ status: userModels.status, trainingSamples: userModels.trainingSamples }).from(userModels).where(eq(userModels.sessionId, session.sessionId)),
    db.select({ n: count() }).from(preExperimentResponses).where(eq(preExperimentResponses.sessionId, session.sessionId)),
  ]);
  if (existing && existing.trainingSamples >= (stored?.n ?? 0)) return;
  await trainUserModel(db, bucket, session, { force: false, now });
}
