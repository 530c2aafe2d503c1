/**
 * Stores main-experiment cases. Each one must belong to the session's stored main set; its case
 * number (position), ground truth and alpha come from the server's tables, the case shown is the
 * set's case (`cases`, never rewritten) and the explanation is the serve the trial names, kept
 * once in `served_explanations`. UNIQUE(session, case) makes a retry a duplicate that
 * counts as success and never overwrites what was stored first.
 */
import { and, count, eq, getTableColumns, isNotNull, type Placeholder, sql, type SQL } from 'drizzle-orm';
import { batchBuilt, builtOnce } from '../db/built-once';
import type { Db } from '../db/client';
import { caseSetItems, cases, mainExperimentResponses, mainTrialProgress, sessions } from '../db/schema';
import { barsOfServe } from '../db/trial-record';
import { AppError, conflict, notFound } from '../errors';
import { sharesLeanToward } from '../ml/explanation';
import type { IntegratedResponseBody, KeptProgress } from '../schemas/main-experiment';
import { studyConfig, type Condition } from '../schemas/study';
import { advisesOnRequest, answerPlan, shapeOf, timeLimitOf } from '../schemas/condition-plan';
import { answerMisfits, conditionOf } from './conditions';
import { baselineShown, claimsDiffering, claimsRefused, servedFor, type ServedExplanation } from './served-explanations';
import { lifecycleColumns, requireWriteAllowed, sessionAccepts, type LifecycleRow } from '../db/session-lifecycle';
import { judgementDiffers, keptDiffers, progressView, requireTimeoutReached, stepOpenedAt, type TrialProgress } from './trial-progress';

export async function countMainResponses(db: Db, sessionId: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(mainExperimentResponses)
    .where(and(eq(mainExperimentResponses.sessionId, sessionId), isNotNull(mainExperimentResponses.completedAt)))
    .get();
  return row?.n ?? 0;
}

/**
 * The row's values: the participant's judgements, ratings and times from the body, and the AI
 * side from the Worker's record of what it served (null where the condition shows no AI); the
 * session, set and case columns come from the tables in the insert itself.
 */
