/**
 * Stores main-experiment cases. Each one must belong to the session's stored main set; its case
 * number (position), ground truth, features and alpha come from the server's tables, and the
 * explanation is kept exactly as shown. UNIQUE(session, case) makes a retry a duplicate that
 * counts as success and never overwrites what was stored first.
 */
import { and, count, eq, getTableColumns, isNotNull, type Placeholder, sql, type SQL } from 'drizzle-orm';
import { batchBuilt, builtOnce } from '../db/built-once';
import { sessionCondition } from '../db/queries/analytics';
import type { Db } from '../db/client';
import { caseSetItems, cases, mainExperimentResponses, sessions } from '../db/schema';
import { AppError, notFound } from '../errors';
import { sharesLeanToward } from '../ml/explanation';
import type { IntegratedResponseBody } from '../schemas/main-experiment';
import { studyConfig, type Condition } from '../schemas/study';
import { answerMisfits, conditionOf, conditionsFitting } from './conditions';
import { requireConsent } from './pre-experiment';

export async function countMainResponses(db: Db, sessionId: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(mainExperimentResponses)
    .where(and(eq(mainExperimentResponses.sessionId, sessionId), isNotNull(mainExperimentResponses.completedAt)))
    .get();
  return row?.n ?? 0;
}

/** The row's values from the body; the session, set and case columns come from the tables in the insert itself. */
function answerColumns(body: IntegratedResponseBody, now: string) {
  return {
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
    shownLeansWithAi: body.ai_prediction === undefined || body.ai_prediction === null ? null : sharesLeanToward(body.shown_feature_importance, body.ai_prediction),
    aiBaselineShown: body.ai_baseline_shown ?? null,
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
  } satisfies Partial<typeof mainExperimentResponses.$inferInsert>;
}

const completedCount = (sessionId: Placeholder) =>
  sql<number>`(select count(*) from main_experiment_responses r where r.session_id = ${sessionId} and r.completed_at is not null)`;

const columns = getTableColumns(mainExperimentResponses);
type AnswerKey = keyof ReturnType<typeof answerColumns>;

/**
 * The batch, built by drizzle once per isolate with named placeholders: every column in the
 * table's order (the order drizzle lists them in the insert), each either read from the tables in
 * the insert itself or bound from the body under its own name.
 */
const saveStatements = builtOnce((db) => {
  const session = sql.placeholder('session');
  const caseId = sql.placeholder('caseId');
  const now = sql.placeholder('now');
  const fromTables = {
    id: sql`null`,
    participantId: sessions.participantId,
    sessionId: sessions.sessionId,
    datasetType: sessions.datasetType,
    caseId: caseSetItems.caseId,
    caseNumber: sql`${caseSetItems.position} + 1 + ${sql.placeholder('caseNumberBase')}`,
    groundTruth: cases.groundTruth,
    caseData: cases.features,
    // A set drawn before alphas were stored explains with the fallback; a condition without explanations has none.
    alignmentAlpha: sql`case when ${caseSetItems.alignmentAlpha} is null and ${sql.placeholder('explains')} then ${studyConfig.mainExperiment.fallbackAlpha} else ${caseSetItems.alignmentAlpha} end`,
  } as const;
  const selection = Object.fromEntries(
    Object.keys(columns).map((key) => [key, key in fromTables ? fromTables[key as keyof typeof fromTables] : sql`${sql.placeholder(key)}`]),
  ) as Record<keyof typeof columns, SQL>;
  // Stored only when the answer fits the session's condition (a session from before conditions ran the first).
  const fitsCondition = sql`${sessionCondition} in (select value from json_each(${sql.placeholder('fitting')}))`;
  const inSet = and(eq(caseSetItems.sessionId, sessions.sessionId), eq(caseSetItems.phase, 'main_experiment'), sql`${caseSetItems.caseId} = ${caseId}`);
  return {
    insert: db
      .insert(mainExperimentResponses)
      .select(
        db
          .select(selection)
          .from(sessions)
          .innerJoin(caseSetItems, inSet)
          .innerJoin(cases, eq(cases.caseId, caseSetItems.caseId))
          .where(and(sql`${sessions.sessionId} = ${session}`, isNotNull(sessions.consentedAt), fitsCondition))
          .getSQL(),
      )
      .onConflictDoNothing()
      .returning({ id: mainExperimentResponses.id }),
    // The 50th case completes the phase.
    complete: db
      .update(sessions)
      .set({ mainCompletedAt: sql`${now}`, currentPhase: 'post_survey', updatedAt: sql`${now}` })
      .where(
        sql`${sessions.sessionId} = ${session} and ${sessions.mainCompletedAt} is null
            and ${completedCount(session)} >= ${studyConfig.mainExperiment.numCases}`,
      ),
    // What the reply needs; no row for an unknown session.
    status: db
      .select({
        consentedAt: sql`${sessions.consentedAt}`.as('consentedAt'),
        completed: completedCount(session).as('completed'),
        inSet: sql`exists (select 1 from case_set_items i where i.session_id = ${session} and i.phase = 'main_experiment' and i.case_id = ${caseId})`.as('inSet'),
        condition: sql`${sessionCondition}`.as('condition'),
        fits: sql`${fitsCondition}`.as('fits'),
      })
      .from(sessions)
      .where(sql`${sessions.sessionId} = ${session}`),
  };
});

