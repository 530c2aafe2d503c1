import { and, count, eq, isNotNull, sql } from 'drizzle-orm';
import type { DatasetType, Language, StudyConfigRecord } from '../../schemas/study';
import type { Db } from '../client';
import { datasetAssignments, mainExperimentResponses, participants, postSurveys, preExperimentResponses, sessions, studyConfigurations, userModels } from '../schema';
import { sessionAccepts } from '../session-lifecycle';

/** A session with its participant's numeric id and code. */
export async function findSession(db: Db, sessionId: string) {
  return (
    (await db
      .select({
        id: sessions.id,
        sessionId: sessions.sessionId,
        userId: participants.id,
        participantCode: participants.participantCode,
        datasetType: sessions.datasetType,
        currentPhase: sessions.currentPhase,
        language: sessions.language,
        consentedAt: sessions.consentedAt,
        preCompletedAt: sessions.preCompletedAt,
        mainStartedAt: sessions.mainStartedAt,
        mainCompletedAt: sessions.mainCompletedAt,
        postSurveyCompletedAt: sessions.postSurveyCompletedAt,
        createdAt: sessions.createdAt,
        creationRequestId: sessions.creationRequestId,
        studyConfigVersion: sessions.studyConfigVersion,
        screenedOutAt: sessions.screenedOutAt,
        completionVerificationCode: sessions.completionVerificationCode,
        condition: sessions.condition,
        origin: participants.origin,
        prolific: sql<number>`${participants.prolificPid} is not null`.mapWith(Boolean),
      })
      .from(sessions)
      .innerJoin(participants, eq(participants.id, sessions.participantId))
      .where(eq(sessions.sessionId, sessionId))
      .get()) ?? null
  );
}
export type SessionRow = NonNullable<Awaited<ReturnType<typeof findSession>>>;

export async function findSessionByUserId(db: Db, userId: number) {
  const row = await db.select({ sessionId: sessions.sessionId }).from(sessions).where(eq(sessions.participantId, userId)).get();
  return row ? findSession(db, row.sessionId) : null;
}

export const findAssignment = async (db: Db, sessionId: string) =>
  (await db.select().from(datasetAssignments).where(eq(datasetAssignments.sessionId, sessionId)).get()) ?? null;

/**
 * Creates the participant, confirms the dataset assignment and opens the session in one batch.
 * Every statement ignores an existing row, so a retried request changes nothing.
 */
/**
 * What admission under quotas needs for one newcomer's dataset: its cells' conditions in the
 * configuration's order, each one's target of completed participants (null: no limit), the
 * overall target, and when a session's last answer must be after to hold its place.
 */
export type Quota = { dataset: DatasetType; conditions: string[]; cellTargets: Record<string, number | null>; overallTarget: number | null; cutoff: string };

/**
 * A session holds a place (alias `s`): not screened out, and completed, or with a stored answer
 * (or, before any, its creation) since `cutoff`; an abandoned one gives its place back.
 */
export const holdsPlace = (cutoff: string) => sql`(s.screened_out_at is null and (s.post_survey_completed_at is not null or ${lastActivity} > ${cutoff}))`;

/**
 * When a session (table or alias `s`, as SQL names it) last did something: the latest of every
 * write the participant makes, which decides when a place is given back (`holdsPlace`): its
 * creation and consent, each phase it started or completed, its last pre-experiment answer, stored
 * case, serve of the AI (served again counts too), kept step of a case under way, understanding-test
 * attempt and its post-survey. Each is read down an index that leads with the session.
 */
export const lastActivityOf = (s: string) => {
  const t = sql.raw(s);
  return sql<string>`max(
  ${t}.created_at, coalesce(${t}.consented_at, ''), coalesce(${t}.main_started_at, ''), coalesce(${t}.main_completed_at, ''), coalesce(${t}.post_survey_completed_at, ''),
  coalesce((select max(r.created_at) from pre_experiment_responses r where r.session_id = ${t}.session_id), ''),
  coalesce((select max(m.updated_at) from main_experiment_responses m where m.session_id = ${t}.session_id), ''),
  coalesce((select max(e.last_served_at) from served_explanations e where e.session_id = ${t}.session_id), ''),
  coalesce((select max(g.updated_at) from main_trial_progress g where g.session_id = ${t}.session_id), ''),
  coalesce((select max(u.created_at) from understanding_test_attempts u where u.session_id = ${t}.session_id), ''),
  coalesce((select max(v.created_at) from post_surveys v where v.session_id = ${t}.session_id), ''))`;
};
export const lastActivity = lastActivityOf('s');

/**
 * Where a session stands for recruitment: `completed`, `screened_out`, `in_progress` (holds a
 * place), or `abandoned` (no answer for the time-out: its place went back); null without a session.
 */
