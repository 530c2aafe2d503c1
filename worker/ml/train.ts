/**
 * Histogram-based gradient-boosted decision trees for binary log-loss, grown leaf-wise (best
 * first) as LightGBM does (Ke et al., "LightGBM: A Highly Efficient Gradient Boosting Decision
 * Tree", NeurIPS 2017). Numeric splits learn where missing values go; categorical splits follow
 * LightGBM's many-vs-many search (categories ordered by G/(H + cat_smooth), scanned from both
 * ends, with cat_l2 regularisation) and one-vs-rest for few categories. The initial score is the
 * log-odds of the label mean, folded into the first tree. Fully deterministic: no sampling.
 *
 * Node counts are training rows (unweighted), the cover TreeSHAP uses; gradients and hessians
 * carry the optional sample weights.
 */
import {
  defaultBinning,
  denseIntegerRange,
  findCategoricalBins,
  findNumericBins,
  valueToBin,
  type FeatureBins,
  type NumericBins,
} from './binning';
import { DecisionType, MODEL_FORMAT, MODEL_FORMAT_VERSION, MissingType, type GbdtModel, type SerializedTree } from './model';
import { exp, log } from './exact-math';
import { trainParamsSchema, type TrainParams, type TrainParamsInput } from '../schemas/train-params';

/** Column-major training data: encoded values (NaN = missing), 0/1 labels, optional weights. */
export type TrainingData = {
  featureNames: readonly string[];
  categorical: readonly boolean[];
  columns: readonly Float64Array[];
  labels: ArrayLike<number>;
  weights?: ArrayLike<number>;
};

/** What the model needs to encode raw rows later (category string → code tables). */
export type EncodingInfo = { categoryCodes: Record<string, Record<string, number>> };

type Split = {
  gain: number;
  feature: number;
  /** Numeric: last bin on the left. */
  thresholdBin: number;
  defaultLeft: boolean;
  /** Categorical: bins on the left. */
  leftBins: number[] | null;
  leftG: number;
  leftH: number;
  leftOutput: number;
  rightOutput: number;
};

type Leaf = {
  start: number;
  count: number;
  sumG: number;
  sumH: number;
  depth: number;
  output: number;
  hist: Float64Array;
  best: Split | null;
};

const leafOutput = (g: number, h: number, l2: number) => -g / (h + l2);
const leafGain = (g: number, h: number, l2: number) => (g * g) / (h + l2);

class HistogramLayout {
  readonly offsets: Int32Array;
  readonly totalBins: number;
  constructor(readonly bins: FeatureBins[]) {
    this.offsets = new Int32Array(bins.length);
    let total = 0;
    bins.forEach((b, f) => {
      this.offsets[f] = total;
      total += b.numBins;
    });
    this.totalBins = total;
  }
}

/**
 * Grows one tree on the current gradients. Rows of each leaf are a contiguous range of
 * `order`; the smaller child's histogram is built and the larger one's is the parent's minus it.
 */
class TreeGrower {
  private readonly order: Int32Array;
  private readonly scratch: Int32Array;
  /** Scratch for the many-vs-many categorical search: bins in order, and their sort keys. */
  private readonly usedBins = new Int32Array(256);
  private readonly binKeys = new Float64Array(256);
  /** The last grown tree's leaves as ranges of `order`. */
  private leafStarts: number[] = [];
  private leafCounts: number[] = [];
  /** Histogram buffers reused across trees: allocation and GC dominated small trainings. */
  private readonly freeHistograms: Float64Array[] = [];

  private readonly numFeatures: number;
  /** Per bin of the split being applied: 1 if its rows go left. */
  private readonly leftOfBin: Uint8Array;

  constructor(
    /** Row by row, the histogram indices of the bins that are not their feature's most frequent. */
    private readonly rows: { rowStart: Int32Array; entries: Uint16Array | Uint32Array },
    /** The bins column by column, local to each feature: a split reads one dense column. */
    private readonly columns: readonly Uint8Array[],
    /** Rows per global bin over all rows: the root's counts, the same in every tree. */
    private readonly rootCounts: Float64Array,
    /** Per feature, its most frequent bin (local), which `rows` leaves out. */
    private readonly mostFrequent: Int32Array,
    private readonly layout: HistogramLayout,
    private readonly params: TrainParams,
    private readonly numRows: number,
  ) {
    this.numFeatures = layout.bins.length;
    this.leftOfBin = new Uint8Array(256);
    this.order = new Int32Array(numRows);
    this.scratch = new Int32Array(numRows);
  }

