/**
 * Prediction by QuickScorer (Lucchese et al., "QuickScorer: a Fast Algorithm to Rank Documents with
 * Additive Ensembles of Regression Trees", SIGIR 2015). Walking a tree costs a hard-to-predict branch
 * per level; QuickScorer instead visits the splits feature by feature and only the ones a row fails.
 *
 * Leaves of each tree are numbered left to right and a tree's state is a bitmask of the leaves still
 * possible. A split the row fails (it goes right) rules out its left subtree: the mask is ANDed with
 * a constant that clears those leaves. Once every failed split has been applied, the leaf reached is
 * the lowest set bit, so trees must have at most 32 leaves. The failed splits of one feature are
 * found without branching on tree structure:
 * - numeric splits, sorted by threshold: a value fails exactly those with threshold < value, a prefix;
 * - a missing value fails a fixed list (the splits whose missing side is right), as does a value in
 *   ±kZeroThreshold for zero-as-missing splits;
 * - categorical splits: per category code, the fixed list of splits whose set lacks it, and one list
 *   (all of them) for NaN, negative and out-of-range codes.
 *
 * Decisions are exactly `goesLeft`'s, and the score adds leaf values tree by tree in the same order,
 * so it equals the tree walk bit for bit.
 */
import { inCategorySet, SplitKind, type Forest } from './forest';
import { ZERO_THRESHOLD } from './model';

const MAX_LEAVES = 32;
/** Category lists take codes × splits entries per feature; past this a model keeps the tree walk. */
const MAX_CATEGORY_ENTRIES = 1 << 20;

/** Per feature slot: offsets into the entry arrays (see `QuickScorer.slots`). */
const Slot = {
  feature: 0,
  plainFrom: 1,
  plainTo: 2,
  zeroFrom: 3,
  zeroTo: 4,
  plainMissingFrom: 5,
  plainMissingTo: 6,
  zeroMissingFrom: 7,
  zeroMissingTo: 8,
  /** -1 when the feature has no categorical split. */
  codeBase: 9,
  codeCount: 10,
  size: 11,
} as const;

export type QuickScorer = {
  numTrees: number;
  /** Per tree, the first of its leaves (left to right) in `leafValue`. */
  leafStart: Int32Array;
  leafValue: Float64Array;
  /** `Slot.size` integers per feature that some split uses. */
  slots: Int32Array;
  /** Threshold-sorted numeric splits: threshold, tree and the mask that clears the left subtree. */
  cutThreshold: Float64Array;
  cutTree: Int32Array;
  cutMask: Int32Array;
  /** Fixed lists of failed splits (missing values, category codes): tree and mask. */
  listTree: Int32Array;
  listMask: Int32Array;
  /** Categorical slot s, code c in [0, codeCount]: list range codeStart[base+c]..codeStart[base+c+1]; c = codeCount is "none of the codes". */
  codeStart: Int32Array;
  /** Per-row tree masks, reused (prediction is synchronous). */
  state: Int32Array;
};

type Cut = { threshold: number; tree: number; mask: number };
type Listed = { tree: number; mask: number };
type FeatureSplits = { plain: Cut[]; zero: Cut[]; plainMissing: Listed[]; zeroMissing: Listed[]; categorical: { node: number; tree: number; mask: number }[] };

/**
 * The QuickScorer form of a forest, or null when a tree has more than 32 leaves or category codes
 * span too wide a range (those models keep the tree walk).
 */
