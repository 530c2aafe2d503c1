/**
 * A session's lifecycle: which participant write each phase allows, in one place every route asks.
 * Phases only move forward (consent → pre-experiment → main experiment → post-survey → completed,
 * or screened out), and a completed or screened-out session accepts no write at all (withdrawal is
 * a right, not a write, and stays open). Each rule is given twice from one table: as a check of a
 * session row already read (for the refusal's 409 and its words) and as a SQL condition on the
 * `sessions` row, so a write can test it in the same statement that writes (a check read before a
 * write could be stale by the time the write runs).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { SessionRow } from '../db/queries/sessions';
import { conflict, type AppError } from '../errors';

/** What the rules read of a session. */
export type LifecycleRow = Pick<SessionRow, 'consentedAt' | 'mainStartedAt' | 'mainCompletedAt' | 'postSurveyCompletedAt' | 'screenedOutAt'>;

/** One condition a write may need: its SQL over a `sessions` row (by alias), its check of a read row, and the refusal. */
type Requirement = { sql: (alias: string) => SQL; holds: (s: LifecycleRow) => boolean; refusal: () => AppError };

const column = (alias: string, name: string) => sql.raw(`${alias}.${name}`);

const REQUIREMENTS = {
  notCompleted: {
    sql: (a) => sql`${column(a, 'post_survey_completed_at')} is null`,
    holds: (s) => !s.postSurveyCompletedAt,
    refusal: () => conflict('study_completed', 'This participation is complete; nothing more can be recorded for it'),
  },
  notScreenedOut: {
    sql: (a) => sql`${column(a, 'screened_out_at')} is null`,
    holds: (s) => !s.screenedOutAt,
    refusal: () => conflict('screened_out', 'This participant was screened out of the study after the understanding test'),
  },
  consented: {
    sql: (a) => sql`${column(a, 'consented_at')} is not null`,
    holds: (s) => Boolean(s.consentedAt),
    refusal: () => conflict('consent_required', 'Consent must be recorded before answers are accepted'),
  },
  beforeMain: {
    sql: (a) => sql`${column(a, 'main_started_at')} is null`,
    holds: (s) => !s.mainStartedAt,
    refusal: () => conflict('phase_closed', 'The main experiment has started; the pre-experiment and the participant model are closed'),
  },
  mainCompleted: {
    sql: (a) => sql`${column(a, 'main_completed_at')} is not null`,
    holds: (s) => Boolean(s.mainCompletedAt),
    refusal: () => conflict('main_experiment_incomplete', 'The post-survey opens once the main experiment is complete'),
  },
} satisfies Record<string, Requirement>;

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
  /** Serving an explanation is recorded, so it is a write too. */
  explanation: ['notCompleted', 'notScreenedOut', 'consented'],
  main_answer: ['notCompleted', 'notScreenedOut', 'consented'],
  understanding_attempt: ['notCompleted', 'notScreenedOut', 'consented'],
  /** The post-survey; sent again once stored, it is answered as a duplicate (the survey's own rule). */
  post_survey: ['notScreenedOut', 'consented', 'mainCompleted'],
  /** A return to the study counts only while there is something to return to. */
  resume_count: ['notCompleted', 'notScreenedOut'],
} as const satisfies Record<string, readonly RequirementName[]>;

export type SessionWrite = keyof typeof WRITES;

/** Throws the 409 of the first requirement of `write` the session does not meet. */
export function requireWriteAllowed(session: LifecycleRow, write: SessionWrite): void {
  for (const name of WRITES[write]) {
    const requirement: Requirement = REQUIREMENTS[name];
    if (!requirement.holds(session)) throw requirement.refusal();
  }
}

/** Whether the session accepts `write` now. */
export const writeAllowed = (session: LifecycleRow, write: SessionWrite) => WRITES[write].every((name) => (REQUIREMENTS[name] as Requirement).holds(session));

/** The same rule as a SQL condition on the `sessions` row named `alias`, for a write to test in its own statement. */
export const sessionAccepts = (write: SessionWrite, alias = 'sessions'): SQL =>
  sql.join(
    WRITES[write].map((name) => sql`(${(REQUIREMENTS[name] as Requirement).sql(alias)})`),
    sql` and `,
  );

/** The columns the rules read, to select beside a write's own reply (aliases match `LifecycleRow`). */
export const lifecycleColumns = (alias: string) => ({
  consentedAt: sql<string | null>`${column(alias, 'consented_at')}`.as('consentedAt'),
  mainStartedAt: sql<string | null>`${column(alias, 'main_started_at')}`.as('mainStartedAt'),
  mainCompletedAt: sql<string | null>`${column(alias, 'main_completed_at')}`.as('mainCompletedAt'),
  postSurveyCompletedAt: sql<string | null>`${column(alias, 'post_survey_completed_at')}`.as('postSurveyCompletedAt'),
  screenedOutAt: sql<string | null>`${column(alias, 'screened_out_at')}`.as('screenedOutAt'),
});