function answerColumns(body: IntegratedResponseBody, served: ServedExplanation | null, advice: AdviceRecord, timing: TimeRecord, now: string) {
  return {
    ...advice,
    ...timing,
    initialPrediction: body.initial_prediction,
    initialConfidence: body.initial_confidence,
    initialResponseTimeMs: body.initial_response_time_ms,
    initialReasoning: body.initial_reasoning ?? null,
    finalPrediction: body.final_prediction,
    finalConfidence: body.final_confidence,
    finalResponseTimeMs: body.final_response_time_ms,
    finalReasoning: body.final_reasoning ?? null,
    aiPrediction: served?.aiPrediction ?? null,
    aiModelPrediction: served?.aiPrediction ?? null,
    userModelPrediction: served?.userModelPrediction ?? null,
    // The bars are the serve's, kept there once (the trial names it); without AI there are none.
    aiFeatureImportance: served ? null : [],
    userFeatureImportance: served ? null : [],
    shownFeatureImportance: null,
    shownLeansWithAi: served ? sharesLeanToward(barsOfServe(served).shown as { importance: number }[], served.aiPrediction as 0 | 1) : null,
    aiBaselineShown: served ? baselineShown(served) : null,
    aiConfidenceShown: served ? served.aiConfidenceShown : null,
    explanationKind: served?.kind ?? null,
    aiModelIdentifier: served?.aiModelIdentifier ?? null,
    userModelIdentifier: served?.userModelIdentifier ?? null,
    aiProbability: served?.aiProbability ?? null,
    userModelProbability: served?.userModelProbability ?? null,
    servedExplanationId: served?.id ?? null,
    aiOnlyReason: served?.aiOnlyReason ?? null,
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

/** Whether the AI was asked for (a condition with advice on request) and how long after the kept initial judgement it was first served, by the Worker's clock. */
type AdviceRecord = { adviceRequested: boolean | null; adviceDelayMs: number | null };
const adviceRecord = (condition: Condition, served: ServedExplanation | null, progress: TrialProgress | undefined): AdviceRecord => ({
  adviceRequested: advisesOnRequest(condition) ? served !== null : null,
  adviceDelayMs: served && progress?.initialKeptAt ? Date.parse(served.firstServedAt) - Date.parse(progress.initialKeptAt) : null,
});

/**
 * A time-limited condition's record of a trial: the limit, the page's word that each step ran out
 * (checked against the Worker's clock when it was kept), and each step's time by the Worker's
 * clock, from when it opened (`stepOpenedAt`) to the judgement kept (the final one, where no
 * checkpoint kept it, when the trial is stored). All null without a limit.
 */
type TimeRecord = { timeLimitMs: number | null; initialTimedOut: boolean | null; finalTimedOut: boolean | null; initialStepMs: number | null; finalStepMs: number | null };
function timeRecord(condition: Condition, body: IntegratedResponseBody, progress: TrialProgress | undefined, now: string): TimeRecord {
  const limit = timeLimitOf(condition);
  if (!limit) return { timeLimitMs: null, initialTimedOut: null, finalTimedOut: null, initialStepMs: null, finalStepMs: null };
  const initial = answerPlan(shapeOf(condition)).initial;
  const between = (from: string | null, to: string | null) => (from === null || to === null || to <= from ? null : Date.parse(to) - Date.parse(from));
  return {
    timeLimitMs: limit.ms,
    initialTimedOut: initial ? body.initial_timed_out === true : null,
    finalTimedOut: body.final_timed_out === true,
    initialStepMs: initial ? between(stepOpenedAt(condition, progress, 'initial'), progress?.initialKeptAt ?? null) : null,
    finalStepMs: between(stepOpenedAt(condition, progress, 'final'), progress?.finalKeptAt ?? now),
  };
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
    // The case shown is the set's case, in `cases` (never rewritten): no copy.
    caseData: sql`null`,
    // Outcome feedback is given once the trial is stored (`outcome-feedback.ts`).
    feedbackServedAt: sql`null`,
    feedbackViewingTimeMs: sql`null`,
    // A set drawn before alphas were stored explains with the fallback; a condition without explanations has none.
    alignmentAlpha: sql`case when ${caseSetItems.alignmentAlpha} is null and ${sql.placeholder('explains')} then ${studyConfig.mainExperiment.fallbackAlpha} else ${caseSetItems.alignmentAlpha} end`,
  } as const;
  const selection = Object.fromEntries(
    Object.keys(columns).map((key) => [key, key in fromTables ? fromTables[key as keyof typeof fromTables] : sql`${sql.placeholder(key)}`]),
  ) as Record<keyof typeof columns, SQL>;
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
          .where(and(sql`${sessions.sessionId} = ${session}`, sessionAccepts('main_answer')))
          .getSQL(),
      )
      .onConflictDoNothing()
      .returning({ id: mainExperimentResponses.id }),
    // The 50th case completes the phase.
    complete: db
      .update(sessions)
      // Phases only move forward: a session already past the main experiment keeps its phase.
      .set({
        mainCompletedAt: sql`${now}`,
        currentPhase: sql`case when ${sessions.currentPhase} = 'completed' then 'completed' else 'post_survey' end`,
        updatedAt: sql`${now}`,
      })
      .where(
        sql`${sessions.sessionId} = ${session} and ${sessions.mainCompletedAt} is null
            and ${completedCount(session)} >= ${studyConfig.mainExperiment.numCases}`,
      ),
    // A stored trial needs no progress kept: the row goes once the trial is there.
    progressDone: db
      .delete(mainTrialProgress)
      .where(
        sql`${mainTrialProgress.sessionId} = ${session} and ${mainTrialProgress.caseId} = ${caseId}
            and exists (select 1 from ${mainExperimentResponses} r where r.session_id = ${session} and r.case_id = ${caseId})`,
      ),
    // What the reply needs; no row for an unknown session.
    status: db
      .select({ ...lifecycleColumns('sessions'), completed: completedCount(session).as('completed') })
      .from(sessions)
      .where(sql`${sessions.sessionId} = ${session}`),
  };
});

/** The status row by the aliases above (a batch through D1 itself returns plain column names). */
type SaveStatus = LifecycleRow & { completed: number };

/**
 * Stores one whole case. One read (the session, whether the case is in its main set, the serve
 * the trial names or the case's last one), then one D1 batch (one transaction): the insert reads
 * the session, its stored set and the case itself, and stores nothing unless the session takes
 * main-experiment answers (session-lifecycle) and the case is in its main set; the 50th case
 * completes the phase; the last statement reads back what the reply needs. The AI side is the
 * serve's, and a body that says otherwise is refused. 404 unknown session, 409 when the session
 * takes no answer or nothing of the AI was served for the case, 400 when the case is not in the
 * set, a field differs from the serve, or the answer does not fit the condition.
 */
