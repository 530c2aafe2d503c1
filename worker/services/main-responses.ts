/**
 * Stores main-experiment cases. Each one must belong to the session's stored main set; its case
 * number (position), ground truth, features and alpha come from the server's tables, and the
 * explanation is kept exactly as shown. UNIQUE(session, case) makes a retry a duplicate that
 * counts as success and never overwrites what was stored first.
 */
import { and, count, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { SessionRow } from '../db/queries/sessions';
import { mainExperimentResponses, sessions } from '../db/schema';
import { AppError } from '../errors';
import type { IntegratedResponseBody } from '../schemas/main-experiment';
import { studyConfig } from '../schemas/study';
import { mainSetItem } from './main-case-sets';
import { requireConsent } from './pre-experiment';

export async function countMainResponses(db: Db, sessionId: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(mainExperimentResponses)
    .where(and(eq(mainExperimentResponses.sessionId, sessionId), isNotNull(mainExperimentResponses.completedAt)))
    .get();
  return row?.n ?? 0;
}

export async function storeIntegratedResponse(db: Db, session: SessionRow, body: IntegratedResponseBody, now: string) {
  requireConsent(session);
  const item = await mainSetItem(db, session.sessionId, { caseId: body.case_id });
  if (!item) throw new AppError(400, 'case_not_in_set', [{ msg: `case ${body.case_id} is not in this session's main-experiment set`, loc: ['case_id'] }]);

  const inserted = await db
    .insert(mainExperimentResponses)
    .values({
      participantId: session.userId,
      sessionId: session.sessionId,
      datasetType: session.datasetType,
      caseId: body.case_id,
      caseNumber: item.position + 1,
      groundTruth: item.row.groundTruth,
      caseData: item.row.features,
      alignmentAlpha: item.alpha,
      initialPrediction: body.initial_prediction,
      initialConfidence: body.initial_confidence,
      initialResponseTimeMs: body.initial_response_time_ms,
      initialReasoning: body.initial_reasoning ?? null,
      finalPrediction: body.final_prediction,
      finalConfidence: body.final_confidence,
      finalResponseTimeMs: body.final_response_time_ms,
      finalReasoning: body.final_reasoning ?? null,
      aiPrediction: body.ai_prediction,
      aiModelPrediction: body.ai_model_prediction ?? body.ai_prediction,
      userModelPrediction: body.user_model_prediction ?? null,
      aiFeatureImportance: body.ai_feature_importance,
      userFeatureImportance: body.user_feature_importance,
      shownFeatureImportance: body.shown_feature_importance ?? null,
      explanationKind: body.explanation_kind ?? null,
      aiModelIdentifier: body.ai_model_identifier ?? null,
      userModelIdentifier: body.user_model_identifier ?? null,
      aiProbability: body.ai_probability ?? null,
      userModelProbability: body.user_model_probability ?? null,
      comprehensibility: body.comprehensibility,
      transparency: body.transparency,
      satisfaction: body.satisfaction,
      trust: body.trust,
      alignment: body.alignment,
      explanationViewingTimeMs: body.explanation_viewing_time_ms,
      totalTaskTimeMs: body.total_task_time_ms,
      createdAt: now,
      updatedAt: now,
      completedAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: mainExperimentResponses.id });

  const completed = await countMainResponses(db, session.sessionId);
  const complete = completed >= studyConfig.mainExperiment.numCases;
  if (complete && !session.mainCompletedAt) {
    await db
      .update(sessions)
      .set({ mainCompletedAt: now, currentPhase: 'post_survey', updatedAt: now })
      .where(sql`${sessions.sessionId} = ${session.sessionId} and ${sessions.mainCompletedAt} is null`);
  }
  return { duplicate: inserted.length === 0, completed, complete };
}

const RATINGS = ['comprehensibility', 'transparency', 'satisfaction', 'trust', 'alignment'] as const;

/** What the completion screen sums up, from the stored rows only: cases done, changed judgements, mean ratings. */
export async function mainResponseSummary(db: Db, sessionId: string) {
  const rows = await db
    .select({
      caseId: mainExperimentResponses.caseId,
      initialPrediction: mainExperimentResponses.initialPrediction,
      finalPrediction: mainExperimentResponses.finalPrediction,
      aiPrediction: mainExperimentResponses.aiPrediction,
      comprehensibility: mainExperimentResponses.comprehensibility,
      transparency: mainExperimentResponses.transparency,
      satisfaction: mainExperimentResponses.satisfaction,
      trust: mainExperimentResponses.trust,
      alignment: mainExperimentResponses.alignment,
    })
    .from(mainExperimentResponses)
    .where(and(eq(mainExperimentResponses.sessionId, sessionId), isNotNull(mainExperimentResponses.completedAt)))
    .orderBy(mainExperimentResponses.caseNumber)
    .all();
  const mean = (key: (typeof RATINGS)[number]) => {
    const values = rows.map((r) => r[key]).filter((v): v is number => v !== null);
    return values.length ? values.reduce((s, v) => s + v, 0) / values.length : null;
  };
  return {
    caseIds: rows.map((r) => r.caseId),
    completed: rows.length,
    judgementChanges: rows.filter((r) => r.initialPrediction !== r.finalPrediction).length,
    finalAgreesWithAi: rows.filter((r) => r.finalPrediction === r.aiPrediction).length,
    meanRatings: Object.fromEntries(RATINGS.map((k) => [k, mean(k)])) as Record<(typeof RATINGS)[number], number | null>,
  };
}
