/**
 * Stores pre-experiment answers. Each answer is checked against the session's own case set; the
 * case number (position in the set) and ground truth come from the server's tables, and the case
 * shown is its row in `cases`.
 * UNIQUE(session, case) makes every retry and the final full send idempotent.
 *
 * Saving is one D1 batch (one round trip, one transaction): insert what is new, mark the phase
 * complete at the 200th answer, and read back what the reply needs. The insert is guarded by the
 * same conditions the reply reports (session consented, every case in its set), so a refused call
 * changes nothing.
 */
import { and, count, eq, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { batchBuilt, builtOnce } from '../db/built-once';
import type { Db } from '../db/client';
import { cases, caseSetItems, preExperimentResponses, sessions, STORED_CASE_PHASE } from '../db/schema';
import { AppError, notFound } from '../errors';
import type { PreAnswer } from '../schemas/experiment';
import { studyConfig, type DatasetType } from '../schemas/study';
import { ensurePreCaseSet } from './case-sets';
import { lifecycleColumns, requireWriteAllowed, sessionAccepts, writeAllowed, type LifecycleRow } from '../db/session-lifecycle';

export async function countPreResponses(db: Db, sessionId: string): Promise<number> {
  const row = await db.select({ n: count() }).from(preExperimentResponses).where(eq(preExperimentResponses.sessionId, sessionId)).get();
  return row?.n ?? 0;
}

/**
 * The statements' values. One answer (the per-case send, nearly every call) binds its fields as
 * they are; several (the final full send) bind one JSON parameter however many there are (D1
 * allows 100 per statement). Reading one answer back out of JSON cost local D1 a third of the save.
 */
const ANSWER_FIELDS = ['caseId', 'prediction', 'confidence', 'responseTimeMs', 'reasoning'] as const;
type AnswerField = (typeof ANSWER_FIELDS)[number];
const answerValues = (a: PreAnswer): Record<AnswerField, string | number | null> => ({
  caseId: a.case_id,
  prediction: a.prediction,
  confidence: a.confidence,
  responseTimeMs: a.response_time_ms,
  reasoning: a.reasoning ?? null,
});

const saveStatements = builtOnce((db) => {
  const session = sql.placeholder('session');
  const now = sql.placeholder('now');
  const answers = sql.placeholder('answers');
  // Each field of the answer: bound under its own name, or read from the JSON array's element `a`.
  const oneAnswer = Object.fromEntries(ANSWER_FIELDS.map((f) => [f, sql.placeholder(f)])) as Record<AnswerField, Placeholder>;
  const arrayAnswer = Object.fromEntries(ANSWER_FIELDS.map((f) => [f, sql.raw(`json_extract(a.value, '$.${f}')`)])) as Record<AnswerField, SQL>;
  // The pre-experiment set's phase as stored, written into the SQL (a constant, not a bound value).
  const preSet = sql.raw(`'${STORED_CASE_PHASE.pre_experiment}'`);
  const inSet = (caseId: SQL | Placeholder) =>
    sql`exists (select 1 from case_set_items i2 where i2.session_id = ${session} and i2.phase = ${preSet} and i2.case_id = ${caseId})`;
  // Inserts new answers only, each with its case's number and truth from the server's tables (the
  // case shown is `case_id` in `cases`, never rewritten: no copy); a retry never overwrites. Columns in the table's order (drizzle lists them all); the id is SQLite's.
  const insert = (rows: SQL) => db.insert(preExperimentResponses).select(rows).onConflictDoNothing().returning({ id: preExperimentResponses.id });
  const answerRows = (answer: Record<AnswerField, SQL | Placeholder>, joinAnswers: SQL, andWhere: SQL) => sql`
    select null, s.participant_id, s.session_id, s.dataset_type, i.case_id, i.position + 1,
           ${answer.prediction}, ${answer.confidence}, ${answer.responseTimeMs}, ${answer.reasoning},
           c.ground_truth, null, ${now}
    from sessions s ${joinAnswers}
    join case_set_items i on i.session_id = s.session_id and i.phase = ${preSet} and i.case_id = ${answer.caseId}
    join cases c on c.case_id = i.case_id
    where s.session_id = ${session} and ${sessionAccepts('pre_answer', 's')} ${andWhere}`;
  // What the reply needs; no row for an unknown session.
  const status = (outsideSet: SQL, alreadyStored: SQL) =>
    db
      .select({
        ...lifecycleColumns('sessions'),
        alreadyStored: alreadyStored.as('alreadyStored'),
        total: sql`(select count(*) from pre_experiment_responses r where r.session_id = ${session})`.as('total'),
        setSize: sql`(select count(*) from ${caseSetItems} i where i.session_id = ${session} and i.phase = ${preSet})`.as('setSize'),
        outsideSet: outsideSet.as('outsideSet'),
      })
      .from(sessions)
      .where(eq(sessions.sessionId, session));
  return {
    // One answer: the joins store it only when its case is in the session's set.
    insertOne: insert(answerRows(oneAnswer, sql``, sql``)),
    statusOne: status(
      sql`case when ${inSet(oneAnswer.caseId)} then null else json_array(${oneAnswer.caseId}) end`,
      sql`(select count(*) from pre_experiment_responses r where r.session_id = ${session} and r.case_id = ${oneAnswer.caseId})`,
    ),
    // Several: none is stored unless every case is in the set; the first of two answers to one case wins.
    insertMany: insert(
      answerRows(
        arrayAnswer,
        sql`join json_each(${answers}) a`,
        sql`and not exists (select 1 from json_each(${answers}) b where not ${inSet(sql`json_extract(b.value, '$.caseId')`)}) order by a.key`,
      ),
    ),
    statusMany: status(
      sql`(select json_group_array(json_extract(b.value, '$.caseId')) from json_each(${answers}) b where not ${inSet(sql`json_extract(b.value, '$.caseId')`)})`,
      sql`(select count(distinct r.case_id) from pre_experiment_responses r join json_each(${answers}) b on r.case_id = json_extract(b.value, '$.caseId') where r.session_id = ${session})`,
    ),
    // The 200th answer completes the phase.
    complete: db
      .update(sessions)
      // Phases only move forward: a session already past the pre-experiment keeps its phase.
      .set({
        preCompletedAt: sql`${now}`,
        currentPhase: sql`case when ${sessions.currentPhase} in ('consent', 'pre_experiment') then 'main_experiment' else ${sessions.currentPhase} end`,
        updatedAt: sql`${now}`,
      })
      .where(
        sql`${sessions.sessionId} = ${session} and ${sessions.preCompletedAt} is null
            and (select count(*) from pre_experiment_responses r where r.session_id = ${session}) >= ${studyConfig.preExperiment.numCases}`,
      ),
  };
});

/** The status row by the aliases above (a batch through D1 itself returns plain column names). */
type SaveStatus = LifecycleRow & { alreadyStored: number; total: number; setSize: number; outsideSet: string | null };

/** One D1 batch: the insert, the phase completion and the reply's read. */
async function saveBatch(db: Db, sessionId: string, answers: readonly PreAnswer[], now: string) {
  const statements = saveStatements(db);
  const [insert, status, values] =
    answers.length === 1
      ? [statements.insertOne, statements.statusOne, { session: sessionId, now, ...answerValues(answers[0]!) }]
      : [statements.insertMany, statements.statusMany, { session: sessionId, now, answers: JSON.stringify(answers.map(answerValues)) }];
  const [inserted, , statusRow] = await batchBuilt(db, [insert, statements.complete, status], values);
  return { stored: inserted!.results.length, status: statusRow!.results[0] as SaveStatus | undefined };
}

/**
 * Stores answers not yet stored; returns how many were new and the session's total after.
 * 404 for an unknown session, 409 when the session does not take pre-experiment answers (before
 * consent, after the main experiment started, once completed or screened out; a resend of answers
 * already stored is still a duplicate until the session is closed), 400 when a case is not in the
 * session's set. A refused call stores nothing: not even the set, which is drawn only for answers
 * that all belong to it.
 */
export async function storePreAnswers(db: Db, sessionId: string, answers: readonly PreAnswer[], now: string) {
  let { stored, status } = await saveBatch(db, sessionId, answers, now);
  if (!status) throw notFound(`No experiment session for participant ${sessionId}`);
  if (status.setSize === 0) {
    // The set is normally drawn when the client first asks for it; draw it now if it was not,
    // once the answers are known to be the session's to give and their cases the set's own.
    requireWriteAllowed(status, 'pre_answer');
    const session = await db.select({ datasetType: sessions.datasetType }).from(sessions).where(eq(sessions.sessionId, sessionId)).get();
    const outside = await casesOutsidePool(db, session!.datasetType, answers.map((a) => a.case_id));
    if (outside.length > 0) throw notInSet(outside[0]!);
    await ensurePreCaseSet(db, sessionId, session!.datasetType);
    ({ stored, status } = await saveBatch(db, sessionId, answers, now));
  }
  const outside = JSON.parse(status!.outsideSet ?? '[]') as string[];
  if (stored === 0 && !writeAllowed(status!, 'pre_answer')) {
    // Closed to new answers; answers already stored are a resend, until the session is closed.
    const resend = status!.alreadyStored === new Set(answers.map((a) => a.case_id)).size;
    requireWriteAllowed(status!, resend ? 'pre_answer_resend' : 'pre_answer');
  }
  if (outside.length > 0) throw notInSet(outside[0]!);
  return { stored, duplicates: answers.length - stored, total: status!.total };
}

const notInSet = (caseId: string) => new AppError(400, 'case_not_in_set', [{ msg: `case ${caseId} is not in this session's pre-experiment set`, loc: ['case_id'] }]);

/** The given case IDs that are not in the dataset's pre-experiment pool (the set is the whole pool, reordered). */
async function casesOutsidePool(db: Db, datasetType: DatasetType, caseIds: readonly string[]) {
  const found = await db
    .select({ caseId: cases.caseId })
    .from(cases)
    .where(
      and(
        eq(cases.datasetType, datasetType),
        eq(cases.pool, 'pre_experiment'),
        sql`${cases.caseId} in (select value from json_each(${JSON.stringify(caseIds)}))`,
      ),
    );
  const inPool = new Set(found.map((r) => r.caseId));
  return caseIds.filter((id) => !inPool.has(id));
}