  /**
   * Gradient, hessian and count per bin over the leaf's rows, row by row: each row's gradient pair
   * is read once and only its bins that are not their feature's most frequent are visited
   * (LightGBM's row-wise histogram). The most frequent bins are then the leaf's totals minus the
   * feature's other bins.
   */
  private buildHistogram(start: number, count: number, gradHess: Float64Array, sumG: number, sumH: number): Float64Array {
    const hist = this.freeHistograms.pop()?.fill(0) ?? new Float64Array(this.layout.totalBins * 3);
    const { order } = this;
    const { rowStart, entries } = this.rows;
    if (count === this.numRows) {
      // The root: every row, in order. Its counts are the same for every tree, so only the
      // gradient sums are accumulated and the counts are copied in.
      for (let row = 0; row < count; row++) {
        const g = gradHess[2 * row]!;
        const h = gradHess[2 * row + 1]!;
        for (let k = rowStart[row]!, end = rowStart[row + 1]!; k < end; k++) {
          const at = entries[k]!;
          hist[at] += g;
          hist[at + 1] += h;
        }
      }
      const rootCounts = this.rootCounts;
      for (let bin = 0; bin < rootCounts.length; bin++) hist[3 * bin + 2] = rootCounts[bin]!;
      this.fillMostFrequent(hist, sumG, sumH, -1);
      return hist;
    }
    for (let i = start, end = start + count; i < end; i++) {
      const row = order[i]!;
      const g = gradHess[2 * row]!;
      const h = gradHess[2 * row + 1]!;
      for (let k = rowStart[row]!, stop = rowStart[row + 1]!; k < stop; k++) {
        const at = entries[k]!;
        hist[at] += g;
        hist[at + 1] += h;
        hist[at + 2] += 1;
      }
    }
    this.fillMostFrequent(hist, sumG, sumH, count);
    return hist;
  }

  /** Sets each feature's most frequent bin to the leaf's totals minus its other bins (its count too unless `count` < 0). */
  private fillMostFrequent(hist: Float64Array, sumG: number, sumH: number, count: number): void {
    const { offsets, bins } = this.layout;
    for (let f = 0; f < this.numFeatures; f++) {
      const first = offsets[f]! * 3;
      const last = first + bins[f]!.numBins * 3;
      const at = first + this.mostFrequent[f]! * 3;
      let g = 0;
      let h = 0;
      let c = 0;
      for (let b = first; b < last; b += 3) {
        if (b === at) continue;
        g += hist[b]!;
        h += hist[b + 1]!;
        c += hist[b + 2]!;
      }
      hist[at] = sumG - g;
      hist[at + 1] = sumH - h;
      if (count >= 0) hist[at + 2] = count - c;
    }
  }

  private canSplit(leaf: Leaf): boolean {
    const p = this.params;
    if (p.maxDepth >= 0 && leaf.depth >= p.maxDepth) return false;
    return leaf.count >= 2 * p.minDataInLeaf;
  }

  private findBestSplit(leaf: Leaf): Split | null {
    if (!this.canSplit(leaf)) return null;
    let best: Split | null = null;
    for (let f = 0; f < this.layout.bins.length; f++) {
      const bins = this.layout.bins[f]!;
      const candidate =
        bins.kind === 'numeric' ? this.bestNumeric(leaf, f, bins.numBins, bins.nanBin) : this.bestCategorical(leaf, f, bins.numBins);
      if (candidate && (!best || candidate.gain > best.gain)) best = candidate;
    }
    return best;
  }

  private valid(leftCount: number, leftH: number, rightCount: number, rightH: number): boolean {
    const p = this.params;
    return leftCount >= p.minDataInLeaf && rightCount >= p.minDataInLeaf && leftH >= p.minSumHessianInLeaf && rightH >= p.minSumHessianInLeaf;
  }

