/**
 * What the admin dashboard reads and deletes. Lists are paged in SQL (never a whole table read
 * into the Worker); counts and rates are SQL aggregates over the stored rows.
 */
import { and, count, desc, eq, inArray, isNotNull, sql, type AnyColumn } from 'drizzle-orm';
import type { Db } from '../client';
import { caseShown, servedBars, trialBars, trialServe } from '../trial-record';
import { lastActivityOf, placeOf } from './sessions';
import { countedParticipant, sessionCondition, shownAlpha, shownKind, type Population } from './analytics';
import {
  cases,
  caseSetItems,
  consentRecords,
  datasetAssignments,
  mainExperimentResponses as main,
  participants,
  postSurveys,
  preExperimentResponses as pre,
  servedExplanations,
  mainTrialProgress,
  sessions,
  studyConfigurations,
  understandingTestAttempts,
  userModels,
  userModelVersions,
} from '../schema';

export type Page = { limit: number; offset: number };

/** Synthetic participants of the registration tools carry this prefix (part 2 §2.6 test badge). */
export const TEST_USER_PREFIX = 'test_';

const codeFilter = (column: typeof participants.participantCode, userName?: string) =>
  userName ? eq(column, userName) : undefined;

export async function listUsers(db: Db, page: Page & { userName?: string; onlyIds?: number[]; abandonCutoff: string }) {
  // A flag filter names its participants as one JSON parameter, however many there are.
  const where = and(
    codeFilter(participants.participantCode, page.userName),
    page.onlyIds ? sql`${participants.id} in (select value from json_each(${JSON.stringify(page.onlyIds)}))` : undefined,
  );
  const preCount = db.$count(pre, eq(pre.participantId, participants.id));
  const mainCount = db.$count(main, and(eq(main.participantId, participants.id), isNotNull(main.completedAt)));
  const [rows, total] = await db.batch([
    db
      .select({
        id: participants.id,
        username: participants.participantCode,
        displayName: participants.displayName,
        origin: participants.origin,
        isActive: participants.isActive,
        createdAt: participants.createdAt,
        sessionId: sessions.sessionId,
        datasetType: sessions.datasetType,
        currentPhase: sessions.currentPhase,
        consentedAt: sessions.consentedAt,
        postSurveyCompletedAt: sessions.postSurveyCompletedAt,
        screenedOutAt: sessions.screenedOutAt,
        studyConfigVersion: sessions.studyConfigVersion,
        lastActivityAt: sql<string | null>`(case when ${sessions.sessionId} is null then null else ${lastActivityOf('"sessions"')} end)`,
        place: placeOf('"sessions"', page.abandonCutoff),
        prolific: sql<number>`${participants.prolificPid} is not null`.mapWith(Boolean),
        preCount: sql<number>`${preCount}`,
        mainCount: sql<number>`${mainCount}`,
      })
      .from(participants)
      .leftJoin(sessions, eq(sessions.participantId, participants.id))
      .where(where)
      .orderBy(desc(participants.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(participants).where(where),
  ]);
  return { rows, total: total[0]?.n ?? 0 };
}

export async function listSessions(db: Db, page: Page) {
  const [rows, total] = await db.batch([
    db
      .select({
        id: sessions.id,
        sessionId: sessions.sessionId,
        userId: sessions.participantId,
        username: participants.participantCode,
        datasetType: sessions.datasetType,
        currentPhase: sessions.currentPhase,
        language: sessions.language,
        consentedAt: sessions.consentedAt,
        preCompletedAt: sessions.preCompletedAt,
        mainStartedAt: sessions.mainStartedAt,
        mainCompletedAt: sessions.mainCompletedAt,
        postSurveyCompletedAt: sessions.postSurveyCompletedAt,
        createdAt: sessions.createdAt,
      })
      .from(sessions)
      .innerJoin(participants, eq(participants.id, sessions.participantId))
      .orderBy(desc(sessions.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(sessions),
  ]);
  return { rows, total: total[0]?.n ?? 0 };
}

export type ExperimentType = 'pre_experiment' | 'main_experiment';
export type ResponseFilter = { experimentType?: ExperimentType; userName?: string; sessionId?: string; caseId?: string };

/**
 * One projection for both phases' answers, so the admin list pages through either table or, with
 * no phase named, both at once (UNION ALL in SQL, newest first). Main-only columns are NULL for
 * pre-experiment rows; a main case still in progress has no `completedAt`.
 */
function responseSelect(db: Db, type: ExperimentType, f: ResponseFilter) {
  const t = type === 'pre_experiment' ? pre : main;
  const isMain = type === 'main_experiment';
  const nul = <T>(alias: string) => sql<T | null>`null`.as(alias);
  return db
    .select({
      id: sql<number>`${t.id}`.as('row_id'),
      experimentType: sql<ExperimentType>`${type}`.as('experiment_type'),
      userId: t.participantId,
      username: participants.participantCode,
      sessionId: t.sessionId,
      datasetType: t.datasetType,
      caseId: t.caseId,
      caseNumber: t.caseNumber,
      prediction: isMain ? main.finalPrediction : pre.prediction,
      confidence: isMain ? main.finalConfidence : pre.confidence,
      groundTruth: t.groundTruth,
      responseTimeMs: isMain ? main.finalResponseTimeMs : pre.responseTimeMs,
      reasoning: isMain ? main.finalReasoning : pre.reasoning,
      caseData: caseShown(t).as('case_data'),
      initialPrediction: isMain ? main.initialPrediction : nul<number>('initial_prediction'),
      initialConfidence: isMain ? main.initialConfidence : nul<number>('initial_confidence'),
      aiPrediction: isMain ? main.aiPrediction : nul<number>('ai_prediction'),
      alignmentAlpha: isMain ? main.alignmentAlpha : nul<number>('alignment_alpha'),
      completedAt: isMain ? main.completedAt : pre.createdAt,
      createdAt: sql<string>`${t.createdAt}`.as('row_created_at'),
      // Newest first, in the order of the time indexes (their Julian day orders as the text does).
      rowOrder: sql<number>`julianday(${t.createdAt})`.as('row_order'),
    })
    .from(t)
    .innerJoin(participants, eq(participants.id, t.participantId))
    .leftJoin(cases, eq(cases.caseId, t.caseId))
    .where(
      and(
        f.userName ? eq(participants.participantCode, f.userName) : undefined,
        f.sessionId ? eq(t.sessionId, f.sessionId) : undefined,
        f.caseId ? eq(t.caseId, f.caseId) : undefined,
      ),
    );
}

const countOf = (db: Db, type: ExperimentType, f: ResponseFilter) => {
  const t = type === 'pre_experiment' ? pre : main;
  return db
    .select({ n: count() })
    .from(t)
    .innerJoin(participants, eq(participants.id, t.participantId))
    .where(
      and(
        f.userName ? eq(participants.participantCode, f.userName) : undefined,
        f.sessionId ? eq(t.sessionId, f.sessionId) : undefined,
        f.caseId ? eq(t.caseId, f.caseId) : undefined,
      ),
    );
};

const phasesOf = (f: ResponseFilter): ExperimentType[] => (f.experimentType ? [f.experimentType] : ['pre_experiment', 'main_experiment']);

/** A page of answers and trials, newest first: each phase read down its time index, both merged. */
export function responsesPage(db: Db, page: Page, f: ResponseFilter = {}) {
  const [first, second] = phasesOf(f).map((type) => responseSelect(db, type, f));
  return (second ? first!.unionAll(second) : first!)
    .orderBy(sql`row_order desc`, sql`row_id desc`)
    .limit(page.limit)
    .offset(page.offset);
}

export async function listResponses(db: Db, page: Page, f: ResponseFilter = {}) {
  const types = phasesOf(f);
  const [rows, ...counts] = await db.batch([responsesPage(db, page, f), ...types.map((type) => countOf(db, type, f))] as const);
  return { rows, total: counts.reduce((sum, c) => sum + (c[0]?.n ?? 0), 0) };
}

/** A main-experiment case in full (explanation shown, ratings, times) for the detail dialog. */
/** A main-experiment trial with everything it showed: the case from `cases` and the bars from its serve, where it kept no copy. */
export async function findMainResponse(db: Db, id: number) {
  const row = await db
    .select({
      r: main,
      caseShown: caseShown(main),
      served: servedBars,
    })
    .from(main)
    .leftJoin(cases, eq(cases.caseId, main.caseId))
    .leftJoin(servedExplanations, trialServe)
    .where(eq(main.id, id))
    .get();
  if (!row) return null;
  const { ai, user, shown } = trialBars(row.r, row.served);
  return { ...row.r, caseData: row.caseShown, aiFeatureImportance: ai, userFeatureImportance: user, shownFeatureImportance: shown };
}

/** A page of a table whose rows belong to one participant each, newest first, with the participant's code. */
async function listOwned<T extends typeof consentRecords | typeof postSurveys>(db: Db, table: T, page: Page) {
  const [rows, total] = await db.batch([
    db
      .select({ row: table as typeof consentRecords, username: participants.participantCode })
      .from(table as typeof consentRecords)
      .innerJoin(participants, eq(participants.id, table.participantId))
      .orderBy(desc(table.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(table),
  ]);
  return { rows: rows as { row: T['$inferSelect']; username: string }[], total: total[0]?.n ?? 0 };
}

export const listConsentRecords = (db: Db, page: Page) => listOwned(db, consentRecords, page);
export const listPostSurveys = (db: Db, page: Page) => listOwned(db, postSurveys, page);

/** Start of the current UTC day and the instant seven days ago, as stored timestamps compare. */
function recentBounds(now: Date) {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
  const weekAgo = new Date(now.getTime() - 7 * 24 * 3600 * 1000).toISOString();
  return { today, weekAgo };
}

const completedMain = isNotNull(main.completedAt);

/**
 * The dashboard's summary cards and charts. A response is a pre-experiment answer or a completed
 * main-experiment case. The funnel counts participants by the furthest phase they reached. Every
 * figure counts the population asked for (by default without synthetic participants and bypassed
 * sessions); alpha groups are by the explanation shown, the AI-only fallbacks apart.
 */
export async function dashboardStats(db: Db, now: Date, population: Population) {
  const { today, weekAgo } = recentBounds(now);
  const counted = (column: AnyColumn) => countedParticipant(db, column, population) ?? sql`1`;
  const sinceCount = (since: string) =>
    sql<number>`(select count(*) from ${pre} where julianday(${pre.createdAt}) >= julianday(${since}) and ${counted(pre.participantId)}) + (select count(*) from ${main} where ${main.completedAt} >= ${since} and ${counted(main.participantId)})`;
  const [listedUsers, listedPre, listedMain, users, responses, phases, balance, conditionBalance, byAlpha] = await db.batch([
    // What the Users and experiment tabs list (everyone, every stored row): their labels count these.
    db.select({ n: count() }).from(participants),
    countOf(db, 'pre_experiment', {}),
    countOf(db, 'main_experiment', {}),
    db.select({ n: count() }).from(participants).where(counted(participants.id)),
    db
      .select({
        pre: sql<number>`(select count(*) from ${pre} where ${counted(pre.participantId)})`,
        main: sql<number>`(select count(*) from ${main} where ${completedMain} and ${counted(main.participantId)})`,
        today: sinceCount(today).as('responses_today'),
        week: sinceCount(weekAgo).as('responses_week'),
        withdrawals: sql<number>`(select count(*) from audit_log where action = 'participant_withdrawal')`,
        screenedOut: sql<number>`(select count(*) from ${sessions} where ${sessions.screenedOutAt} is not null and ${counted(sessions.participantId)})`,
      })
      .from(sql`(select 1)`),
    db
      .select({
        consented: sql<number>`coalesce(sum(${sessions.consentedAt} is not null), 0)`,
        preDone: sql<number>`coalesce(sum(${sessions.preCompletedAt} is not null), 0)`,
        mainStarted: sql<number>`coalesce(sum(${sessions.mainStartedAt} is not null), 0)`,
        mainDone: sql<number>`coalesce(sum(${sessions.mainCompletedAt} is not null), 0)`,
        completed: sql<number>`coalesce(sum(${sessions.postSurveyCompletedAt} is not null), 0)`,
        sessions: count(),
      })
      .from(sessions)
      .where(counted(sessions.participantId)),
    db.select({ datasetType: sessions.datasetType, n: count() }).from(sessions).where(counted(sessions.participantId)).groupBy(sessions.datasetType),
    db
      .select({ condition: sessionCondition, n: count() })
      .from(sessions)
      .where(and(isNotNull(sessions.mainStartedAt), counted(sessions.participantId)))
      .groupBy(sessionCondition),
    db
      .select({
        condition: sessionCondition,
        kind: shownKind(),
        alpha: shownAlpha(),
        cases: count(),
        // Change and the initial accuracy are defined on trials with both judgements.
        decidedTwice: sql<number>`coalesce(sum(${main.initialPrediction} is not null), 0)`,
        changed: sql<number>`coalesce(sum(${main.finalPrediction} != ${main.initialPrediction}), 0)`,
        finalCorrect: sql<number>`sum(${main.finalPrediction} = ${main.groundTruth})`,
        initialCorrect: sql<number>`coalesce(sum(${main.initialPrediction} = ${main.groundTruth}), 0)`,
      })
      .from(main)
      .leftJoin(sessions, eq(sessions.sessionId, main.sessionId))
      .where(and(completedMain, counted(main.participantId)))
      .groupBy(sessionCondition, shownKind(), shownAlpha())
      .orderBy(sessionCondition, shownKind(), shownAlpha()),
  ]);
  const r = responses[0]!;
  const p = phases[0]!;
  return {
    listed: { users: listedUsers[0]?.n ?? 0, pre: listedPre[0]?.n ?? 0, main: listedMain[0]?.n ?? 0 },
    totalUsers: users[0]?.n ?? 0,
    preResponses: r.pre,
    mainResponses: r.main,
    responsesToday: r.today,
    responsesThisWeek: r.week,
    withdrawals: r.withdrawals,
    screenedOut: r.screenedOut,
    funnel: p,
    balance,
    conditionBalance,
    byAlpha,
  };
}

/**
 * Part 2 §3 "Statistics": per phase, responses and distinct participants; for the main experiment,
 * per condition and what was shown, the completed cases, those with the AI shown after an initial
 * judgement (where a change is defined) and the changes among them.
 */
export async function experimentStatistics(db: Db, population: Population) {
  const counted = (column: AnyColumn) => countedParticipant(db, column, population);
  const [preStats, mainStats, groups, usersByCondition] = await db.batch([
    db.select({ total: count(), users: sql<number>`count(distinct ${pre.participantId})` }).from(pre).where(counted(pre.participantId)),
    db
      .select({ total: count(), users: sql<number>`count(distinct ${main.participantId})` })
      .from(main)
      .where(and(completedMain, counted(main.participantId))),
    db
      .select({
        condition: sessionCondition,
        kind: shownKind(),
        alpha: shownAlpha(),
        n: count(),
        aiAfterInitial: sql<number>`coalesce(sum(${main.aiPrediction} is not null and ${main.initialPrediction} is not null), 0)`,
        changed: sql<number>`coalesce(sum(${main.aiPrediction} is not null and ${main.finalPrediction} != ${main.initialPrediction}), 0)`,
      })
      .from(main)
      .leftJoin(sessions, eq(sessions.sessionId, main.sessionId))
      .where(and(completedMain, counted(main.participantId)))
      .groupBy(sessionCondition, shownKind(), shownAlpha())
      .orderBy(sessionCondition, shownKind(), shownAlpha()),
    db
      .select({ condition: sessionCondition, users: sql<number>`count(distinct ${main.participantId})` })
      .from(main)
      .leftJoin(sessions, eq(sessions.sessionId, main.sessionId))
      .where(and(completedMain, counted(main.participantId)))
      .groupBy(sessionCondition),
  ]);
  return { pre: preStats[0]!, main: mainStats[0]!, groups, usersByCondition };
}

/**
 * Sessions with activity since `since` (their participant's last write of any kind, as
 * `lastActivityOf` counts it), newest first, with how far each has got. A researcher's "who is on
 * the study now".
 */
export async function activeSessions(db: Db, since: string) {
  const lastActivity = lastActivityOf('"sessions"');
  return db
    .select({
      username: participants.participantCode,
      origin: participants.origin,
      datasetType: sessions.datasetType,
      phase: sessions.currentPhase,
      preAnswers: sql<number>`(select count(*) from ${pre} where ${pre.sessionId} = ${sessions.sessionId})`,
      mainAnswers: sql<number>`(select count(*) from ${main} where ${main.sessionId} = ${sessions.sessionId} and ${main.completedAt} is not null)`,
      lastActivity,
    })
    .from(sessions)
    .innerJoin(participants, eq(participants.id, sessions.participantId))
    .where(sql`${lastActivity} >= ${since}`)
    .orderBy(desc(lastActivity))
    .limit(500);
}

/** The session ids of one participant, as a subquery the cascade's statements share. */
const sessionIdsOf = (db: Db, participantId: number) =>
  db.select({ sessionId: sessions.sessionId }).from(sessions).where(eq(sessions.participantId, participantId));

/** R2 keys of a participant's user-model files (the current one and replaced versions), read before the rows that name them go. */
export async function userModelKeysOf(db: Db, participantId: number) {
  const [current, replaced] = await db.batch([
    db.select({ key: userModels.r2Key }).from(userModels).where(eq(userModels.participantId, participantId)),
    db.select({ key: userModelVersions.r2Key }).from(userModelVersions).where(eq(userModelVersions.participantId, participantId)),
  ]);
  return [...current, ...replaced].flatMap((r) => (r.key ? [r.key] : []));
}

/**
 * Deletes a participant and everything that is theirs in one batch (one transaction on D1): every
 * table that names them by numeric id, and the case sets and dataset assignment keyed by their
 * session ids (rows without a foreign key, so the cascade must name them). Returns rows deleted
 * per table.
 */
export async function deleteParticipantCascade(db: Db, participantId: number) {
  const ids = sessionIdsOf(db, participantId);
  const code = db.select({ code: participants.participantCode }).from(participants).where(eq(participants.id, participantId));
  const results = await db.batch([
    db.delete(caseSetItems).where(inArray(caseSetItems.sessionId, ids)).returning({ k: caseSetItems.sessionId }),
    db.delete(servedExplanations).where(inArray(servedExplanations.sessionId, ids)).returning({ k: servedExplanations.id }),
    db.delete(mainTrialProgress).where(inArray(mainTrialProgress.sessionId, ids)).returning({ k: mainTrialProgress.caseId }),
    db
      .delete(datasetAssignments)
      .where(sql`${datasetAssignments.sessionId} in ${ids} or ${datasetAssignments.sessionId} in ${code}`)
      .returning({ k: datasetAssignments.sessionId }),
    db.delete(pre).where(eq(pre.participantId, participantId)).returning({ k: pre.id }),
    db.delete(main).where(eq(main.participantId, participantId)).returning({ k: main.id }),
    db.delete(understandingTestAttempts).where(eq(understandingTestAttempts.participantId, participantId)).returning({ k: understandingTestAttempts.id }),
    db.delete(postSurveys).where(eq(postSurveys.participantId, participantId)).returning({ k: postSurveys.id }),
    db.delete(userModels).where(eq(userModels.participantId, participantId)).returning({ k: userModels.id }),
    db.delete(userModelVersions).where(eq(userModelVersions.participantId, participantId)).returning({ k: userModelVersions.id }),
    db.delete(consentRecords).where(eq(consentRecords.participantId, participantId)).returning({ k: consentRecords.id }),
    db.delete(sessions).where(eq(sessions.participantId, participantId)).returning({ k: sessions.id }),
    db.delete(participants).where(eq(participants.id, participantId)).returning({ k: participants.participantCode }),
  ]);
  const [caseSets, served, inProgress, assignments, preRows, mainRows, attempts, surveys, models, modelVersions, consents, sessionRows, people] = results.map((r) => r.length);
  const counts = {
    case_set_items: caseSets!,
    served_explanations: served!,
    main_trial_progress: inProgress!,
    dataset_assignments: assignments!,
    pre_experiment_responses: preRows!,
    main_experiment_responses: mainRows!,
    understanding_test_attempts: attempts!,
    post_surveys: surveys!,
    user_models: models!,
    user_model_versions: modelVersions!,
    consent_records: consents!,
    sessions: sessionRows!,
    participants: people!,
  };
  return { username: results[12][0]?.k ?? null, counts };
}

/**
 * Every row participants produced, across all their tables, in one batch; cases, AI models, admin
 * sessions and the audit log stay (the platform keeps working and the log keeps what was done).
 */
export async function deleteAllParticipantData(db: Db) {
  const results = await db.batch([
    db.delete(caseSetItems),
    db.delete(servedExplanations),
    db.delete(mainTrialProgress),
    db.delete(datasetAssignments),
    db.delete(pre),
    db.delete(main),
    db.delete(understandingTestAttempts),
    db.delete(postSurveys),
    db.delete(userModels),
    db.delete(userModelVersions),
    db.delete(consentRecords),
    db.delete(sessions),
    db.delete(participants),
  ]);
  return results.reduce((sum, r) => sum + r.meta.changes, 0);
}

/** Every user-model row with its R2 key (current models and replaced versions), for the model-files cleanup. */
export async function allUserModelKeys(db: Db) {
  const [current, replaced] = await db.batch([db.select({ key: userModels.r2Key }).from(userModels), db.select({ key: userModelVersions.r2Key }).from(userModelVersions)]);
  return [...current, ...replaced].flatMap((r) => (r.key ? [r.key] : []));
}

export async function deleteAllUserModelRows(db: Db) {
  const results = await db.batch([db.delete(userModels), db.delete(userModelVersions)]);
  return results.reduce((sum, r) => sum + r.meta.changes, 0);
}

export const deletePreResponse = (db: Db, id: number) =>
  db.delete(pre).where(eq(pre.id, id)).returning({ id: pre.id, sessionId: pre.sessionId, caseId: pre.caseId });
export const deleteMainResponse = (db: Db, id: number) =>
  db.delete(main).where(eq(main.id, id)).returning({ id: main.id, sessionId: main.sessionId, caseId: main.caseId });

/**
 * Deletes a post-survey and reopens it for its session in one batch, so no session claims a
 * completed survey that is gone.
 */
export async function deletePostSurvey(db: Db, id: number, now: string) {
  const sessionOf = db.select({ s: postSurveys.sessionId }).from(postSurveys).where(eq(postSurveys.id, id));
  const [, deleted] = await db.batch([
    db
      .update(sessions)
      .set({ postSurveyCompletedAt: null, currentPhase: 'post_survey', updatedAt: now })
      .where(inArray(sessions.sessionId, sessionOf)),
    db.delete(postSurveys).where(eq(postSurveys.id, id)).returning({ id: postSurveys.id, sessionId: postSurveys.sessionId }),
  ]);
  return deleted;
}

/** Every recorded study configuration with the number of sessions that ran under it, oldest first. */
export const studyConfigUsage = (db: Db) =>
  db
    .select({
      version: studyConfigurations.version,
      studyVersion: studyConfigurations.studyVersion,
      recordedAt: studyConfigurations.recordedAt,
      sessions: db.$count(sessions, eq(sessions.studyConfigVersion, studyConfigurations.version)),
    })
    .from(studyConfigurations)
    .orderBy(studyConfigurations.recordedAt);

/** Every recorded configuration in full, for the all-data zip. */
export const recordedStudyConfigs = (db: Db) => db.select().from(studyConfigurations).orderBy(studyConfigurations.recordedAt);
