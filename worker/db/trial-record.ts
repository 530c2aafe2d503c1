/**
 * Reading a trial's record where its parts are kept once: the case an answer showed is its row in
 * `cases` (never rewritten) unless an older answer kept its own differing copy, and a main trial's
 * bars are its serve's unless it was stored before serves were recorded.
 */
import { eq, getTableColumns, sql } from 'drizzle-orm';
import type { ServeBars } from './feature-bars';
import { cases, featureLists, mainExperimentResponses, servedExplanations, type preExperimentResponses } from './schema';

type ServedExplanation = typeof servedExplanations.$inferSelect;

/** The case an answer showed (needs `cases` joined on the answer's `case_id`). */
export const caseShown = (t: typeof preExperimentResponses | typeof mainExperimentResponses) =>
  sql<Record<string, unknown>>`coalesce(${t.caseData}, ${cases.features})`.mapWith(t.caseData);

type Bars = unknown[] | null;
type ThreeBars = { ai: Bars; user: Bars; shown: Bars };

/**
 * A serve's `bars` as the Worker packed them, its feature names put back: a packed serve keeps
 * only the id of its list in `feature_lists` (migration 0028). Select this wherever a serve's bars
 * are read; the column alone holds the id.
 */
export const servedBarsText = sql<ServedExplanation['bars']>`case when json_type(${servedExplanations.bars}, '$.f') = 'integer'
  then json_set(${servedExplanations.bars}, '$.f', json((select ${featureLists.names} from ${featureLists} where ${featureLists.id} = json_extract(${servedExplanations.bars}, '$.f'))))
  else ${servedExplanations.bars} end`.mapWith(servedExplanations.bars);

/** Every column of a serve, its bars read whole (`servedBarsText`). */
export const serveColumns = { ...getTableColumns(servedExplanations), bars: servedBarsText };

/** A trial's serve, to left-join beside it: `servedBars` then selects the serve's bars. */
export const trialServe = eq(servedExplanations.id, mainExperimentResponses.servedExplanationId);
export const servedBars = {
  // First and never null: drizzle takes a left-joined object whose first value is null for no row at all.
  id: servedExplanations.id,
  bars: servedBarsText,
  ai: servedExplanations.aiFeatureImportance,
  user: servedExplanations.userFeatureImportance,
  shown: servedExplanations.shownFeatureImportance,
};
type SelectedServe = { id: number; bars: ServeBars | null; ai: Bars; user: Bars; shown: Bars };

/** A serve's three lists: packed in `bars`, or (a serve stored before migration 0024) its three columns. */
export const barsOfServe = (serve: Pick<ServedExplanation, 'bars' | 'aiFeatureImportance' | 'userFeatureImportance' | 'shownFeatureImportance'>): ServeBars =>
  serve.bars ?? { ai: serve.aiFeatureImportance ?? [], user: serve.userFeatureImportance ?? [], shown: serve.shownFeatureImportance ?? [] };

/** The selected serve's lists (`servedBars`), null without a serve. */
const selectedBars = (served: SelectedServe | null | undefined): ThreeBars | null =>
  !served ? null : (served.bars ?? { ai: served.ai, user: served.user, shown: served.shown });

/** A trial's three lists of bars: its own where it kept them, else its serve's (null without a serve). */
export const trialBars = (
  own: Pick<typeof mainExperimentResponses.$inferSelect, 'aiFeatureImportance' | 'userFeatureImportance' | 'shownFeatureImportance'>,
  served: SelectedServe | null | undefined,
): ThreeBars => {
  const serve = selectedBars(served);
  return {
    ai: own.aiFeatureImportance ?? serve?.ai ?? null,
    user: own.userFeatureImportance ?? serve?.user ?? null,
    shown: own.shownFeatureImportance ?? serve?.shown ?? null,
  };
};