  private bestNumeric(leaf: Leaf, f: number, numBins: number, nanBin: number): Split | null {
    const { minDataInLeaf, minSumHessianInLeaf, lambdaL2, minGainToSplit } = this.params;
    const hist = leaf.hist;
    const base = this.layout.offsets[f]! * 3;
    const valueBins = nanBin >= 0 ? numBins - 1 : numBins;
    if (valueBins < 2 && nanBin < 0) return null;
    const nanC = nanBin >= 0 ? hist[base + nanBin * 3 + 2]! : 0;
    const { sumG, sumH, count } = leaf;
    const shift = leafGain(sumG, sumH, lambdaL2) + minGainToSplit;
    // The best candidate so far, in locals: scanning allocates nothing.
    let bestGain = 0;
    let bestThreshold = -1;
    let bestDefaultLeft = false;
    let bestLG = 0;
    let bestLH = 0;
    // Right to left, missing values (if any) on the left: among ties the highest threshold wins,
    // so a split sits next to the data on its right, as LightGBM places it. Strictly greater:
    // among equal gains the first one scanned wins, as in LightGBM.
    let rG = 0;
    let rH = 0;
    let rC = 0;
    for (let t = valueBins - 1; t >= 1; t--) {
      const at = base + t * 3;
      rG += hist[at]!;
      rH += hist[at + 1]!;
      rC += hist[at + 2]!;
      // The left side as the leaf minus the right, and the right again as the leaf minus the left:
      // the same roundings as the opposite scan's, so equal candidates compare equal.
      const lC = count - rC;
      const lH = sumH - rH;
      const lG = sumG - rG;
      const rightH = sumH - lH;
      if (lC < minDataInLeaf || lH < minSumHessianInLeaf) break;
      if (rC < minDataInLeaf || rightH < minSumHessianInLeaf) continue;
      const gain = leafGain(lG, lH, lambdaL2) + leafGain(sumG - lG, rightH, lambdaL2) - shift;
      if (gain > bestGain) {
        bestGain = gain;
        bestThreshold = t - 1;
        bestDefaultLeft = true;
        bestLG = lG;
        bestLH = lH;
      }
    }
    if (nanC > 0) {
      // Left to right with missing values on the right, up to "every value left".
      let lG = 0;
      let lH = 0;
      let lC = 0;
      for (let t = 0; t <= valueBins - 1; t++) {
        const at = base + t * 3;
        lG += hist[at]!;
        lH += hist[at + 1]!;
        lC += hist[at + 2]!;
        const rCount = count - lC;
        const rHess = sumH - lH;
        if (lC < minDataInLeaf || lH < minSumHessianInLeaf) continue;
        if (rCount < minDataInLeaf || rHess < minSumHessianInLeaf) break;
        const gain = leafGain(lG, lH, lambdaL2) + leafGain(sumG - lG, rHess, lambdaL2) - shift;
        if (gain > bestGain) {
          bestGain = gain;
          bestThreshold = t;
          bestDefaultLeft = false;
          bestLG = lG;
          bestLH = lH;
        }
      }
    }
    if (bestThreshold < 0) return null;
    return {
      gain: bestGain,
      feature: f,
      thresholdBin: bestThreshold,
      defaultLeft: bestDefaultLeft,
      leftBins: null,
      leftG: bestLG,
      leftH: bestLH,
      leftOutput: leafOutput(bestLG, bestLH, lambdaL2),
      rightOutput: leafOutput(sumG - bestLG, sumH - bestLH, lambdaL2),
    };
  }