export async function storeIntegratedResponse(
  db: Db,
  sessionId: string,
  body: IntegratedResponseBody,
  now: string,
  /** Added to the 1-based position: 200 for admin-registered cases, numbered 201–250 (part 2 §3). */
  caseNumberBase = 0,
) {
  const [[session], [inSet], [lastServed], [progress]] = await db.batch([
    db.select({ sessionId: sessions.sessionId, condition: sessions.condition, ...lifecycleColumns('sessions') }).from(sessions).where(eq(sessions.sessionId, sessionId)),
    db
      .select({ position: caseSetItems.position })
      .from(caseSetItems)
      .where(and(eq(caseSetItems.sessionId, sessionId), eq(caseSetItems.phase, 'main_experiment'), eq(caseSetItems.caseId, body.case_id))),
    servedFor(db, sessionId, body.case_id, body.served_explanation_id),
    db
      .select()
      .from(mainTrialProgress)
      .where(and(eq(mainTrialProgress.sessionId, sessionId), eq(mainTrialProgress.caseId, body.case_id))),
  ]);
  if (!session) throw notFound(`No experiment session for participant ${sessionId}`);
  requireWriteAllowed(session, 'main_answer');
  if (!inSet) throw new AppError(400, 'case_not_in_set', [{ msg: `case ${body.case_id} is not in this session's main-experiment set`, loc: ['case_id'] }]);
  const condition = conditionOf(session);
  const served = condition.shows === 'none' ? null : (lastServed ?? null);
  // With advice on request a case may be stored without the AI, unless the body names a serve.
  if (condition.shows !== 'none' && !served && (body.served_explanation_id || !advisesOnRequest(condition))) {
    if (body.served_explanation_id) {
      throw new AppError(400, 'served_explanation_unknown', [
        { msg: `serve ${body.served_explanation_id} is not one of case ${body.case_id} for this session`, loc: ['body', 'served_explanation_id'] },
      ]);
    }
    throw conflict('ai_not_served', `Nothing of the AI was served for case ${body.case_id} of ${sessionId}: its explanation is asked for before its answer is stored`);
  }
  if (served) {
    const differing = claimsDiffering(body, served);
    if (differing.length > 0) throw claimsRefused(served, differing);
  }
  if (!served && condition.shows !== 'none') {
    const claimed = AI_CLAIMS.filter((key) => body[key] !== undefined && body[key] !== null && body[key] !== false);
    if (claimed.length > 0) throw unaskedClaims(condition, body.case_id, claimed);
  }
  // The judgements kept while the case was under way are the trial's; the body may repeat them, not change them.
  const kept = progress ? progressView(progress) : null;
  const judged = withKeptJudgements(body, kept);
  // A step the page says ran out, and no checkpoint kept, must have by the Worker's clock.
  for (const step of ['initial', 'final'] as const) {
    if (body[`${step}_timed_out`] && !kept?.[step]) requireTimeoutReached(condition, body.case_id, step, stepOpenedAt(condition, progress, step), now);
  }
  if (judged.final_prediction === undefined || judged.final_confidence === undefined || judged.final_response_time_ms === undefined) {
    throw new AppError(400, 'validation_failed', [
      { msg: `final_prediction, final_confidence and final_response_time_ms are required: no final judgement was kept for case ${body.case_id}`, loc: ['body', 'final_prediction'] },
    ]);
  }
  // The judgements and ratings must fit the condition; what it showed of the AI is the serve's.
  const answer = served
    ? { ...judged, ai_prediction: served.aiPrediction, ai_feature_importance: barsOfServe(served).ai, shown_feature_importance: barsOfServe(served).shown }
    : judged;
  if (answerMisfits(condition, answer, served !== null).length > 0) throw misfit(condition, answer, served !== null);

  const given = answerColumns(judged, served, adviceRecord(condition, served, progress), timeRecord(condition, judged, progress, now), now);
  // Each value as its column stores it (JSON columns as text); a missing one is SQL null.
  const values = Object.fromEntries(
    (Object.keys(given) as AnswerKey[]).map((key) => {
      const value = given[key];
      return [key, value === null || value === undefined ? null : columns[key].mapToDriverValue(value)];
    }),
  );
  const statements = saveStatements(db);
  const explains = condition.shows === 'explanation' ? 1 : 0;
  const [inserted, , , statusRow] = await batchBuilt(db, [statements.insert, statements.complete, statements.progressDone, statements.status], {
    ...values,
    session: sessionId,
    caseId: body.case_id,
    now,
    caseNumberBase,
    explains,
  });
  const status = statusRow!.results[0] as SaveStatus | undefined;
  if (!status) throw notFound(`No experiment session for participant ${sessionId}`);
  // Closed between the read and the write: the insert's own test refused it.
  if (inserted!.results.length === 0) requireWriteAllowed(status, 'main_answer');
  return { duplicate: inserted!.results.length === 0, completed: status.completed, complete: status.completed >= studyConfig.mainExperiment.numCases };
}

