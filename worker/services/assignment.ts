/**
 * Dataset assignment. Balanced assignment picks the enabled dataset with the fewest assignments
 * (in-progress ones included) and stores it in the same SQL statement, so concurrent newcomers
 * cannot both take the same "least used" dataset: counts stay within one of each other.
 */
import { count, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { findAssignment } from '../db/queries/sessions';
import { datasetAssignments, sessions } from '../db/schema';
import { conflict } from '../errors';
import type { z } from 'zod';
import type { datasetCreatedBySchema } from '../schemas/experiment';
import { enabledDatasets, type DatasetType } from '../schemas/study';
import { admissibleDatasets, requireAdmissionOfNewcomer } from './recruitment';
import { findSession } from '../db/queries/sessions';

/**
 * An assignment counts toward balance once its participant has a session, or while it is fresh
 * (the entry page opens the session right after assigning): a row nobody ever took up, say from a
 * script calling the assignment route alone, stops counting after this long and cannot skew the
 * balance.
 */
const PENDING_MS = 5 * 60 * 1000;
const counted = (now: string) => {
  const cutoff = new Date(Date.parse(now) - PENDING_MS).toISOString();
  return sql`(EXISTS (SELECT 1 FROM sessions s WHERE s.session_id = ${datasetAssignments.sessionId}) OR ${datasetAssignments.createdAt} > ${cutoff})`;
};

export async function assignBalanced(db: Db, sessionId: string, now: string) {
  // A newcomer is balanced over the datasets that can still admit them (all enabled ones without quotas).
  const existing = await findSession(db, sessionId);
  const enabled = JSON.stringify(existing ? enabledDatasets() : await admissibleDatasets(db, enabledDatasets(), now));
  // SQLite needs the WHERE in an INSERT … SELECT … ON CONFLICT to parse the upsert.
  await db.run(sql`
    INSERT INTO dataset_assignments (session_id, dataset_type, created_by, is_confirmed, created_at, updated_at)
    SELECT ${sessionId}, d.value, 'system', 0, ${now}, ${now}
    FROM json_each(${enabled}) AS d
    LEFT JOIN (SELECT dataset_type, count(*) AS n FROM dataset_assignments WHERE ${counted(now)} GROUP BY dataset_type) AS c ON c.dataset_type = d.value
    WHERE true
    ORDER BY coalesce(c.n, 0) ASC, d.key ASC
    LIMIT 1
    ON CONFLICT (session_id) DO NOTHING`);
  return (await findAssignment(db, sessionId))!;
}

/** The dataset balanced assignment would give now (same tie order as `assignBalanced`), without storing anything. */
export const suggestBalanced = (stats: Awaited<ReturnType<typeof assignmentStatistics>>): DatasetType =>
  enabledDatasets().sort((a, b) => stats.datasets[a]!.assigned - stats.datasets[b]!.assigned)[0]!;

/**
 * Records a dataset the client chose (URL parameter or selection). An existing assignment is
 * never overwritten: the same dataset is a no-op, another one is a conflict.
 */
export async function assignExplicit(
  db: Db,
  input: { sessionId: string; datasetType: DatasetType; createdBy: z.infer<typeof datasetCreatedBySchema>; now: string },
) {
  await requireAdmissionOfNewcomer(db, input.sessionId, input.datasetType, input.now);
  await db
    .insert(datasetAssignments)
    .values({
      sessionId: input.sessionId,
      datasetType: input.datasetType,
      createdBy: input.createdBy,
      isConfirmed: false,
      createdAt: input.now,
      updatedAt: input.now,
    })
    .onConflictDoNothing();
  const stored = (await findAssignment(db, input.sessionId))!;
  if (stored.datasetType !== input.datasetType) {
    throw conflict('dataset_mismatch', `Participant ${input.sessionId} is already assigned to ${stored.datasetType}`);
  }
  return stored;
}

export async function assignmentStatistics(db: Db, now = new Date().toISOString()) {
  const [assigned, completed, started] = await db.batch([
    db
      .select({ datasetType: datasetAssignments.datasetType, n: count() })
      .from(datasetAssignments)
      .where(counted(now))
      .groupBy(datasetAssignments.datasetType),
    db
      .select({ datasetType: sessions.datasetType, n: count() })
      .from(sessions)
      .where(isNotNull(sessions.postSurveyCompletedAt))
      .groupBy(sessions.datasetType),
    db
      .select({ datasetType: sessions.datasetType, n: count() })
      .from(sessions)
      .where(isNull(sessions.postSurveyCompletedAt))
      .groupBy(sessions.datasetType),
  ]);
  const of = (rows: { datasetType: DatasetType; n: number }[], d: DatasetType) => rows.find((r) => r.datasetType === d)?.n ?? 0;
  const datasets = Object.fromEntries(
    enabledDatasets().map((d) => [d, { assigned: of(assigned, d), in_progress: of(started, d), completed: of(completed, d) }]),
  );
  return { total: assigned.reduce((sum, r) => sum + r.n, 0), datasets };
}