  private bestCategorical(leaf: Leaf, f: number, numBins: number): Split | null {
    const p = this.params;
    const hist = leaf.hist;
    const base = this.layout.offsets[f]! * 3;
    const categories = numBins - 1;
    const { sumG, sumH, count } = leaf;
    const shift = leafGain(sumG, sumH, p.lambdaL2) + p.minGainToSplit;
    // The best candidate in locals; its left bins are written out once at the end.
    let bestGain = 0;
    let bestLG = 0;
    let bestLH = 0;
    let bestL2 = 0;
    /** One-vs-rest: the bin; many-vs-many: how many of `used` from which end. */
    let bestBin = -1;
    let bestTaken = 0;
    let bestDirection = 0;

    if (categories <= p.maxCatToOnehot) {
      for (let b = 0; b < categories; b++) {
        const at = base + b * 3;
        const lG = hist[at]!;
        const lH = hist[at + 1]!;
        const lC = hist[at + 2]!;
        if (!this.valid(lC, lH, count - lC, sumH - lH)) continue;
        const gain = leafGain(lG, lH, p.lambdaL2) + leafGain(sumG - lG, sumH - lH, p.lambdaL2) - shift;
        if (gain > bestGain) {
          bestGain = gain;
          bestBin = b;
          bestLG = lG;
          bestLH = lH;
          bestL2 = p.lambdaL2;
        }
      }
      if (bestBin < 0) return null;
      return this.categoricalSplit(f, [bestBin], bestGain, bestLG, bestLH, bestL2, sumG, sumH);
    }

    // Many-vs-many: categories with enough data, ordered by their smoothed mean gradient (ties by
    // bin), by insertion into reused buffers: a leaf has few categories and this runs per leaf.
    const used = this.usedBins;
    const key = this.binKeys;
    let n = 0;
    for (let b = 0; b < categories; b++) {
      const at = base + b * 3;
      if (hist[at + 2]! < p.catSmooth) continue;
      const k = hist[at]! / (hist[at + 1]! + p.catSmooth);
      let i = n++;
      while (i > 0 && key[i - 1]! > k) {
        used[i] = used[i - 1]!;
        key[i] = key[i - 1]!;
        i--;
      }
      used[i] = b;
      key[i] = k;
    }
    const l2 = p.lambdaL2 + p.catL2;
    const maxNumCat = Math.min(p.maxCatThreshold, Math.floor((n + 1) / 2));
    for (let direction = 1; direction >= -1; direction -= 2) {
      let position = direction === 1 ? 0 : n - 1;
      let lG = 0;
      let lH = 0;
      let lC = 0;
      let groupCount = 0;
      for (let i = 0; i < n && i < maxNumCat; i++) {
        const at = base + used[position]! * 3;
        position += direction;
        lG += hist[at]!;
        lH += hist[at + 1]!;
        lC += hist[at + 2]!;
        groupCount += hist[at + 2]!;
        if (lC < p.minDataInLeaf || lH < p.minSumHessianInLeaf) continue;
        const rC = count - lC;
        if (rC < p.minDataInLeaf || rC < p.minDataPerGroup) break;
        if (sumH - lH < p.minSumHessianInLeaf) break;
        if (groupCount < p.minDataPerGroup) continue;
        groupCount = 0;
        const gain = leafGain(lG, lH, l2) + leafGain(sumG - lG, sumH - lH, l2) - shift;
        if (gain > bestGain) {
          bestGain = gain;
          bestTaken = i + 1;
          bestDirection = direction;
          bestLG = lG;
          bestLH = lH;
          bestL2 = l2;
        }
      }
    }
    if (bestTaken === 0) return null;
    const leftBins: number[] = [];
    for (let i = 0, position = bestDirection === 1 ? 0 : n - 1; i < bestTaken; i++, position += bestDirection) leftBins.push(used[position]!);
    return this.categoricalSplit(f, leftBins, bestGain, bestLG, bestLH, bestL2, sumG, sumH);
  }

  private categoricalSplit(f: number, leftBins: number[], gain: number, lG: number, lH: number, l2: number, sumG: number, sumH: number): Split {
    return {
      gain,
      feature: f,
      thresholdBin: -1,
      defaultLeft: false,
      leftBins,
      leftG: lG,
      leftH: lH,
      leftOutput: leafOutput(lG, lH, l2),
      rightOutput: leafOutput(sumG - lG, sumH - lH, l2),
    };
  }

  /** Moves the leaf's rows so the left child's come first; returns the left count. */
  private partition(leaf: Leaf, split: Split, bins: FeatureBins): number {
    const { order, scratch, leftOfBin } = this;
    const column = this.columns[split.feature]!;
    leftOfBin.fill(0, 0, bins.numBins);
    if (split.leftBins) for (const bin of split.leftBins) leftOfBin[bin] = 1;
    else {
      for (let bin = 0; bin <= split.thresholdBin; bin++) leftOfBin[bin] = 1;
      if (bins.kind === 'numeric' && bins.nanBin >= 0) leftOfBin[bins.nanBin] = split.defaultLeft ? 1 : 0;
    }
    let leftCount = 0;
    let rightCount = 0;
    // Without a branch on the data: each row is written to both places and one count advances.
    const start = leaf.start;
    for (let i = start, end = start + leaf.count; i < end; i++) {
      const row = order[i]!;
      const left = leftOfBin[column[row]!]!;
      order[start + leftCount] = row;
      scratch[rightCount] = row;
      leftCount += left;
      rightCount += 1 - left;
    }
    order.set(scratch.subarray(0, rightCount), leaf.start + leftCount);
    return leftCount;
  }

