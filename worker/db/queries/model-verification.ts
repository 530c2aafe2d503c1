/**
 * What the model-verification page reads: the active AI model's record, each participant's
 * user-model state beside their pre-experiment answers, and participants' own accuracy against
 * the ground truth, all as SQL aggregates over the stored rows.
 */
import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import type { DatasetType } from '../../schemas/study';
import { originOf } from '../../schemas/model-verification';
import type { Db } from '../client';
import { aiModels, cases, participants, preExperimentResponses as pre, sessions, userModels } from '../schema';

export const activeAiModelRow = async (db: Db, dataset: DatasetType) =>
  (await db.select().from(aiModels).where(and(eq(aiModels.datasetType, dataset), eq(aiModels.status, 'active'))).orderBy(desc(aiModels.id)).get()) ?? null;

/** Every stored AI model version of a dataset, newest first: where it came from, its status and test score. */
export async function aiModelVersions(db: Db, dataset: DatasetType) {
  const rows = await db
    .select({ modelIdentifier: aiModels.modelIdentifier, status: aiModels.status, params: aiModels.params, metrics: aiModels.metrics, trainedAt: aiModels.trainedAt, r2Key: aiModels.r2Key })
    .from(aiModels)
    .where(eq(aiModels.datasetType, dataset))
    .orderBy(desc(aiModels.id));
  const number = (v: unknown) => (typeof v === 'number' ? v : null);
  return rows.map((r) => ({
    model_identifier: r.modelIdentifier,
    status: r.status,
    origin: originOf(r.params.trained_by),
    test_accuracy: number(r.metrics.test_accuracy),
    test_samples: number(r.metrics.test_samples),
    trained_at: r.trainedAt,
    r2Key: r.r2Key,
  }));
}

/** Participants of a dataset with their answer count and user-model record (if any), newest first. */
export function userModelOverview(db: Db, dataset: DatasetType, page: { limit: number; offset: number }) {
  const answers = db.$count(pre, eq(pre.sessionId, sessions.sessionId));
  return db
    .select({
      userId: participants.id,
      username: participants.participantCode,
      displayName: participants.displayName,
      sessionId: sessions.sessionId,
      answers: sql<number>`${answers}`,
      model: userModels,
    })
    .from(sessions)
    .innerJoin(participants, eq(participants.id, sessions.participantId))
    .leftJoin(userModels, eq(userModels.sessionId, sessions.sessionId))
    .where(eq(sessions.datasetType, dataset))
    .orderBy(desc(participants.id))
    .limit(page.limit)
    .offset(page.offset);
}

/** A participant's pre-experiment answers in case order. */
export const preAnswersOf = (db: Db, sessionId: string) =>
  db
    .select({
      caseId: pre.caseId,
      prediction: pre.prediction,
      confidence: pre.confidence,
      groundTruth: pre.groundTruth,
      responseTimeMs: pre.responseTimeMs,
    })
    .from(pre)
    .where(eq(pre.sessionId, sessionId))
    .orderBy(asc(pre.caseNumber));

/** Each participant's own accuracy on their pre-experiment answers, for one dataset. */
export const participantAccuracies = (db: Db, dataset: DatasetType) =>
  db
    .select({
      userId: participants.id,
      username: participants.participantCode,
      validCases: count(),
      correct: sql<number>`sum(${pre.prediction} = ${pre.groundTruth})`,
    })
    .from(pre)
    .innerJoin(participants, eq(participants.id, pre.participantId))
    .where(eq(pre.datasetType, dataset))
    .groupBy(participants.id)
    .orderBy(asc(participants.id));

export const userModelOf = async (db: Db, sessionId: string) => (await db.select().from(userModels).where(eq(userModels.sessionId, sessionId)).get()) ?? null;

/** A dataset's experiment cases (every pool, all drawn from the held-out split). */
export const heldOutCases = (db: Db, dataset: DatasetType) =>
  db.select({ features: cases.features, groundTruth: cases.groundTruth }).from(cases).where(eq(cases.datasetType, dataset)).orderBy(asc(cases.id));
