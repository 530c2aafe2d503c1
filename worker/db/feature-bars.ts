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
import { mixContributions, normaliseContributions, type FeatureContribution } from '../ml/explanation';

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

/** Bars on screen as stored: compact when every bar is one the Worker makes, else the list as it is. */
function barsToStored(bars: Bars): unknown[] {
  return bars.every(isServedBar) ? bars.map((b): ShownBar => [b.feature, b.importance, b.raw_shap]) : bars;
}

/** A model's bars as stored: the raw values alone when the shares are theirs, else as bars on screen. */
function modelBarsToStored(bars: Bars): unknown[] {
  if (bars.length > 0 && bars.every(isServedBar)) {
    const raw = bars.map((b): ModelBar => [b.feature, b.raw_shap]);
    if (sharesOf(raw).every((c, i) => c.importance === bars[i]!.importance)) return raw;
  }
  return barsToStored(bars);
}

/** Stored bars, as they were served (any of the forms above). */
function barsFromStored(stored: unknown[]): Bars {
  if (stored.length > 0 && stored.every((b) => Array.isArray(b) && b.length === 2)) return sharesOf(stored as ModelBar[]);
  return stored.map((b) => {
    if (!Array.isArray(b)) return b;
    const [feature, importance, rawShap] = b as ShownBar;
    return { feature, importance, abs_importance: Math.abs(importance), raw_shap: rawShap } satisfies FeatureContribution;
  });
}

export const barsToText = (bars: Bars): string => JSON.stringify(barsToStored(bars));
export const modelBarsToText = (bars: Bars): string => JSON.stringify(modelBarsToStored(bars));
export const barsFromText = (text: string): Bars => barsFromStored(JSON.parse(text) as unknown[]);

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

/** A serve's three lists of bars, as served. */
export type ServeBars = { ai: Bars; user: Bars; shown: Bars };
/** What a serve's `bars` column takes: its lists and the alpha the bars on screen mix them with. */
export type ServeBarsValue = ServeBars & { alpha: number | null };

/**
 * A serve's bars in one text, each part once: the feature names (the AI's order), the AI's raw
 * values, the participant model's raw values in the same order (both `packDoubles`; none without
 * a participant model), and how the bars on screen are
 * made from them: `"mix"` (the alpha mix of the two, as `mixContributions` made it), `"ai"` (the
 * AI's own bars) or the list itself. Shares are made again from raw values, as they were made.
 */
type CompactServe = { f: string[]; a: string; u: string; s: 'mix' | 'ai' | unknown[]; m?: number };

const base64Doubles = (values: readonly number[]): string => {
  const view = new DataView(new ArrayBuffer(values.length * 8));
  values.forEach((v, i) => view.setFloat64(i * 8, v, true));
  let binary = '';
  for (let i = 0; i < view.byteLength; i++) binary += String.fromCharCode(view.getUint8(i));
  return btoa(binary);
};

const doublesOfBase64 = (text: string): number[] => {
  const binary = atob(text);
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) view.setUint8(i, binary.charCodeAt(i));
  return Array.from({ length: binary.length / 8 }, (_, i) => view.getFloat64(i * 8, true));
};

/**
 * Doubles as base64 of their 8 little-endian bytes each: exact, and under 11 characters a number
 * where JSON takes up to 24. A list with zeros (a participant model's bars name every feature its
 * small trees never split on) leaves them out: `count:positions of the zeros in hex:the others`.
 * Only +0 is left out; -0 keeps its bytes.
 */
export function packDoubles(values: readonly number[]): string {
  const zero = values.map((v) => Object.is(v, 0));
  if (!zero.includes(true)) return base64Doubles(values);
  let mask = 0n;
  zero.forEach((z, i) => {
    if (z) mask |= 1n << BigInt(i);
  });
  return `${values.length}:${mask.toString(16)}:${base64Doubles(values.filter((_, i) => !zero[i]))}`;
}

