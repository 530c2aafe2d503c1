/**
 * Reading a trial's record where its parts are kept once: the case an answer showed is its row in
 * `cases` (never rewritten) unless an older answer kept its own differing copy, and a main trial's
 * bars are its serve's unless it was stored before serves were recorded.
 */
import { eq, sql } from 'drizzle-orm';
import { cases, mainExperimentResponses, servedExplanations, type preExperimentResponses } from './schema';

/** The case an answer showed (needs `cases` joined on the answer's `case_id`). */
export const caseShown = (t: typeof preExperimentResponses | typeof mainExperimentResponses) =>
  sql<Record<string, unknown>>`coalesce(${t.caseData}, ${cases.features})`.mapWith(t.caseData);

type Bars = unknown[] | null;
type ThreeBars = { ai: Bars; user: Bars; shown: Bars };

/** A trial's serve, to left-join beside it: `servedBars` then selects the serve's bars. */
export const trialServe = eq(servedExplanations.id, mainExperimentResponses.servedExplanationId);
export const servedBars = { ai: servedExplanations.aiFeatureImportance, user: servedExplanations.userFeatureImportance, shown: servedExplanations.shownFeatureImportance };

/** A trial's three lists of bars: its own where it kept them, else its serve's (null without a serve). */
export const trialBars = (
  own: Pick<typeof mainExperimentResponses.$inferSelect, 'aiFeatureImportance' | 'userFeatureImportance' | 'shownFeatureImportance'>,
  served: ThreeBars | null | undefined,
): ThreeBars => ({
  ai: own.aiFeatureImportance ?? served?.ai ?? null,
  user: own.userFeatureImportance ?? served?.user ?? null,
  shown: own.shownFeatureImportance ?? served?.shown ?? null,
});
