/**
 * Exact path-dependent TreeSHAP (Lundberg, Erion, Chen et al., "From local explanations to global
 * understanding with explainable AI for trees", Nature Machine Intelligence 2020, Algorithm 2),
 * as LightGBM's `Tree::TreeSHAP` computes it for `pred_contrib`: node cover is the training row
 * count, and the base value is the sum of the trees' count-weighted mean leaf values.
 *
 * The unique path lives in preallocated typed arrays, one slice per recursion depth, so an
 * explanation allocates nothing per node.
 */
import type { CompiledModel, CompiledTree } from './model';
import { decide } from './predict';

/** Scratch space for one model; reuse it across rows. */
export type ShapWorkspace = {
  feature: Int32Array;
  zero: Float64Array;
  one: Float64Array;
  weight: Float64Array;
};

export function createShapWorkspace(model: CompiledModel): ShapWorkspace {
  const maxPath = model.maxDepth + 2;
  const size = (maxPath * (maxPath + 1)) / 2 + maxPath;
  return {
    feature: new Int32Array(size),
    zero: new Float64Array(size),
    one: new Float64Array(size),
    weight: new Float64Array(size),
  };
}

function extendPath(w: ShapWorkspace, at: number, depth: number, zero: number, one: number, feature: number): void {
  w.feature[at + depth] = feature;
  w.zero[at + depth] = zero;
  w.one[at + depth] = one;
  w.weight[at + depth] = depth === 0 ? 1 : 0;
  for (let i = depth - 1; i >= 0; i--) {
    w.weight[at + i + 1]! += (one * w.weight[at + i]! * (i + 1)) / (depth + 1);
    w.weight[at + i] = (zero * w.weight[at + i]! * (depth - i)) / (depth + 1);
  }
}

function unwindPath(w: ShapWorkspace, at: number, depth: number, pathIndex: number): void {
  const one = w.one[at + pathIndex]!;
  const zero = w.zero[at + pathIndex]!;
  let nextOnePortion = w.weight[at + depth]!;
  for (let i = depth - 1; i >= 0; i--) {
    if (one !== 0) {
      const tmp = w.weight[at + i]!;
      w.weight[at + i] = (nextOnePortion * (depth + 1)) / ((i + 1) * one);
      nextOnePortion = tmp - (w.weight[at + i]! * zero * (depth - i)) / (depth + 1);
    } else {
      w.weight[at + i] = (w.weight[at + i]! * (depth + 1)) / (zero * (depth - i));
    }
  }
  for (let i = pathIndex; i < depth; i++) {
    w.feature[at + i] = w.feature[at + i + 1]!;
    w.zero[at + i] = w.zero[at + i + 1]!;
    w.one[at + i] = w.one[at + i + 1]!;
  }
}

function unwoundPathSum(w: ShapWorkspace, at: number, depth: number, pathIndex: number): number {
  const one = w.one[at + pathIndex]!;
  const zero = w.zero[at + pathIndex]!;
  let nextOnePortion = w.weight[at + depth]!;
  let total = 0;
  if (one !== 0) {
    for (let i = depth - 1; i >= 0; i--) {
      const tmp = nextOnePortion / ((i + 1) * one);
      total += tmp;
      nextOnePortion = w.weight[at + i]! - tmp * zero * (depth - i);
    }
  } else {
    for (let i = depth - 1; i >= 0; i--) total += w.weight[at + i]! / (zero * (depth - i));
  }
  return total * (depth + 1);
}

const cover = (tree: CompiledTree, node: number) => (node >= 0 ? tree.internalCount[node]! : tree.leafCount[~node]!);

function recurse(
  tree: CompiledTree,
  x: Float64Array,
  phi: Float64Array,
  w: ShapWorkspace,
  node: number,
  parentAt: number,
  depth: number,
  parentZero: number,
  parentOne: number,
  parentFeature: number,
): void {
  // Each depth gets its own copy of the path, right after the parent's.
  const at = parentAt + depth;
  if (depth > 0) {
    w.feature.copyWithin(at, parentAt, parentAt + depth);
    w.zero.copyWithin(at, parentAt, parentAt + depth);
    w.one.copyWithin(at, parentAt, parentAt + depth);
    w.weight.copyWithin(at, parentAt, parentAt + depth);
  }
  extendPath(w, at, depth, parentZero, parentOne, parentFeature);

  if (node < 0) {
    const leafValue = tree.leafValue[~node]!;
    for (let i = 1; i <= depth; i++) {
      const weight = unwoundPathSum(w, at, depth, i);
      phi[w.feature[at + i]!]! += weight * (w.one[at + i]! - w.zero[at + i]!) * leafValue;
    }
    return;
  }

  const splitFeature = tree.splitFeature[node]!;
  const hot = decide(tree, node, x);
  const cold = hot === tree.left[node] ? tree.right[node]! : tree.left[node]!;
  const nodeCover = cover(tree, node);
  const hotZero = cover(tree, hot) / nodeCover;
  const coldZero = cover(tree, cold) / nodeCover;
  let incomingZero = 1;
  let incomingOne = 1;

  // A feature already on the path is unwound so this split can be redone with both fractions.
  let pathIndex = 0;
  for (; pathIndex <= depth; pathIndex++) {
    if (w.feature[at + pathIndex] === splitFeature) break;
  }
  let nextDepth = depth;
  if (pathIndex !== depth + 1) {
    incomingZero = w.zero[at + pathIndex]!;
    incomingOne = w.one[at + pathIndex]!;
    unwindPath(w, at, depth, pathIndex);
    nextDepth -= 1;
  }

  recurse(tree, x, phi, w, hot, at, nextDepth + 1, hotZero * incomingZero, incomingOne, splitFeature);
  recurse(tree, x, phi, w, cold, at, nextDepth + 1, coldZero * incomingZero, 0, splitFeature);
}

/**
 * SHAP values of one encoded row: `numFeatures` contributions followed by the base value, so the
 * array sums to the raw score (LightGBM's `pred_contrib` layout).
 */
export function treeShap(model: CompiledModel, x: Float64Array, workspace = createShapWorkspace(model)): Float64Array {
  const phi = new Float64Array(model.numFeatures + 1);
  for (const tree of model.trees) {
    phi[model.numFeatures]! += tree.expectedValue;
    if (tree.numLeaves > 1) recurse(tree, x, phi, workspace, 0, 0, 0, 1, 1, -1);
  }
  return phi;
}