export const placeOf = (s: string, cutoff: string) => {
  const t = sql.raw(s);
  return sql<'completed' | 'screened_out' | 'in_progress' | 'abandoned' | null>`(case when ${t}.session_id is null then null
    when ${t}.post_survey_completed_at is not null then 'completed' when ${t}.screened_out_at is not null then 'screened_out'
    when ${lastActivityOf(s)} > ${cutoff} then 'in_progress' else 'abandoned' end)`;
};

/**
 * The condition a newcomer of the quota's dataset is admitted into: among the cells below their
 * target (the study below its overall target), the least filled for its target, ties in the
 * configuration's order; no row when every cell is full. People only: synthetic participants hold no place.
 * `admitted`: the session already holds a place in the study without a cell (admitted before the
 * quotas, drawn at its main start), so the overall count leaves it out.
 */
export const openCell = (q: Quota, admitted?: string) => sql`(select c.value from json_each(${JSON.stringify(q.conditions)}) c
  left join (select s.condition as condition, count(*) as n from sessions s join participants p on p.id = s.participant_id
             where s.dataset_type = ${q.dataset} and p.origin = 'participant' and ${holdsPlace(q.cutoff)} group by s.condition) o on o.condition = c.value
  left join json_each(${JSON.stringify(q.cellTargets)}) t on t.key = c.value
  where (t.value is null or coalesce(o.n, 0) < t.value)
    and (${q.overallTarget} is null or (select count(*) from sessions s join participants p on p.id = s.participant_id
                                       where p.origin = 'participant' and ${holdsPlace(q.cutoff)} and s.session_id is not ${admitted ?? null}) < ${q.overallTarget})
  order by case when t.value is null then coalesce(o.n, 0) else coalesce(o.n, 0) * 1.0 / t.value end, c.key
  limit 1)`;