/**
 * The body with the judgements the server kept while the case was under way (the initial one from
 * the moment the AI was revealed, the explanation's viewing time, the final one before the
 * questions): a part the body leaves out is taken from what was kept, a part it says otherwise is
 * refused (409), and a part never kept (a case begun before the server kept progress, or a step
 * whose checkpoint did not arrive) is the body's.
 */
function withKeptJudgements(body: IntegratedResponseBody, kept: KeptProgress | null): IntegratedResponseBody {
  if (!kept) return body;
  const given = (prefix: 'initial' | 'final') => ({
    prediction: body[`${prefix}_prediction`] ?? undefined,
    confidence: body[`${prefix}_confidence`] ?? undefined,
    response_time_ms: body[`${prefix}_response_time_ms`] ?? undefined,
    reasoning: body[`${prefix}_reasoning`] === undefined ? undefined : (body[`${prefix}_reasoning`] ?? null),
    timed_out: body[`${prefix}_timed_out`],
  });
  const viewed = body.explanation_viewing_time_ms;
  const differing = [
    ...(kept.initial ? judgementDiffers('initial', given('initial'), kept.initial) : []),
    ...(kept.final ? judgementDiffers('final', given('final'), kept.final) : []),
    ...(kept.explanation_viewing_time_ms !== null && viewed !== undefined && viewed !== null && viewed !== kept.explanation_viewing_time_ms ? ['explanation_viewing_time_ms'] : []),
  ];
  if (differing.length > 0) throw keptDiffers(body.case_id, differing);
  const { initial, final } = kept;
  return {
    ...body,
    ...(initial
      ? {
          initial_prediction: initial.prediction,
          initial_confidence: initial.confidence,
          initial_response_time_ms: initial.response_time_ms,
          initial_reasoning: initial.reasoning,
          initial_timed_out: initial.timed_out,
        }
      : {}),
    ...(final
      ? { final_prediction: final.prediction, final_confidence: final.confidence, final_response_time_ms: final.response_time_ms, final_reasoning: final.reasoning, final_timed_out: final.timed_out }
      : {}),
    ...(kept.explanation_viewing_time_ms !== null ? { explanation_viewing_time_ms: kept.explanation_viewing_time_ms } : {}),
  };
}

/** 400 naming each part of the answer the session's condition does not ask for, or misses. */
const misfit = (condition: Condition, body: Parameters<typeof answerMisfits>[1], advised: boolean) =>
  new AppError(
    400,
    'answer_does_not_fit_condition',
    answerMisfits(condition, body, advised).map((msg) => ({ msg: `${condition.name}: ${msg}${advised ? '' : ' (the AI was not asked for on this case)'}`, loc: ['body'] })),
  );

/** What a page may say of the AI it showed: on a case stored without the AI, none of it. */
const AI_CLAIMS = [
  'ai_prediction',
  'ai_model_prediction',
  'user_model_prediction',
  'explanation_kind',
  'ai_model_identifier',
  'ai_probability',
  'ai_accuracy_stated',
  'ai_baseline_shown',
  'ai_confidence_shown',
  'explanation_viewing_time_ms',
] as const;

/** 400 for a case stored without the AI (advice on request, not asked for) whose body says something of an AI shown. */
const unaskedClaims = (condition: Condition, caseId: string, fields: readonly string[]) =>
  new AppError(
    400,
    'ai_record_mismatch',
    fields.map((field) => ({ msg: `${condition.name}: nothing of the AI was served for case ${caseId} (it was not asked for), so ${field} says something never shown`, loc: ['body', field] })),
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
