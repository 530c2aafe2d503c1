/**
 * Whether the study admits newcomers (open, paused, closed), as the dashboard last set it. Every
 * copy of the Worker reads the stored state, keeping it at most RECRUITMENT_FRESH_MS, so a pause
 * takes effect everywhere within seconds. A newcomer to a study that is not open is refused
 * before anything is stored for them.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { findSession, openCell, type Quota } from '../db/queries/sessions';
import { recruitment, type RECRUITMENT_STATUSES } from '../db/schema';
import { AppError } from '../errors';
import { studyConfig, type DatasetType, type RecruitmentTargets } from '../schemas/study';

export type RecruitmentStatus = (typeof RECRUITMENT_STATUSES)[number];
export type RecruitmentState = {
  status: RecruitmentStatus;
  inProgressMayFinish: boolean;
  changedAt: string | null;
  /** The dashboard's targets; null: the study configuration's. */
  targets: RecruitmentTargets | null;
};

/** How long a copy of the Worker keeps the state it read: the most a change waits to reach it. */
export const RECRUITMENT_FRESH_MS = 5000;

const OPEN: RecruitmentState = { status: 'open', inProgressMayFinish: true, changedAt: null, targets: null };
let kept: { readAt: number; state: RecruitmentState } | null = null;

export async function recruitmentState(db: Db): Promise<RecruitmentState> {
  if (kept && Date.now() - kept.readAt < RECRUITMENT_FRESH_MS) return kept.state;
  const row = await db.select().from(recruitment).where(eq(recruitment.id, 1)).get();
  const state = row ? { status: row.status, inProgressMayFinish: row.inProgressMayFinish, changedAt: row.changedAt, targets: row.targets ?? null } : OPEN;
  kept = { readAt: Date.now(), state };
  return state;
}

/** Stores a new state (status, and targets unless left out: then the stored ones stay). */
export async function setRecruitment(
  db: Db,
  input: { status: RecruitmentStatus; inProgressMayFinish: boolean; targets?: RecruitmentTargets | null; now: string },
): Promise<RecruitmentState> {
  const current = await recruitmentState(db);
  const targets = input.targets === undefined ? current.targets : input.targets;
  const values = { id: 1, status: input.status, inProgressMayFinish: input.inProgressMayFinish, changedAt: input.now, targets };
  await db.insert(recruitment).values(values).onConflictDoUpdate({ target: recruitment.id, set: values });
  const state = { status: input.status, inProgressMayFinish: input.inProgressMayFinish, changedAt: input.now, targets };
  kept = { readAt: Date.now(), state };
  return state;
}

/** The targets in force: the dashboard's, else the study configuration's. */
export const targetsInForce = (state: RecruitmentState): RecruitmentTargets => {
  const { overallTarget, cellTarget, cellTargets } = studyConfig.recruitment;
  return state.targets ?? { overallTarget, cellTarget, cellTargets };
};

const hasQuota = (t: RecruitmentTargets) => t.overallTarget !== null || t.cellTarget !== null || Object.keys(t.cellTargets).length > 0;

/** A session whose last answer is older than this has abandoned the study (its place went back). */
export const abandonCutoff = (now: string) => new Date(Date.parse(now) - studyConfig.recruitment.abandonAfterMinutes * 60_000).toISOString();

/** What admitting a newcomer into `dataset` under the targets in force needs; null when no target is set. */
export function quotaFor(state: RecruitmentState, dataset: DatasetType, now: string): Quota | null {
  const targets = targetsInForce(state);
  if (!hasQuota(targets)) return null;
  const conditions = studyConfig.conditions.map((c) => c.name);
  return {
    dataset,
    conditions,
    cellTargets: Object.fromEntries(conditions.map((c) => [c, targets.cellTargets[`${dataset}:${c}`] ?? targets.cellTarget])),
    overallTarget: targets.overallTarget,
    cutoff: abandonCutoff(now),
  };
}

/** Every cell of the newcomer's dataset (and so the study for them) is at its target. */
export const studyFull = (dataset?: DatasetType) =>
  new AppError(409, 'study_full', `The study has all the participants it needs${dataset ? ` for ${dataset}` : ''}: it admits no new participants`);

/** Whether a newcomer could be admitted into `dataset` now (a read; the admission itself decides again, atomically). */
export async function hasOpenCell(db: Db, state: RecruitmentState, dataset: DatasetType, now: string): Promise<boolean> {
  const quota = quotaFor(state, dataset, now);
  if (!quota) return true;
  const row = await db.get<{ open: number }>(sql`select exists ${openCell(quota)} as open`);
  return Boolean(row?.open);
}

/** The enabled datasets with an open cell (all of them without quotas). */
export async function datasetsWithRoom(db: Db, state: RecruitmentState, enabled: DatasetType[], now: string): Promise<DatasetType[]> {
  const open = await Promise.all(enabled.map(async (d) => ((await hasOpenCell(db, state, d, now)) ? d : null)));
  return open.filter((d): d is DatasetType => d !== null);
}

/**
 * The datasets a newcomer may be assigned now: the enabled ones with an open cell. Refuses (409)
 * when the study is paused or closed, or when every dataset's cells are full.
 */
export async function admissibleDatasets(db: Db, enabled: DatasetType[], now: string): Promise<DatasetType[]> {
  const state = await requireAdmission(db);
  const open = await datasetsWithRoom(db, state, enabled, now);
  if (open.length === 0) throw studyFull();
  return open;
}

/** Whether a participant already in the study may go on writing answers. */
export const inProgressMayContinue = (state: RecruitmentState) => state.status !== 'closed' || state.inProgressMayFinish;

const REFUSALS: Record<Exclude<RecruitmentStatus, 'open'>, string> = {
  paused: 'The study is paused: it admits no new participants at the moment',
  closed: 'The study is closed: it admits no new participants',
};

/** Refuses a newcomer (409 `study_paused` or `study_closed`) unless the study is open; the state read. */
export async function requireAdmission(db: Db): Promise<RecruitmentState> {
  const state = await recruitmentState(db);
  if (state.status !== 'open') throw new AppError(409, `study_${state.status}`, REFUSALS[state.status]);
  return state;
}

/**
 * Refuses a call that would start someone new (no session with this ID yet) unless the study is
 * open and, under quotas, `dataset` (or, without one, some dataset) has an open cell.
 */
export async function requireAdmissionOfNewcomer(db: Db, sessionId: string, dataset: DatasetType | null, now: string): Promise<void> {
  const state = await recruitmentState(db);
  const quotas = hasQuota(targetsInForce(state));
  if (state.status === 'open' && !quotas) return;
  if (await findSession(db, sessionId)) return;
  await requireAdmission(db);
  if (dataset && !(await hasOpenCell(db, state, dataset, now))) throw studyFull(dataset);
}
