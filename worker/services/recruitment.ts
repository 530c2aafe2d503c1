/**
 * Whether the study admits newcomers (open, paused, closed), as the dashboard last set it. Every
 * copy of the Worker reads the stored state, keeping it at most RECRUITMENT_FRESH_MS, so a pause
 * takes effect everywhere within seconds. A newcomer to a study that is not open is refused
 * before anything is stored for them.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { findSession } from '../db/queries/sessions';
import { recruitment, type RECRUITMENT_STATUSES } from '../db/schema';
import { AppError } from '../errors';

export type RecruitmentStatus = (typeof RECRUITMENT_STATUSES)[number];
export type RecruitmentState = { status: RecruitmentStatus; inProgressMayFinish: boolean; changedAt: string | null };

/** How long a copy of the Worker keeps the state it read: the most a change waits to reach it. */
export const RECRUITMENT_FRESH_MS = 5000;

const OPEN: RecruitmentState = { status: 'open', inProgressMayFinish: true, changedAt: null };
let kept: { readAt: number; state: RecruitmentState } | null = null;

export async function recruitmentState(db: Db): Promise<RecruitmentState> {
  if (kept && Date.now() - kept.readAt < RECRUITMENT_FRESH_MS) return kept.state;
  const row = await db.select().from(recruitment).where(eq(recruitment.id, 1)).get();
  const state = row ? { status: row.status, inProgressMayFinish: row.inProgressMayFinish, changedAt: row.changedAt } : OPEN;
  kept = { readAt: Date.now(), state };
  return state;
}

export async function setRecruitment(db: Db, input: { status: RecruitmentStatus; inProgressMayFinish: boolean; now: string }): Promise<RecruitmentState> {
  const values = { id: 1, status: input.status, inProgressMayFinish: input.inProgressMayFinish, changedAt: input.now };
  await db.insert(recruitment).values(values).onConflictDoUpdate({ target: recruitment.id, set: values });
  const state = { status: input.status, inProgressMayFinish: input.inProgressMayFinish, changedAt: input.now };
  kept = { readAt: Date.now(), state };
  return state;
}

/** Whether a participant already in the study may go on writing answers. */
export const inProgressMayContinue = (state: RecruitmentState) => state.status !== 'closed' || state.inProgressMayFinish;

const REFUSALS: Record<Exclude<RecruitmentStatus, 'open'>, string> = {
  paused: 'The study is paused: it admits no new participants at the moment',
  closed: 'The study is closed: it admits no new participants',
};

/** Refuses a newcomer (409 `study_paused` or `study_closed`) unless the study is open. */
export async function requireAdmission(db: Db): Promise<void> {
  const { status } = await recruitmentState(db);
  if (status !== 'open') throw new AppError(409, `study_${status}`, REFUSALS[status]);
}

/** Refuses a call that would start someone new (no session with this ID yet) unless the study is open. */
export async function requireAdmissionOfNewcomer(db: Db, sessionId: string): Promise<void> {
  if ((await recruitmentState(db)).status === 'open') return;
  if (!(await findSession(db, sessionId))) await requireAdmission(db);
}
