/**
 * Tree-ensemble inference with LightGBM 4.6's decision rules (`include/LightGBM/tree.h`):
 * numeric splits send NaN to 0 unless missing_type is NaN, take the default side for missing
 * values, else go left iff x <= threshold; categorical splits send NaN and negatives right and go
 * left iff the truncated code is in the node's set.
 */
import { forestOf, goesLeft } from './forest';
import { MissingType, ZERO_THRESHOLD, type CompiledModel, type CompiledTree } from './model';
import { buildQuickScorer, quickScore, type QuickScorer } from './quick-scorer';

function inSortedSet(set: Int32Array, value: number): boolean {
  let lo = 0;
  let hi = set.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = set[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** The child (node index, or ~leaf) that `x` follows at internal node `node`. */
export function decide(tree: CompiledTree, node: number, x: Float64Array): number {
  let value = x[tree.splitFeature[node]!]!;
  if (tree.isCategorical[node]) {
    if (Number.isNaN(value)) return tree.right[node]!;
    const code = Math.trunc(value);
    if (code < 0) return tree.right[node]!;
    return inSortedSet(tree.catSets[tree.threshold[node]!]!, code) ? tree.left[node]! : tree.right[node]!;
  }
  const missingType = tree.missingType[node]!;
  if (Number.isNaN(value) && missingType !== MissingType.NaN) value = 0;
  if (
    (missingType === MissingType.Zero && value >= -ZERO_THRESHOLD && value <= ZERO_THRESHOLD) ||
    (missingType === MissingType.NaN && Number.isNaN(value))
  ) {
    return tree.defaultLeft[node] ? tree.left[node]! : tree.right[node]!;
  }
  return value <= tree.threshold[node]! ? tree.left[node]! : tree.right[node]!;
}

/** The leaf index `x` reaches in one tree. */
export function leafIndex(tree: CompiledTree, x: Float64Array): number {
  if (tree.numLeaves <= 1) return 0;
  let node = 0;
  while (node >= 0) node = decide(tree, node, x);
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

export const sigmoid = (raw: number) => 1 / (1 + Math.exp(-raw));

/** Probability of the positive class (binary objective). */
export const predictProbability = (model: CompiledModel, x: Float64Array) => sigmoid(predictRaw(model, x));
