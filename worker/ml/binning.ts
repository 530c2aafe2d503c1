/**
 * Feature discretisation for histogram-based GBDT, after LightGBM's `BinMapper`:
 * numeric features get at most `maxBin` bins whose upper bounds lie midway between distinct
 * values (small-count values merge into their neighbours; with many distinct values, bins hold
 * roughly equal counts and frequent values keep a bin of their own); NaN gets a bin of its own.
 * Categorical features get one bin per category seen, most frequent first; NaN, negative and
 * rare categories share the last bin, which never joins a split's left set.
 */

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
  numBins: number;
};

export type FeatureBins = NumericBins | CategoricalBins;

export type BinningOptions = { maxBin: number; minDataInBin: number; maxCategories: number };

export const defaultBinning: BinningOptions = { maxBin: 255, minDataInBin: 3, maxCategories: 255 };

function distinctWithCounts(values: Float64Array): { distinct: number[]; counts: number[]; nanCount: number } {
  const finite: number[] = [];
  let nanCount = 0;
  for (const v of values) {
    if (Number.isNaN(v)) nanCount++;
    else finite.push(v);
  }
  finite.sort((a, b) => a - b);
  const distinct: number[] = [];
  const counts: number[] = [];
  for (const v of finite) {
    if (distinct.length > 0 && distinct[distinct.length - 1] === v) counts[counts.length - 1]!++;
    else {
      distinct.push(v);
      counts.push(1);
    }
  }
  return { distinct, counts, nanCount };
}

/** Upper bounds between distinct values, greedily filling bins to about total / maxBin rows. */
function greedyUpperBounds(distinct: number[], counts: number[], maxBin: number, minDataInBin: number): number[] {
  const bounds: number[] = [];
  const n = distinct.length;
  if (n === 0) return bounds;
  const total = counts.reduce((a, b) => a + b, 0);
  if (n <= maxBin) {
    let inBin = 0;
    for (let i = 0; i < n - 1; i++) {
      inBin += counts[i]!;
      if (inBin >= minDataInBin) {
        bounds.push((distinct[i]! + distinct[i + 1]!) / 2);
        inBin = 0;
      }
    }
    return bounds;
  }
  // Frequent values keep their own bin; the rest share the remaining bins evenly.
  const meanBinSize = total / maxBin;
  const isBig = counts.map((c) => c >= meanBinSize);
  let bigCount = 0;
  let rest = total;
  isBig.forEach((big, i) => {
    if (big) {
      bigCount++;
      rest -= counts[i]!;
    }
  });
  const restBins = Math.max(1, maxBin - bigCount);
  const restBinSize = rest / restBins;
  let inBin = 0;
  for (let i = 0; i < n - 1; i++) {
    inBin += counts[i]!;
    const closeHere = isBig[i] || isBig[i + 1] || inBin >= Math.max(restBinSize, minDataInBin);
    if (closeHere && inBin >= minDataInBin && bounds.length < maxBin - 1) {
      bounds.push((distinct[i]! + distinct[i + 1]!) / 2);
      inBin = 0;
    }
  }
  return bounds;
}

export function findNumericBins(values: Float64Array, options: BinningOptions = defaultBinning): NumericBins {
  const { distinct, counts, nanCount } = distinctWithCounts(values);
  const bounds = greedyUpperBounds(distinct, counts, nanCount > 0 ? options.maxBin - 1 : options.maxBin, options.minDataInBin);
  bounds.push(Infinity);
  const valueBins = bounds.length;
  return {
    kind: 'numeric',
    upperBounds: Float64Array.from(bounds),
    nanBin: nanCount > 0 ? valueBins : -1,
    numBins: valueBins + (nanCount > 0 ? 1 : 0),
  };
}

export function findCategoricalBins(values: Float64Array, options: BinningOptions = defaultBinning): CategoricalBins {
  const counts = new Map<number, number>();
  for (const v of values) {
    if (Number.isNaN(v) || v < 0) continue;
    const code = Math.trunc(v);
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  // Most frequent first (ties by code, for determinism); the tail beyond maxCategories is "other".
  const ordered = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, options.maxCategories - 1);
  const categories = Int32Array.from(ordered.map(([code]) => code));
  const codeToBin = new Map<number, number>();
  categories.forEach((code, bin) => codeToBin.set(code, bin));
  return { kind: 'categorical', categories, codeToBin, numBins: categories.length + 1 };
}

/** The bin of one value under a feature's bins. */
export function valueToBin(bins: FeatureBins, value: number): number {
  if (bins.kind === 'categorical') {
    if (Number.isNaN(value) || value < 0) return bins.numBins - 1;
    return bins.codeToBin.get(Math.trunc(value)) ?? bins.numBins - 1;
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