  /** Grows one tree; returns it (outputs not yet scaled) and each row's leaf. */
  /** `gradHess`: each row's gradient and hessian side by side (2·row, 2·row + 1), one cache line for both. */
  grow(gradHess: Float64Array): SerializedTree {
    const p = this.params;
    for (let i = 0; i < this.numRows; i++) this.order[i] = i;
    let sumG = 0;
    let sumH = 0;
    for (let i = 0; i < this.numRows; i++) {
      sumG += gradHess[2 * i]!;
      sumH += gradHess[2 * i + 1]!;
    }
    const root: Leaf = {
      start: 0,
      count: this.numRows,
      sumG,
      sumH,
      depth: 0,
      output: leafOutput(sumG, sumH, p.lambdaL2),
      hist: this.buildHistogram(0, this.numRows, gradHess, sumG, sumH),
      best: null,
    };
    root.best = this.findBestSplit(root);
    const leaves: Leaf[] = [root];
    const nodes: {
      feature: number;
      threshold: number;
      categorical: boolean;
      defaultLeft: boolean;
      missingType: 0 | 1 | 2;
      catSet: number[];
      count: number;
      left: number;
      right: number;
    }[] = [];
    // Where each leaf hangs: [node, side]; the root leaf hangs nowhere.
    const leafParent: [number, 'left' | 'right'][] = [[-1, 'left']];

    while (leaves.length < p.numLeaves) {
      let chosen = -1;
      for (let i = 0; i < leaves.length; i++) {
        const b = leaves[i]!.best;
        if (b && (chosen < 0 || b.gain > leaves[chosen]!.best!.gain)) chosen = i;
      }
      if (chosen < 0) break;
      const leaf = leaves[chosen]!;
      const split = leaf.best!;
      const bins = this.layout.bins[split.feature]!;
      const leftCount = this.partition(leaf, split, bins);

      const nodeIndex = nodes.length;
      const numericBins = bins.kind === 'numeric' ? bins : null;
      nodes.push({
        feature: split.feature,
        threshold: numericBins ? numericBins.upperBounds[split.thresholdBin]! : 0,
        categorical: bins.kind === 'categorical',
        defaultLeft: split.defaultLeft,
        missingType: numericBins && numericBins.nanBin >= 0 ? MissingType.NaN : MissingType.None,
        catSet: bins.kind === 'categorical' ? split.leftBins!.map((b) => bins.categories[b]!).sort((a, b) => a - b) : [],
        count: leaf.count,
        left: ~chosen,
        right: ~leaves.length,
      });
      const [parent, side] = leafParent[chosen]!;
      if (parent >= 0) nodes[parent]![side] = nodeIndex;
      leafParent[chosen] = [nodeIndex, 'left'];
      leafParent.push([nodeIndex, 'right']);

      const left: Leaf = {
        start: leaf.start,
        count: leftCount,
        sumG: split.leftG,
        sumH: split.leftH,
        depth: leaf.depth + 1,
        output: split.leftOutput,
        hist: leaf.hist,
        best: null,
      };
      const right: Leaf = {
        start: leaf.start + leftCount,
        count: leaf.count - leftCount,
        sumG: leaf.sumG - split.leftG,
        sumH: leaf.sumH - split.leftH,
        depth: leaf.depth + 1,
        output: split.rightOutput,
        hist: leaf.hist,
        best: null,
      };
      const [small, large] = left.count <= right.count ? [left, right] : [right, left];
      small.hist = this.buildHistogram(small.start, small.count, gradHess, small.sumG, small.sumH);
      const parentHist = leaf.hist;
      for (let i = 0; i < parentHist.length; i++) parentHist[i]! -= small.hist[i]!;
      large.hist = parentHist;
      left.best = this.findBestSplit(left);
      right.best = this.findBestSplit(right);
      leaves[chosen] = left;
      leaves.push(right);
    }

    this.leafStarts = leaves.map((leaf) => leaf.start);
    this.leafCounts = leaves.map((leaf) => leaf.count);
    for (const leaf of leaves) this.freeHistograms.push(leaf.hist);
    const catSets: number[][] = [];
    const tree: SerializedTree = {
      num_leaves: leaves.length,
      split_feature: nodes.map((n) => n.feature),
      threshold: nodes.map((n) => (n.categorical ? catSets.push(n.catSet) - 1 : n.threshold === Infinity ? 1e300 : n.threshold)),
      decision_type: nodes.map((n) => (n.categorical ? DecisionType.Categorical : DecisionType.Numeric)),
      default_left: nodes.map((n) => (n.defaultLeft ? 1 : 0)),
      missing_type: nodes.map((n) => (n.categorical ? MissingType.None : n.missingType)),
      left_child: nodes.map((n) => n.left),
      right_child: nodes.map((n) => n.right),
      internal_count: nodes.map((n) => n.count),
      cat_sets: catSets,
      leaf_value: leaves.map((l) => l.output),
      leaf_count: leaves.map((l) => l.count),
    };
    return tree;
  }

