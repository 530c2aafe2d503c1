/**
 * Reading a trial's record where its parts are kept once: the case an answer showed is its row in
 * `cases` (never rewritten) unless an older answer kept its own differing copy, and a main trial's
 * bars are its serve's unless it was stored before serves were recorded.
 */
import { sql } from 'drizzle-orm';
import { cases, type mainExperimentResponses, type preExperimentResponses } from './schema';

/** The case an answer showed (needs `cases` joined on the answer's `case_id`). */
export const caseShown = (t: typeof preExperimentResponses | typeof mainExperimentResponses) =>
  sql<Record<string, unknown>>`coalesce(${t.caseData}, ${cases.features})`.mapWith(t.caseData);

type Bars = unknown[] | null;

/** A trial's bars: its own where it kept them, else its serve's. */
export const trialBars = (own: Bars, served: Bars | undefined): Bars => own ?? served ?? null;
