/**
 * Feature discretisation for histogram-based GBDT, after LightGBM 4.6's `BinMapper`:
 * numeric features get at most `maxBin` bins whose upper bounds lie just above midpoints between
 * distinct values (small-count values merge into their neighbours; with many distinct values,
 * bins hold roughly equal counts and frequent values keep a bin of their own); zero always has a
 * bin of its own and NaN gets the last bin.
 * Categorical features get one bin per category seen, most frequent first; NaN, negative and
 * rare categories share the last bin, which never joins a split's left set.
 */
import { ZERO_THRESHOLD } from './model';

export type NumericBins = {
  kind: 'numeric';
  /** Bin b holds values in (upperBounds[b-1], upperBounds[b]]; the last bound is +∞. */
  upperBounds: Float64Array;
  /** Index of the NaN bin, or -1 when the training data had no missing value. */
  nanBin: number;
  numBins: number;
};

export type CategoricalBins = {
  kind: 'categorical';
  /** Category code of each bin except the last ("other": missing, negative or rare). */
  categories: Int32Array;
  codeToBin: Map<number, number>;
  /** The same as an array for codes 0..length-1 (the "other" bin where no category has the code). */
  binOfCode: Int32Array;
  numBins: number;
};

export type FeatureBins = NumericBins | CategoricalBins;

export type BinningOptions = { maxBin: number; minDataInBin: number; maxCategories: number };

export const defaultBinning: BinningOptions = { maxBin: 255, minDataInBin: 3, maxCategories: 255 };

/**
 * Columns of whole numbers spanning at most this many values (and not many more than they have
 * rows) are counted and binned through arrays: O(span) work, which beats hashing or searching each
 * row only while the span stays within a few times the row count (200 answers with a span of
 * 100,000 would not).
 */
const DENSE_INTEGER_SPAN = 1 << 17;
const denseSpanLimit = (rows: number) => Math.min(DENSE_INTEGER_SPAN, 8 * rows + 256);

/** The smallest and largest value, if every non-missing value is a whole number and they span at most `denseSpanLimit`. */
export function denseIntegerRange(values: Float64Array): { min: number; max: number } | null {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v !== v) continue;
    if (v !== Math.trunc(v)) return null;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return max >= min && max - min < denseSpanLimit(values.length) ? { min, max } : null;
}

export function distinctWithCounts(values: Float64Array): { distinct: number[]; counts: number[]; nanCount: number } {
  let nanCount = 0;
  const distinct: number[] = [];
  const counts: number[] = [];
  const range = denseIntegerRange(values);
  if (range) {
    // Whole numbers in a modest span: count them in an array, read back in order.
    const { min, max } = range;
    const tally = new Int32Array(max - min + 1);
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (v !== v) nanCount++;
      else tally[v - min]!++;
    }
    for (let at = 0; at <= max - min; at++) {
      if (tally[at]! > 0) {
        distinct.push(min + at);
        counts.push(tally[at]!);
      }
    }
    return { distinct, counts, nanCount };
  }
  // Otherwise count by value (a Map treats -0 and 0 as one key, as the runs of a sort would) and
  // sort only the distinct values.
  const byValue = new Map<number, number>();
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v !== v) nanCount++;
    else byValue.set(v, (byValue.get(v) ?? 0) + 1);
  }
  for (const v of Float64Array.from(byValue.keys()).sort()) {
    distinct.push(v);
    counts.push(byValue.get(v)!);
  }
  return { distinct, counts, nanCount };
}

const ulpView = new DataView(new ArrayBuffer(8));
/** The next double above `x` (C's nextafter(x, +∞)), so a bound sits just above a midpoint. */
function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  // One step of the 64-bit pattern (up in magnitude above zero, down below), in two 32-bit halves.
  ulpView.setFloat64(0, x);
  let high = ulpView.getUint32(0);
  let low = ulpView.getUint32(4);
  if (x > 0) {
    low = (low + 1) >>> 0;
    if (low === 0) high++;
  } else {
    if (low === 0) high--;
    low = (low - 1) >>> 0;
  }
  ulpView.setUint32(0, high);
  ulpView.setUint32(4, low);
  return ulpView.getFloat64(0);
}

const pushBound = (bounds: number[], value: number) => {
  // Skip a bound equal to (or within one ulp above) the previous one.
  if (bounds.length === 0 || value > nextUp(bounds[bounds.length - 1]!)) bounds.push(value);
};

/**
 * LightGBM's `GreedyFindBin`: with few distinct values, a bound between neighbours once a bin
 * holds `minDataInBin` rows; with many, bins of about equal count in which frequent values keep a
 * bin of their own. The last bound is +∞.
 */
