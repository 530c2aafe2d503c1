/**
 * Tree-ensemble inference with LightGBM 4.6's decision rules (`include/LightGBM/tree.h`):
 * numeric splits send NaN to 0 unless missing_type is NaN, take the default side for missing
 * values, else go left iff x <= threshold; categorical splits send NaN and negatives right and go
 * left iff the truncated code is in the node's set.
 */
import { forestOf, goesLeft } from './forest';
import { MissingType, ZERO_THRESHOLD, type CompiledModel, type CompiledTree } from './model';
import { buildQuickScorer, quickScore, type QuickScorer } from './quick-scorer';
import { exp } from './exact-math';

/** Whether `value` is among `codes[from .. from + length)`, which are sorted. */
function inSortedSet(codes: Int32Array, from: number, length: number, value: number): boolean {
  let lo = from;
  let hi = from + length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = codes[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** The child (the tree's node index, or ~leaf) that `x` follows at the tree's internal node `node`. */
export function decide(model: CompiledModel, tree: CompiledTree, node: number, x: Float64Array): number {
  const { splitFeature, isCategorical, missingType: missingTypes, defaultLeft, threshold, left, right } = model.nodes;
  const at = tree.nodeBase + node;
  let value = x[splitFeature[at]!]!;
  if (isCategorical[at]) {
    if (Number.isNaN(value)) return right[at]!;
    const code = Math.trunc(value);
    if (code < 0) return right[at]!;
    const { start, length, codes } = model.categorySets;
    const set = tree.catSetBase + threshold[at]!;
    return inSortedSet(codes, start[set]!, length[set]!, code) ? left[at]! : right[at]!;
  }
  const missingType = missingTypes[at]!;
  if (Number.isNaN(value) && missingType !== MissingType.NaN) value = 0;
  if (
    (missingType === MissingType.Zero && value >= -ZERO_THRESHOLD && value <= ZERO_THRESHOLD) ||
    (missingType === MissingType.NaN && Number.isNaN(value))
  ) {
    return defaultLeft[at] ? left[at]! : right[at]!;
  }
  return value <= threshold[at]! ? left[at]! : right[at]!;
}

/** The leaf index (the tree's own) `x` reaches in one tree. */
export function leafIndex(model: CompiledModel, tree: CompiledTree, x: Float64Array): number {
  if (tree.numLeaves <= 1) return 0;
  let node = 0;
  while (node >= 0) node = decide(model, tree, node, x);
  return ~node;
}

const scorers = new WeakMap<CompiledModel, QuickScorer | null>();

/** Raw score: the sum of the leaf values `x` reaches, tree by tree (by QuickScorer where it applies). */
export function predictRaw(model: CompiledModel, x: Float64Array): number {
  let scorer = scorers.get(model);
  if (scorer === undefined) scorers.set(model, (scorer = buildQuickScorer(forestOf(model))));
  return scorer ? quickScore(scorer, x) : walkForest(model, x);
}

/** Raw score by walking every tree from its root: the fallback and the reference for QuickScorer. */
export function walkForest(model: CompiledModel, x: Float64Array): number {
  const forest = forestOf(model);
  const { roots, left, right, leafValue } = forest;
  let score = 0;
  for (let t = 0; t < roots.length; t++) {
    let node = roots[t]!;
    while (node >= 0) node = goesLeft(forest, node, x) ? left[node]! : right[node]!;
    score += leafValue[~node]!;
  }
  return score;
}

export const sigmoid = (raw: number) => 1 / (1 + exp(-raw));

/** Probability of the positive class (binary objective). */
export const predictProbability = (model: CompiledModel, x: Float64Array) => sigmoid(predictRaw(model, x));

/** The label a probability of the positive class predicts: positive from 0.5 on, as every serve decides it. */
export const predictedLabel = (probability: number): 0 | 1 => (probability >= 0.5 ? 1 : 0);