  /** Adds each leaf's value (index-aligned with the last grown tree's leaves) to its rows' scores. */
  addLeafValues(scores: Float64Array, values: readonly number[]): void {
    const order = this.order;
    for (let leaf = 0; leaf < this.leafStarts.length; leaf++) {
      const value = values[leaf]!;
      for (let i = this.leafStarts[leaf]!, end = i + this.leafCounts[leaf]!; i < end; i++) scores[order[i]!]! += value;
    }
  }
}

/**
 * Bins a column of whole numbers in a modest span through a lookup table; bins are consecutive
 * ranges, so the table is filled by walking them alongside the values instead of searching each.
 */
function binWholeNumbers(bins: NumericBins, values: Float64Array, { min, max }: { min: number; max: number }, column: Uint8Array): void {
  const binOf = new Uint8Array(max - min + 1);
  const bounds = bins.upperBounds;
  for (let v = min, b = valueToBin(bins, min); v <= max; v++) {
    while (v > bounds[b]!) b++;
    binOf[v - min] = b;
  }
  const nanBin = valueToBin(bins, NaN);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    column[i] = v === v ? binOf[v - min]! : nanBin;
  }
}

/**
 * Bins every feature and stores the bins twice: column by column (one byte each) for splits, and
 * row by row for histograms, where a row lists only the features whose bin is not that feature's
 * most frequent one (as LightGBM's histograms skip it), each as its histogram index (global bin
 * × 3). A histogram then recovers the most frequent bins as the leaf's totals minus the rest.
 */
export function binDataset(data: TrainingData, params: Pick<TrainParams, 'maxBin' | 'minDataInBin'>) {
  const options = { ...defaultBinning, maxBin: params.maxBin, minDataInBin: params.minDataInBin };
  const bins = data.columns.map((column, f) =>
    data.categorical[f] ? findCategoricalBins(column, options) : findNumericBins(column, options),
  );
  const numFeatures = bins.length;
  const numRows = data.labels.length;
  const columns = bins.map((featureBins, f) => {
    if (featureBins.numBins > 256) throw new Error(`feature ${f} has ${featureBins.numBins} bins; at most 256 fit a byte`);
    const values = data.columns[f]!;
    const column = new Uint8Array(numRows);
    const range = featureBins.kind === 'numeric' ? denseIntegerRange(values) : null;
    if (range && featureBins.kind === 'numeric') binWholeNumbers(featureBins, values, range, column);
    else for (let i = 0; i < numRows; i++) column[i] = valueToBin(featureBins, values[i]!);
    return column;
  });
  const layout = new HistogramLayout(bins);
  const { offsets, totalBins } = layout;
  // Rows per global bin over all rows (the root's counts in every tree), and from them each
  // feature's most frequent bin (the lowest among equals).
  const binCounts = new Float64Array(totalBins);
  columns.forEach((column, f) => {
    for (let i = 0; i < numRows; i++) binCounts[offsets[f]! + column[i]!]!++;
  });
  let stored = numRows * numFeatures;
  const mostFrequent = Int32Array.from(bins, (featureBins, f) => {
    let best = 0;
    for (let b = 1; b < featureBins.numBins; b++) if (binCounts[offsets[f]! + b]! > binCounts[offsets[f]! + best]!) best = b;
    stored -= binCounts[offsets[f]! + best]!;
    return best;
  });
  // 16 bits hold histogram indices for up to 21,845 bins in all.
  const entries = totalBins * 3 <= 0xffff ? new Uint16Array(stored) : new Uint32Array(stored);
  const rowStart = new Int32Array(numRows + 1);
  let k = 0;
  for (let i = 0; i < numRows; i++) {
    for (let f = 0; f < numFeatures; f++) {
      const bin = columns[f]![i]!;
      if (bin !== mostFrequent[f]) entries[k++] = (offsets[f]! + bin) * 3;
    }
    rowStart[i + 1] = k;
  }
  return { layout, columns, binCounts, mostFrequent, rows: { rowStart, entries } };
}