function greedyFindBin(
  distinct: readonly number[],
  counts: readonly number[],
  maxBinInput: number,
  totalCount: number,
  minDataInBin: number,
): number[] {
  const bounds: number[] = [];
  const n = distinct.length;
  if (n <= maxBinInput) {
    let inBin = 0;
    for (let i = 0; i < n - 1; i++) {
      inBin += counts[i]!;
      if (inBin >= minDataInBin) {
        const before = bounds.length;
        pushBound(bounds, nextUp((distinct[i]! + distinct[i + 1]!) / 2));
        if (bounds.length > before) inBin = 0;
      }
    }
    bounds.push(Infinity);
    return bounds;
  }
  const maxBin = Math.max(1, minDataInBin > 0 ? Math.min(maxBinInput, Math.floor(totalCount / minDataInBin)) : maxBinInput);
  let meanBinSize = totalCount / maxBin;
  let restBins = maxBin;
  let restCount = totalCount;
  const isBig = counts.map((c) => c >= meanBinSize);
  isBig.forEach((big, i) => {
    if (big) {
      restBins--;
      restCount -= counts[i]!;
    }
  });
  meanBinSize = restCount / restBins;
  const upper: number[] = [];
  const lower: number[] = [distinct[0]!];
  let inBin = 0;
  for (let i = 0; i < n - 1; i++) {
    if (!isBig[i]) restCount -= counts[i]!;
    inBin += counts[i]!;
    if (isBig[i] || inBin >= meanBinSize || (isBig[i + 1] && inBin >= Math.max(1, meanBinSize * 0.5))) {
      upper.push(distinct[i]!);
      lower.push(distinct[i + 1]!);
      if (upper.length >= maxBin - 1) break;
      inBin = 0;
      if (!isBig[i]) {
        restBins--;
        meanBinSize = restCount / restBins;
      }
    }
  }
  for (let i = 0; i < upper.length; i++) pushBound(bounds, nextUp((upper[i]! + lower[i + 1]!) / 2));
  bounds.push(Infinity);
  return bounds;
}

/**
 * LightGBM's `FindBinWithZeroAsOneBin`: negative and positive values are binned separately and
 * zero (|x| ≤ 1e-35) always gets a bin of its own.
 */
function zeroAsOneBin(distinct: readonly number[], counts: readonly number[], maxBin: number, totalCount: number, minDataInBin: number): number[] {
  let leftData = 0;
  let zeroData = 0;
  let rightData = 0;
  distinct.forEach((v, i) => {
    if (v <= -ZERO_THRESHOLD) leftData += counts[i]!;
    else if (v > ZERO_THRESHOLD) rightData += counts[i]!;
    else zeroData += counts[i]!;
  });
  let leftCount = distinct.findIndex((v) => v > -ZERO_THRESHOLD);
  if (leftCount < 0) leftCount = distinct.length;
  let bounds: number[] = [];
  if (leftCount > 0 && maxBin > 1) {
    const leftMaxBin = Math.max(1, Math.floor((leftData / (totalCount - zeroData)) * (maxBin - 1)));
    bounds = greedyFindBin(distinct.slice(0, leftCount), counts.slice(0, leftCount), leftMaxBin, leftData, minDataInBin);
    if (bounds.length > 0) bounds[bounds.length - 1] = -ZERO_THRESHOLD;
  }
  let rightStart = -1;
  for (let i = leftCount; i < distinct.length; i++) {
    if (distinct[i]! > ZERO_THRESHOLD) {
      rightStart = i;
      break;
    }
  }
  const rightMaxBin = maxBin - 1 - bounds.length;
  if (rightStart >= 0 && rightMaxBin > 0) {
    const right = greedyFindBin(distinct.slice(rightStart), counts.slice(rightStart), rightMaxBin, rightData, minDataInBin);
    bounds.push(ZERO_THRESHOLD, ...right);
  } else {
    bounds.push(Infinity);
  }
  return bounds;
}

export function findNumericBins(values: Float64Array, options: BinningOptions = defaultBinning): NumericBins {
  const { distinct, counts, nanCount } = distinctWithCounts(values);
  const bounds =
    distinct.length === 0
      ? [Infinity]
      : zeroAsOneBin(distinct, counts, nanCount > 0 ? options.maxBin - 1 : options.maxBin, values.length - nanCount, options.minDataInBin);
  const valueBins = bounds.length;
  return {
    kind: 'numeric',
    upperBounds: Float64Array.from(bounds),
    nanBin: nanCount > 0 ? valueBins : -1,
    numBins: valueBins + (nanCount > 0 ? 1 : 0),
  };
}

export function findCategoricalBins(values: Float64Array, options: BinningOptions = defaultBinning): CategoricalBins {
  // Small codes are counted in an array, any others in a map.
  const small = new Float64Array(1024);
  const counts = new Map<number, number>();
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(v >= 0)) continue;
    const code = Math.trunc(v);
    if (code < small.length) small[code]!++;
    else counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  for (let code = 0; code < small.length; code++) if (small[code]! > 0) counts.set(code, small[code]!);
  // Most frequent first (ties by code, for determinism); the tail beyond maxCategories is "other".
  const ordered = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, options.maxCategories - 1);
  const categories = Int32Array.from(ordered.map(([code]) => code));
  const codeToBin = new Map<number, number>();
  categories.forEach((code, bin) => codeToBin.set(code, bin));
  const numBins = categories.length + 1;
  const binOfCode = new Int32Array(Math.min(categories.reduce((m, c) => Math.max(m, c + 1), 0), 1 << 16)).fill(numBins - 1);
  categories.forEach((code, bin) => {
    if (code < binOfCode.length) binOfCode[code] = bin;
  });
  return { kind: 'categorical', categories, codeToBin, binOfCode, numBins };
}

/** The bin of one value under a feature's bins. */
export function valueToBin(bins: FeatureBins, value: number): number {
  if (bins.kind === 'categorical') {
    if (Number.isNaN(value) || value < 0) return bins.numBins - 1;
    const code = Math.trunc(value);
    return code < bins.binOfCode.length ? bins.binOfCode[code]! : (bins.codeToBin.get(code) ?? bins.numBins - 1);
  }
  if (Number.isNaN(value)) return bins.nanBin >= 0 ? bins.nanBin : binOfNumber(bins.upperBounds, 0);
  return binOfNumber(bins.upperBounds, value);
}

function binOfNumber(upperBounds: Float64Array, value: number): number {
  let lo = 0;
  let hi = upperBounds.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (value <= upperBounds[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