export async function insertParticipantSession(
  db: Db,
  input: {
    code: string;
    datasetType: DatasetType;
    language: Language;
    prolific: { pid?: string; studyId?: string; sessionId?: string };
    requestId?: string;
    origin?: 'participant' | 'admin_synthetic';
    /** The configuration the session runs under; its first session records it. */
    studyConfig: StudyConfigRecord;
    /**
     * Admission under quotas: the session goes into the open cell `openCell` picks, and nothing
     * (participant, assignment, session) is written when there is none. The batch is one
     * transaction, so simultaneous newcomers are admitted one after another and never overshoot.
     */
    quota?: Quota;
    now: string;
  },
): Promise<{ inserted: boolean }> {
  const { code, datasetType, language, now, quota } = input;
  const admitted = quota ? sql`exists ${openCell(quota)}` : sql`1`;
  const results = await db.batch([
    db
      .insert(studyConfigurations)
      .values({ version: input.studyConfig.version, studyVersion: input.studyConfig.studyVersion, config: input.studyConfig.config, recordedAt: now })
      .onConflictDoNothing(),
    quota
      ? db.insert(participants).select(
          // One row (the configuration's, recorded by the statement before) when a cell is open, none otherwise.
          db
            .select({
              id: sql<number>`null`.as('id'),
              participantCode: sql<string>`${code}`.as('participant_code'),
              displayName: sql<string>`${code}`.as('display_name'),
              origin: sql<'participant' | 'admin_synthetic'>`${input.origin ?? 'participant'}`.as('origin'),
              language: sql<Language>`${language}`.as('language'),
              isActive: sql<boolean>`1`.as('is_active'),
              prolificPid: sql<string | null>`${input.prolific.pid ?? null}`.as('prolific_pid'),
              prolificStudyId: sql<string | null>`${input.prolific.studyId ?? null}`.as('prolific_study_id'),
              prolificSessionId: sql<string | null>`${input.prolific.sessionId ?? null}`.as('prolific_session_id'),
              createdAt: sql<string>`${now}`.as('created_at'),
              updatedAt: sql<string>`${now}`.as('updated_at'),
            })
            .from(studyConfigurations)
            .where(and(eq(studyConfigurations.version, input.studyConfig.version), admitted)),
        ).onConflictDoNothing()
      : db
      .insert(participants)
      .values({
        participantCode: code,
        displayName: code,
        origin: input.origin ?? 'participant',
        language,
        prolificPid: input.prolific.pid ?? null,
        prolificStudyId: input.prolific.studyId ?? null,
        prolificSessionId: input.prolific.sessionId ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing(),
    quota
      ? db
          .insert(datasetAssignments)
          .select(
            db
              .select({
                sessionId: sql<string>`${code}`.as('session_id'),
                datasetType: sql<DatasetType>`${datasetType}`.as('dataset_type'),
                createdBy: sql<'system'>`'system'`.as('created_by'),
                isConfirmed: sql<boolean>`1`.as('is_confirmed'),
                createdAt: sql<string>`${now}`.as('created_at'),
                updatedAt: sql<string>`${now}`.as('updated_at'),
              })
              .from(studyConfigurations)
              .where(and(eq(studyConfigurations.version, input.studyConfig.version), admitted)),
          )
          .onConflictDoUpdate({ target: datasetAssignments.sessionId, set: { isConfirmed: true, updatedAt: now } })
      : db
      .insert(datasetAssignments)
      .values({ sessionId: code, datasetType, createdBy: 'system', isConfirmed: true, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: datasetAssignments.sessionId, set: { isConfirmed: true, updatedAt: now } }),
    // The session row takes the participant's id from the row the first statement wrote.
    db
      .insert(sessions)
      .select(
        db
          // Drizzle wants every column, in table order; NULL id lets SQLite assign it.
          .select({
            id: sql<number>`null`.as('id'),
            sessionId: sql<string>`${code}`.as('session_id'),
            participantId: participants.id,
            datasetType: sql<DatasetType>`${datasetType}`.as('dataset_type'),
            currentPhase: sql<'consent'>`'consent'`.as('current_phase'),
            language: sql<Language>`${language}`.as('language'),
            consentedAt: sql<null>`null`.as('consented_at'),
            preCompletedAt: sql<null>`null`.as('pre_completed_at'),
            mainStartedAt: sql<null>`null`.as('main_started_at'),
            mainCompletedAt: sql<null>`null`.as('main_completed_at'),
            postSurveyCompletedAt: sql<null>`null`.as('post_survey_completed_at'),
            createdAt: sql<string>`${now}`.as('created_at'),
            updatedAt: sql<string>`${now}`.as('updated_at'),
            creationRequestId: sql<string | null>`${input.requestId ?? null}`.as('creation_request_id'),
            aiModelIdentifier: sql<null>`null`.as('ai_model_identifier'),
            studyConfigVersion: sql<string>`${input.studyConfig.version}`.as('study_config_version'),
            screenedOutAt: sql<null>`null`.as('screened_out_at'),
            resumeCount: sql<number>`0`.as('resume_count'),
            completionVerificationCode: sql<null>`null`.as('completion_verification_code'),
            mainStartBypass: sql<null>`null`.as('main_start_bypass'),
            // Under quotas the cell's condition is fixed on admission (the main start keeps it).
            condition: (quota ? sql<string | null>`${openCell(quota)}` : sql<null>`null`).as('condition'),
            debriefServedAt: sql<null>`null`.as('debrief_served_at'),
            bonusCurrency: sql<null>`null`.as('bonus_currency'),
            bonusBaseCents: sql<null>`null`.as('bonus_base_cents'),
            bonusCents: sql<null>`null`.as('bonus_cents'),
            bonusCorrectFinal: sql<null>`null`.as('bonus_correct_final'),
            bonusCorrectPre: sql<null>`null`.as('bonus_correct_pre'),
            bonusComputedAt: sql<null>`null`.as('bonus_computed_at'),
            bonusPaidAt: sql<null>`null`.as('bonus_paid_at'),
          })
          .from(participants)
          .where(and(eq(participants.participantCode, code), admitted)),
      )
      .onConflictDoNothing()
      .returning({ id: sessions.id }),
    // A newcomer refused for want of an open cell keeps nothing: not the dataset assignment the
    // entry page asked for before this call either (an ID with a session keeps its own).
    ...(quota ? [db.delete(datasetAssignments).where(and(eq(datasetAssignments.sessionId, code), sql`not exists (select 1 from sessions s where s.session_id = ${code})`))] : []),
  ]);
  // Two requests for one new ID may race: only the one whose session row went in created it.
  return { inserted: results[3].length > 0 };
}

/** Answer counts and completion flags that resume and progress displays need. */
export async function sessionProgress(db: Db, sessionId: string) {
  const [pre, main, survey, model] = await db.batch([
    db.select({ n: count() }).from(preExperimentResponses).where(eq(preExperimentResponses.sessionId, sessionId)),
    db
      .select({ n: count() })
      .from(mainExperimentResponses)
      .where(and(eq(mainExperimentResponses.sessionId, sessionId), isNotNull(mainExperimentResponses.completedAt))),
    db.select({ n: count() }).from(postSurveys).where(eq(postSurveys.sessionId, sessionId)),
    db.select({ status: userModels.status }).from(userModels).where(eq(userModels.sessionId, sessionId)),
  ]);
  return {
    preCount: pre[0]?.n ?? 0,
    mainCount: main[0]?.n ?? 0,
    postSurveyDone: (survey[0]?.n ?? 0) > 0,
    userModelStatus: model[0]?.status ?? ('not_trained' as const),
  };
}

/** Counts a return to the study; a completed or screened-out session has none to count (session-lifecycle). */
export const countResume = (db: Db, sessionId: string) =>
  db
    .update(sessions)
    .set({ resumeCount: sql`${sessions.resumeCount} + 1` })
    .where(and(eq(sessions.sessionId, sessionId), sessionAccepts('resume_count')));