/** The status row by the aliases above (a batch through D1 itself returns plain column names). */
type SaveStatus = { consentedAt: string | null; completed: number; inSet: number; condition: string; fits: number };

/**
 * Stores one whole case in one D1 batch (one round trip, one transaction): the insert reads the
 * session, its stored set and the case itself, so it stores nothing unless the session has
 * consented and the case is in its main set; the 50th case completes the phase; the last
 * statement reads back what the reply needs. 404 unknown session, 409 before consent, 400 when
 * the case is not in the set.
 */
export async function storeIntegratedResponse(
  db: Db,
  sessionId: string,
  body: IntegratedResponseBody,
  now: string,
  /** Added to the 1-based position: 200 for admin-registered cases, numbered 201–250 (part 2 §3). */
  caseNumberBase = 0,
) {
  const given = answerColumns(body, now);
  // Each value as its column stores it (JSON columns as text); a missing one is SQL null.
  const answer = Object.fromEntries(
    (Object.keys(given) as AnswerKey[]).map((key) => {
      const value = given[key];
      return [key, value === null || value === undefined ? null : columns[key].mapToDriverValue(value)];
    }),
  );
  const fitting = conditionsFitting(body);
  if (fitting.length === 0) {
    // Fits no condition at all (rare: a client bug): say what the session's own condition asks for.
    const session = await db.select({ sessionId: sessions.sessionId, condition: sessions.condition }).from(sessions).where(eq(sessions.sessionId, sessionId)).get();
    if (!session) throw notFound(`No experiment session for participant ${sessionId}`);
    throw misfit(conditionOf(session), body);
  }
  const statements = saveStatements(db);
  const explains = studyConfig.conditions.some((c) => fitting.includes(c.name) && c.shows === 'explanation') ? 1 : 0;
  const values = { ...answer, session: sessionId, caseId: body.case_id, now, caseNumberBase, fitting: JSON.stringify(fitting), explains };
  const [inserted, , statusRow] = await batchBuilt(db, [statements.insert, statements.complete, statements.status], values);
  const status = statusRow!.results[0] as SaveStatus | undefined;
  if (!status) throw notFound(`No experiment session for participant ${sessionId}`);
  requireConsent(status);
  if (!status.inSet) {
    throw new AppError(400, 'case_not_in_set', [{ msg: `case ${body.case_id} is not in this session's main-experiment set`, loc: ['case_id'] }]);
  }
  if (!status.fits) throw misfit(conditionOf({ sessionId, condition: status.condition }), body);
  return { duplicate: inserted!.results.length === 0, completed: status.completed, complete: status.completed >= studyConfig.mainExperiment.numCases };
}

/** 400 naming each part of the answer the session's condition does not ask for, or misses. */
const misfit = (condition: Condition, body: IntegratedResponseBody) =>
  new AppError(
    400,
    'answer_does_not_fit_condition',
    answerMisfits(condition, body).map((msg) => ({ msg: `${condition.name}: ${msg}`, loc: ['body'] })),
  );

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
    // Only cases with an initial judgement can change, and only cases that showed the AI can agree with it.
    judgementChanges: rows.filter((r) => r.initialPrediction !== null && r.initialPrediction !== r.finalPrediction).length,
    finalAgreesWithAi: rows.filter((r) => r.aiPrediction !== null && r.finalPrediction === r.aiPrediction).length,
    meanRatings: Object.fromEntries(RATINGS.map((k) => [k, mean(k)])) as Record<(typeof RATINGS)[number], number | null>,
  };
}
