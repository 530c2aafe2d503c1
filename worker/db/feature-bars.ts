/**
 * How lists of explanation bars are stored, compactly and read back as the objects the Worker
 * served, key for key and number for number:
 * - the bars on screen (`featureBars`): each bar as `[feature, importance, raw_shap]`, its
 *   `abs_importance` (always |importance|) left out;
 * - a model's own bars, the AI's or the participant model's (`modelBars`): each as
 *   `[feature, raw_shap]`, its share computed again from the raw values (`normaliseContributions`,
 *   the very function that made it); a list whose shares are not exactly that is stored as above.
 * A list the server did not make (a trial stored before serves were recorded, whose bars came
 * from the page) is kept as it came. Migration 0021 converted the lists stored before, in SQL,
 * keeping every number's text.
 */
import { customType } from 'drizzle-orm/sqlite-core';
import { normaliseContributions, type FeatureContribution } from '../ml/explanation';

type Bars = unknown[];
type ShownBar = [feature: string, importance: number, rawShap: number];
type ModelBar = [feature: string, rawShap: number];

const isServedBar = (b: unknown): b is FeatureContribution => {
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
  const keys = Object.keys(b);
  const c = b as FeatureContribution;
  return (
    keys.length === 4 &&
    keys[0] === 'feature' &&
    keys[1] === 'importance' &&
    keys[2] === 'abs_importance' &&
    keys[3] === 'raw_shap' &&
    typeof c.feature === 'string' &&
    typeof c.importance === 'number' &&
    c.abs_importance === Math.abs(c.importance) &&
    typeof c.raw_shap === 'number'
  );
};

/** A model's shares, made again from its raw values. */
const sharesOf = (bars: readonly ModelBar[]) =>
  normaliseContributions(
    bars.map((b) => b[0]),
    bars.map((b) => b[1]),
  );

/** The stored text of bars on screen: compact when every bar is one the Worker makes, else the list as it is. */
export function barsToText(bars: Bars): string {
  return JSON.stringify(bars.every(isServedBar) ? bars.map((b): ShownBar => [b.feature, b.importance, b.raw_shap]) : bars);
}

/** The stored text of a model's bars: the raw values alone when the shares are theirs, else as bars on screen. */
export function modelBarsToText(bars: Bars): string {
  if (bars.length > 0 && bars.every(isServedBar)) {
    const raw = bars.map((b): ModelBar => [b.feature, b.raw_shap]);
    if (sharesOf(raw).every((c, i) => c.importance === bars[i]!.importance)) return JSON.stringify(raw);
  }
  return barsToText(bars);
}

/** Stored bars, as they were served (any of the forms above). */
export function barsFromText(text: string): Bars {
  const stored = JSON.parse(text) as unknown[];
  if (stored.length > 0 && stored.every((b) => Array.isArray(b) && b.length === 2)) return sharesOf(stored as ModelBar[]);
  return stored.map((b) => {
    if (!Array.isArray(b)) return b;
    const [feature, importance, rawShap] = b as ShownBar;
    return { feature, importance, abs_importance: Math.abs(importance), raw_shap: rawShap } satisfies FeatureContribution;
  });
}

/** A column of bars on screen (text in D1). */
export const featureBars = customType<{ data: Bars; driverData: string }>({
  dataType: () => 'text',
  toDriver: barsToText,
  fromDriver: barsFromText,
});

/** A column of a model's bars, the AI's or the participant model's (text in D1). */
export const modelBars = customType<{ data: Bars; driverData: string }>({
  dataType: () => 'text',
  toDriver: modelBarsToText,
  fromDriver: barsFromText,
});
