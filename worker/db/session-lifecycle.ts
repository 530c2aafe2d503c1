/**
 * A session's lifecycle: which participant write each phase allows, in one place every route asks.
 * Phases only move forward (consent → pre-experiment → main experiment → post-survey → completed,
 * or screened out), and a completed or screened-out session accepts no write at all (withdrawal is
 * a right, not a write, and stays open). Each rule is derived twice from one table: as a check of a
 * session row already read (for the refusal's 409 and its words) and as a SQL condition on the
 * `sessions` row, so a write can test it in the same statement that writes (a check read before a
 * write could be stale by the time the write runs).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { sessions } from './schema';
import { conflict } from '../errors';

/** What the rules read of a session. */
export type LifecycleRow = Pick<typeof sessions.$inferSelect, 'consentedAt' | 'mainStartedAt' | 'mainCompletedAt' | 'postSurveyCompletedAt' | 'screenedOutAt'>;

/** Each timestamp the rules read, by its column. */
const COLUMNS = {
  consentedAt: 'consented_at',
  mainStartedAt: 'main_started_at',
  mainCompletedAt: 'main_completed_at',
  postSurveyCompletedAt: 'post_survey_completed_at',
  screenedOutAt: 'screened_out_at',
} as const satisfies Record<keyof LifecycleRow, string>;

/**
 * One condition a write may need: that a timestamp of the session is `set` or not, and the 409
 * when it is not so. The check of a read row and the SQL are both derived from it.
 */
type Requirement = { field: keyof LifecycleRow; set: boolean; code: string; detail: string };

const REQUIREMENTS = {
  notCompleted: { field: 'postSurveyCompletedAt', set: false, code: 'study_completed', detail: 'This participation is complete; nothing more can be recorded for it' },
  notScreenedOut: { field: 'screenedOutAt', set: false, code: 'screened_out', detail: 'This participant was screened out of the study after the understanding test' },
  consented: { field: 'consentedAt', set: true, code: 'consent_required', detail: 'Consent must be recorded before answers are accepted' },
  beforeMain: { field: 'mainStartedAt', set: false, code: 'phase_closed', detail: 'The main experiment has started; the pre-experiment and the participant model are closed' },
  mainCompleted: { field: 'mainCompletedAt', set: true, code: 'main_experiment_incomplete', detail: 'The post-survey opens once the main experiment is complete' },
  mainStarted: { field: 'mainStartedAt', set: true, code: 'main_experiment_not_started', detail: 'Nothing of the AI is shown before the main experiment has started' },
} as const satisfies Record<string, Requirement>;

const holds = (r: Requirement, s: LifecycleRow) => Boolean(s[r.field]) === r.set;
const column = (alias: string, field: keyof LifecycleRow) => sql.raw(`${alias}.${COLUMNS[field]}`);

type RequirementName = keyof typeof REQUIREMENTS;

/**
 * Every participant write and what it needs, checked in this order (the first that fails is the
 * refusal). A repeat of something already stored is still refused once the session is closed.
 */
const WRITES = {
  /** Consent (a resend for a consented session changes nothing). */
  consent: ['notCompleted', 'notScreenedOut'],
  /** A new pre-experiment answer: only before the main experiment starts. */
  pre_answer: ['notCompleted', 'notScreenedOut', 'consented', 'beforeMain'],
  /** Answers already stored, sent again (their answer was lost): a duplicate, not a write, while the session is open. */
  pre_answer_resend: ['notCompleted', 'notScreenedOut', 'consented'],
  /** Fitting the participant's own model again: only before the main experiment explains with it. */
  user_model: ['notCompleted', 'notScreenedOut', 'consented', 'beforeMain'],
  main_start: ['notCompleted', 'notScreenedOut', 'consented'],
  /** Serving anything of the AI is recorded, so it is a write too; the AI exists for a participant only once their main experiment started. */
  explanation: ['notCompleted', 'notScreenedOut', 'consented', 'mainStarted'],
  main_answer: ['notCompleted', 'notScreenedOut', 'consented'],
  understanding_attempt: ['notCompleted', 'notScreenedOut', 'consented'],
  /** A stored case's outcome feedback: giving it is recorded, as is how long it was viewed (the 50th case's too, before the post-survey). */
  outcome_feedback: ['notCompleted', 'notScreenedOut', 'consented'],
  /** The post-survey; sent again once stored, it is answered as a duplicate (the survey's own rule). */
  post_survey: ['notScreenedOut', 'consented', 'mainCompleted'],
  /** A return to the study counts only while there is something to return to. */
  resume_count: ['notCompleted', 'notScreenedOut'],
} as const satisfies Record<string, readonly RequirementName[]>;

export type SessionWrite = keyof typeof WRITES;

/** Throws the 409 of the first requirement of `write` the session does not meet. */
export function requireWriteAllowed(session: LifecycleRow, write: SessionWrite): void {
  const unmet = WRITES[write].map((name): Requirement => REQUIREMENTS[name]).find((r) => !holds(r, session));
  if (unmet) throw conflict(unmet.code, unmet.detail);
}

/** Whether the session accepts `write` now. */
export const writeAllowed = (session: LifecycleRow, write: SessionWrite) => WRITES[write].every((name) => holds(REQUIREMENTS[name], session));

/** The same rule as a SQL condition on the `sessions` row named `alias`, for a write to test in its own statement. */
export const sessionAccepts = (write: SessionWrite, alias = 'sessions'): SQL =>
  sql.join(
    WRITES[write].map((name) => {
      const r: Requirement = REQUIREMENTS[name];
      return sql`(${column(alias, r.field)} ${sql.raw(r.set ? 'is not null' : 'is null')})`;
    }),
    sql` and `,
  );

/** The columns the rules read, to select beside a write's own reply (aliases match `LifecycleRow`). */
export const lifecycleColumns = (alias: string) =>
  Object.fromEntries((Object.keys(COLUMNS) as (keyof LifecycleRow)[]).map((field) => [field, sql<string | null>`${column(alias, field)}`.as(field)])) as Record<
    keyof LifecycleRow,
    SQL.Aliased<string | null>
  >;