export function buildQuickScorer(f: Forest): QuickScorer | null {
  const numTrees = f.roots.length;
  const leafStart = new Int32Array(numTrees + 1);
  const leafValue = new Float64Array(f.leafValue.length);
  const byFeature = new Map<number, FeatureSplits>();
  const splitsOf = (feature: number) => {
    let s = byFeature.get(feature);
    if (!s) byFeature.set(feature, (s = { plain: [], zero: [], plainMissing: [], zeroMissing: [], categorical: [] }));
    return s;
  };

  let leafAt = 0;
  for (let t = 0; t < numTrees; t++) {
    leafStart[t] = leafAt;
    const internal = f.nodeStart[t + 1]! - f.nodeStart[t]!;
    if (internal + 1 > MAX_LEAVES) return null;
    // In-order walk: numbers the leaves left to right and returns the number of leaves under `child`.
    let position = 0;
    const visit = (child: number): number => {
      if (child < 0) {
        leafValue[leafAt + position++] = f.leafValue[~child]!;
        return 1;
      }
      const first = position;
      const leftLeaves = visit(f.left[child]!);
      let mask = 0;
      for (let p = first; p < first + leftLeaves; p++) mask |= 1 << p;
      mask = ~mask;
      const splits = splitsOf(f.feature[child]!);
      const kind = f.kind[child]!;
      if (kind === SplitKind.Categorical) {
        splits.categorical.push({ node: child, tree: t, mask });
      } else {
        (kind === SplitKind.Plain ? splits.plain : splits.zero).push({ threshold: f.threshold[child]!, tree: t, mask });
        if (f.missingLeft[child] === 0) (kind === SplitKind.Plain ? splits.plainMissing : splits.zeroMissing).push({ tree: t, mask });
      }
      return leftLeaves + visit(f.right[child]!);
    };
    visit(f.roots[t]!);
    leafAt += internal + 1;
  }
  leafStart[numTrees] = leafAt;

  const features = [...byFeature.keys()].sort((a, b) => a - b);
  const slots = new Int32Array(features.length * Slot.size);
  const cuts: Cut[] = [];
  const listed: Listed[] = [];
  const codeStart: number[] = [];
  let categoryEntries = 0;
  const pushListed = (entries: Listed[], from: number, to: number, s: number) => {
    slots[s + from] = listed.length;
    listed.push(...entries);
    slots[s + to] = listed.length;
  };
  const pushCuts = (entries: Cut[], from: number, to: number, s: number) => {
    slots[s + from] = cuts.length;
    cuts.push(...entries.sort((a, b) => a.threshold - b.threshold));
    slots[s + to] = cuts.length;
  };
  features.forEach((feature, i) => {
    const s = i * Slot.size;
    const splits = byFeature.get(feature)!;
    slots[s + Slot.feature] = feature;
    pushCuts(splits.plain, Slot.plainFrom, Slot.plainTo, s);
    pushCuts(splits.zero, Slot.zeroFrom, Slot.zeroTo, s);
    pushListed(splits.plainMissing, Slot.plainMissingFrom, Slot.plainMissingTo, s);
    pushListed(splits.zeroMissing, Slot.zeroMissingFrom, Slot.zeroMissingTo, s);
    const categorical = splits.categorical;
    // Codes at or past every set's last word fail every split, like NaN and negative codes.
    const codeCount = categorical.reduce((n, c) => Math.max(n, f.bitsWords[c.node]! * 32), 0);
    categoryEntries += (codeCount + 1) * categorical.length;
    if (categoryEntries > MAX_CATEGORY_ENTRIES) return;
    slots[s + Slot.codeBase] = categorical.length === 0 ? -1 : codeStart.length;
    slots[s + Slot.codeCount] = codeCount;
    if (categorical.length === 0) return;
    for (let code = 0; code <= codeCount; code++) {
      codeStart.push(listed.length);
      for (const c of categorical) {
        if (!inCategorySet(f, c.node, code)) listed.push({ tree: c.tree, mask: c.mask });
      }
    }
    codeStart.push(listed.length);
  });
  if (categoryEntries > MAX_CATEGORY_ENTRIES) return null;

  return {
    numTrees,
    leafStart,
    leafValue,
    slots,
    cutThreshold: Float64Array.from(cuts, (c) => c.threshold),
    cutTree: Int32Array.from(cuts, (c) => c.tree),
    cutMask: Int32Array.from(cuts, (c) => c.mask),
    listTree: Int32Array.from(listed, (l) => l.tree),
    listMask: Int32Array.from(listed, (l) => l.mask),
    codeStart: Int32Array.from(codeStart),
    state: new Int32Array(numTrees),
  };
}

function applyList(q: QuickScorer, from: number, to: number): void {
  const { state, listTree, listMask } = q;
  for (let k = from; k < to; k++) state[listTree[k]!]! &= listMask[k]!;
}

/** Applies the numeric splits in [from, to) whose threshold is below `value`. */
function applyCuts(q: QuickScorer, from: number, to: number, value: number): void {
  const { state, cutThreshold, cutTree, cutMask } = q;
  for (let k = from; k < to && cutThreshold[k]! < value; k++) state[cutTree[k]!]! &= cutMask[k]!;
}

/** Raw score of `x`: the same sum, in the same order, as walking each tree. */
export function quickScore(q: QuickScorer, x: Float64Array): number {
  const { slots, state, codeStart } = q;
  state.fill(-1);
  for (let s = 0; s < slots.length; s += Slot.size) {
    const value = x[slots[s + Slot.feature]!]!;
    if (value === value) {
      applyCuts(q, slots[s + Slot.plainFrom]!, slots[s + Slot.plainTo]!, value);
      if (value > ZERO_THRESHOLD || value < -ZERO_THRESHOLD) applyCuts(q, slots[s + Slot.zeroFrom]!, slots[s + Slot.zeroTo]!, value);
      else applyList(q, slots[s + Slot.zeroMissingFrom]!, slots[s + Slot.zeroMissingTo]!);
    } else {
      applyList(q, slots[s + Slot.plainMissingFrom]!, slots[s + Slot.plainMissingTo]!);
      applyList(q, slots[s + Slot.zeroMissingFrom]!, slots[s + Slot.zeroMissingTo]!);
    }
    const codeBase = slots[s + Slot.codeBase]!;
    if (codeBase >= 0) {
      // LightGBM truncates toward zero (-0.5 is code 0); NaN fails both comparisons.
      const code = Math.trunc(value);
      const codeCount = slots[s + Slot.codeCount]!;
      const c = codeBase + (code >= 0 && code < codeCount ? code : codeCount);
      applyList(q, codeStart[c]!, codeStart[c + 1]!);
    }
  }
  const { leafStart, leafValue } = q;
  let score = 0;
  for (let t = 0; t < q.numTrees; t++) {
    const remaining = state[t]!;
    score += leafValue[leafStart[t]! + 31 - Math.clz32(remaining & -remaining)]!;
  }
  return score;
}
