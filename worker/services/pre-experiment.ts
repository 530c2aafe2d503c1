/**
 * Stores pre-experiment answers. Each answer is checked against the session's own case set; the
 * case number (position in the set), features and ground truth come from the server's tables.
 * UNIQUE(session, case) makes every retry and the final full send idempotent.
 *
 * Saving is one D1 batch (one round trip, one transaction): insert what is new, mark the phase
 * complete at the 200th answer, and read back what the reply needs. The insert is guarded by the
 * same conditions the reply reports (session consented, every case in its set), so a refused call
 * changes nothing.
 */
import { count, eq, sql } from 'drizzle-orm';
import { bindBuilt, builtOnce } from '../db/built-once';
import type { Db } from '../db/client';
import type { SessionRow } from '../db/queries/sessions';
import { caseSetItems, preExperimentResponses, sessions } from '../db/schema';
import { AppError, conflict, notFound } from '../errors';
import type { PreAnswer } from '../schemas/experiment';
import { studyConfig } from '../schemas/study';
import { ensurePreCaseSet } from './case-sets';

export function requireConsent(session: Pick<SessionRow, 'consentedAt'>): void {
  if (!session.consentedAt) throw conflict('consent_required', 'Consent must be recorded before answers are accepted');
}

export async function countPreResponses(db: Db, sessionId: string): Promise<number> {
  const row = await db.select({ n: count() }).from(preExperimentResponses).where(eq(preExperimentResponses.sessionId, sessionId)).get();
  return row?.n ?? 0;
}

/** The answers as one JSON parameter: any number of them binds one value (D1 allows 100 per statement). */
const answersParam = (answers: readonly PreAnswer[]) =>
  JSON.stringify(
    answers.map((a) => ({
      case_id: a.case_id,
      prediction: a.prediction,
      confidence: a.confidence,
      response_time_ms: a.response_time_ms,
      reasoning: a.reasoning ?? null,
    })),
  );

const saveStatements = builtOnce((db) => {
  const session = sql.placeholder('session');
  const answers = sql.placeholder('answers');
  const now = sql.placeholder('now');
  const inSet = (caseId: ReturnType<typeof sql>) =>
    sql`exists (select 1 from case_set_items i2 where i2.session_id = ${session} and i2.phase = 'pre_experiment' and i2.case_id = ${caseId})`;
  const outsideSet = sql`(select json_group_array(json_extract(b.value, '$.case_id')) from json_each(${answers}) b
                          where not ${inSet(sql`json_extract(b.value, '$.case_id')`)})`;
  return {
    // New answers only; the first of two answers to one case in a call wins, as a retry never overwrites.
    insert: db
      .insert(preExperimentResponses)
      // Columns in the table's order (drizzle lists them all); the id is SQLite's.
      .select(sql`
        select null, s.participant_id, s.session_id, s.dataset_type, i.case_id, i.position + 1,
               json_extract(a.value, '$.prediction'), json_extract(a.value, '$.confidence'),
               json_extract(a.value, '$.response_time_ms'), json_extract(a.value, '$.reasoning'),
               c.ground_truth, c.features, ${now}
        from json_each(${answers}) a
        join sessions s on s.session_id = ${session} and s.consented_at is not null
        join case_set_items i on i.session_id = s.session_id and i.phase = 'pre_experiment'
                             and i.case_id = json_extract(a.value, '$.case_id')
        join cases c on c.case_id = i.case_id
        where not exists (select 1 from json_each(${answers}) b where not ${inSet(sql`json_extract(b.value, '$.case_id')`)})
        order by a.key`)
      .onConflictDoNothing()
      .returning({ id: preExperimentResponses.id }),
    // The 200th answer completes the phase.
    complete: db
      .update(sessions)
      .set({ preCompletedAt: sql`${now}`, currentPhase: 'main_experiment', updatedAt: sql`${now}` })
      .where(
        sql`${sessions.sessionId} = ${session} and ${sessions.preCompletedAt} is null
            and (select count(*) from pre_experiment_responses r where r.session_id = ${session}) >= ${studyConfig.preExperiment.numCases}`,
      ),
    // What the reply needs; no row for an unknown session.
    status: db
      .select({
        consentedAt: sql`${sessions.consentedAt}`.as('consentedAt'),
        total: sql`(select count(*) from pre_experiment_responses r where r.session_id = ${session})`.as('total'),
        setSize: sql`(select count(*) from ${caseSetItems} i where i.session_id = ${session} and i.phase = 'pre_experiment')`.as('setSize'),
        outsideSet: outsideSet.as('outsideSet'),
      })
      .from(sessions)
      .where(eq(sessions.sessionId, session)),
  };
});

/** The status row by the aliases above (a batch through D1 itself returns plain column names). */
type SaveStatus = { consentedAt: string | null; total: number; setSize: number; outsideSet: string | null };

/** One D1 batch: the insert, the phase completion and the reply's read. */
async function saveBatch(db: Db, sessionId: string, answers: string, now: string) {
  const statements = saveStatements(db);
  const values = { session: sessionId, answers, now };
  const [inserted, , status] = await db.$client.batch([
    bindBuilt(db, statements.insert, values),
    bindBuilt(db, statements.complete, values),
    bindBuilt(db, statements.status, values),
  ]);
  return { stored: inserted!.results.length, status: status!.results[0] as SaveStatus | undefined };
}

/**
 * Stores answers not yet stored; returns how many were new and the session's total after.
 * 404 for an unknown session, 409 before consent, 400 when a case is not in the session's set.
 */
export async function storePreAnswers(db: Db, sessionId: string, answers: readonly PreAnswer[], now: string) {
  const json = answersParam(answers);
  let { stored, status } = await saveBatch(db, sessionId, json, now);
  if (!status) throw notFound(`No experiment session for participant ${sessionId}`);
  requireConsent(status);
  if (status.setSize === 0) {
    // The set is normally drawn when the client first asks for it; draw it now if it was not.
    const session = await db.select({ datasetType: sessions.datasetType }).from(sessions).where(eq(sessions.sessionId, sessionId)).get();
    await ensurePreCaseSet(db, sessionId, session!.datasetType, now);
    ({ stored, status } = await saveBatch(db, sessionId, json, now));
  }
  const outside = JSON.parse(status!.outsideSet ?? '[]') as string[];
  if (outside.length > 0) {
    throw new AppError(400, 'case_not_in_set', [{ msg: `case ${outside[0]} is not in this session's pre-experiment set`, loc: ['case_id'] }]);
  }
  return { stored, duplicates: answers.length - stored, total: status!.total };
}