/** Binary log-loss gradient and hessian of every row at the current scores, into `gradHess`. */
function logLossGradients(scores: Float64Array, labels: Float64Array, weights: Float64Array | null, gradHess: Float64Array): void {
  const n = scores.length;
  if (weights) {
    for (let i = 0; i < n; i++) {
      const prob = 1 / (1 + exp(-scores[i]!));
      const w = weights[i]!;
      gradHess[2 * i] = (prob - labels[i]!) * w;
      gradHess[2 * i + 1] = prob * (1 - prob) * w;
    }
    return;
  }
  for (let i = 0; i < n; i++) {
    const prob = 1 / (1 + exp(-scores[i]!));
    gradHess[2 * i] = prob - labels[i]!;
    gradHess[2 * i + 1] = prob * (1 - prob);
  }
}

/**
 * Trains a binary GBDT. Returns a validated `xdl-gbdt` model whose first tree carries the
 * initial score, so predictions are Σ leaf values exactly like an imported LightGBM model.
 */
export function trainGbdt(data: TrainingData, paramsInput: TrainParamsInput, encoding: EncodingInfo = { categoryCodes: {} }): GbdtModel {
  const params = trainParamsSchema.parse(paramsInput);
  const numRows = data.labels.length;
  if (numRows === 0) throw new Error('cannot train on zero rows');
  if (data.columns.some((c) => c.length !== numRows)) throw new Error('every column must have one value per label');
  // Typed copies: the loops below then see one array kind whatever the caller passed.
  const labels = Float64Array.from(data.labels);
  const weights = data.weights ? Float64Array.from(data.weights) : null;

  const { layout, columns, binCounts, mostFrequent, rows } = binDataset(data, params);
  const grower = new TreeGrower(rows, columns, binCounts, mostFrequent, layout, params, numRows);

  let sumW = 0;
  let sumWY = 0;
  for (let i = 0; i < numRows; i++) {
    const w = weights ? weights[i]! : 1;
    sumW += w;
    sumWY += w * labels[i]!;
  }
  const mean = sumWY / sumW;
  const initScore = mean > 0 && mean < 1 ? log(mean / (1 - mean)) : 0;

  const scores = new Float64Array(numRows).fill(initScore);
  const gradHess = new Float64Array(2 * numRows);
  const trees: SerializedTree[] = [];
  for (let t = 0; t < params.numTrees; t++) {
    logLossGradients(scores, labels, weights, gradHess);
    const tree = grower.grow(gradHess);
    tree.leaf_value = tree.leaf_value.map((v) => v * params.learningRate);
    grower.addLeafValues(scores, tree.leaf_value);
    if (t === 0) tree.leaf_value = tree.leaf_value.map((v) => v + initScore);
    trees.push(tree);
  }

  // Built here to the schema's shape; whoever loads it later validates it (compileModel does).
  const model: GbdtModel = {
    format: MODEL_FORMAT,
    version: MODEL_FORMAT_VERSION,
    objective: 'binary',
    feature_names: [...data.featureNames],
    categorical_features: data.featureNames.filter((_, f) => data.categorical[f]),
    category_codes: encoding.categoryCodes,
    trees,
    metadata: { source: 'xdl-trainer', params, init_score: initScore, training_rows: numRows },
  };
  return model;
}