export function unpackDoubles(text: string): number[] {
  const parts = text.split(':');
  if (parts.length === 1) return doublesOfBase64(text);
  const [count, zeros, others] = parts as [string, string, string];
  const mask = BigInt(`0x${zeros}`);
  const rest = doublesOfBase64(others);
  let next = 0;
  return Array.from({ length: Number(count) }, (_, i) => ((mask >> BigInt(i)) & 1n ? 0 : rest[next++]!));
}
/** The lists as stored before they were packed (each in its own form above), for what does not pack. */
type ListedServe = { ai: unknown[]; user: unknown[]; shown: unknown[] };

const sameBars = (a: Bars, b: Bars) =>
  JSON.stringify((a as FeatureContribution[]).map((x) => [x.feature, x.importance, x.abs_importance, x.raw_shap])) ===
  JSON.stringify((b as FeatureContribution[]).map((x) => [x.feature, x.importance, x.abs_importance, x.raw_shap]));

function unpackServe(stored: CompactServe | ListedServe): ServeBars {
  if (!('f' in stored)) return { ai: barsFromStored(stored.ai), user: barsFromStored(stored.user), shown: barsFromStored(stored.shown) };
  const ai = normaliseContributions(stored.f, unpackDoubles(stored.a));
  const user = stored.u === '' ? [] : normaliseContributions(stored.f, unpackDoubles(stored.u));
  const shown = stored.s === 'ai' ? ai : stored.s === 'mix' ? mixContributions(ai, user, stored.m!) : barsFromStored(stored.s);
  return { ai, user, shown };
}

/**
 * The stored text of a serve's bars: packed when unpacking gives back every list exactly (every
 * bar the Worker makes), else each list in its own form (`barsToStored`, `modelBarsToStored`).
 * The lists unpacking would make are made once here and compared with the served ones.
 */
export function serveBarsToText(value: ServeBarsValue): string {
  const { ai, user, shown, alpha } = value;
  const listed = (): string =>
    JSON.stringify({ ai: modelBarsToStored(ai), user: modelBarsToStored(user), shown: barsToStored(shown) } satisfies ListedServe);
  if (ai.length === 0 || !ai.every(isServedBar) || !user.every(isServedBar) || !shown.every(isServedBar)) return listed();
  const features = ai.map((b) => b.feature);
  if (user.length > 0 && (user.length !== ai.length || user.some((b, i) => b.feature !== features[i]))) return listed();
  const aiRaw = ai.map((b) => b.raw_shap);
  const userRaw = user.map((b) => b.raw_shap);
  const unpackedAi = normaliseContributions(features, aiRaw);
  const unpackedUser = user.length === 0 ? [] : normaliseContributions(features, userRaw);
  if (!sameBars(unpackedAi, ai) || !sameBars(unpackedUser, user)) return listed();
  const packed: CompactServe = { f: features, a: packDoubles(aiRaw), u: packDoubles(userRaw), s: barsToStored(shown) };
  // A list of bars the Worker makes comes back from its stored form as it was (isServedBar), so only the two short forms need a check.
  if (sameBars(shown, unpackedAi)) packed.s = 'ai';
  else if (alpha !== null && alpha >= 0 && alpha <= 1 && sameBars(shown, mixContributions(unpackedAi, unpackedUser, alpha))) {
    packed.s = 'mix';
    packed.m = alpha;
  }
  return JSON.stringify(packed);
}

export const serveBarsFromText = (text: string): ServeBars => unpackServe(JSON.parse(text) as CompactServe | ListedServe);

/** A serve's bars in one column (text in D1; issue #45): null for a serve stored before it, whose lists are its three columns. */
export const serveBars = customType<{ data: ServeBarsValue | ServeBars; driverData: string }>({
  dataType: () => 'text',
  toDriver: (value) => serveBarsToText({ alpha: null, ...value }),
  fromDriver: serveBarsFromText,
});
