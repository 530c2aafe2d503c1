/**
 * Reference TreeSHAP: the original exact path-dependent algorithm (Lundberg, Erion, Chen et al., "From local explanations to global
 * understanding with explainable AI for trees", Nature Machine Intelligence 2020, Algorithm 2),
 * as LightGBM's `Tree::TreeSHAP` computes it for `pred_contrib`: node cover is the training row
 * count, and the base value is the sum of the trees' count-weighted mean leaf values.
 *
 * The unique path lives in preallocated typed arrays, one slice per recursion depth, so an
 * explanation allocates nothing per node; divisions by small integers use a reciprocal table
 * (results agree with LightGBM's divisions to a few ulps).
 */
import type { CompiledModel, CompiledTree } from './model';
import { decide } from './predict';

/** Scratch space for one model; reuse it across rows. */
export type ReferenceWorkspace = {
  feature: Int32Array;
  zero: Float64Array;
  one: Float64Array;
  weight: Float64Array;
};

export function createReferenceWorkspace(model: CompiledModel): ReferenceWorkspace {
  const maxPath = model.maxDepth + 2;
  if (RECIPROCAL.length <= maxPath + 1) RECIPROCAL = reciprocals(2 * maxPath + 2);
  const size = (maxPath * (maxPath + 1)) / 2 + maxPath;
  return {
    feature: new Int32Array(size),
    zero: new Float64Array(size),
    one: new Float64Array(size),
    weight: new Float64Array(size),
  };
}

const reciprocals = (n: number) => Float64Array.from({ length: n }, (_, k) => (k === 0 ? Infinity : 1 / k));
/** 1/k for every k a path index can reach, so the hot loops multiply instead of divide. */
let RECIPROCAL = reciprocals(256);

function extendPath(
  feature: Int32Array,
  zeros: Float64Array,
  ones: Float64Array,
  weight: Float64Array,
  at: number,
  depth: number,
  zero: number,
  one: number,
  splitFeature: number,
): void {
  feature[at + depth] = splitFeature;
  zeros[at + depth] = zero;
  ones[at + depth] = one;
  weight[at + depth] = depth === 0 ? 1 : 0;
  const scale = RECIPROCAL[depth + 1]!;
  for (let i = depth - 1; i >= 0; i--) {
    const w = weight[at + i]!;
    weight[at + i + 1]! += one * w * (i + 1) * scale;
    weight[at + i] = zero * w * (depth - i) * scale;
  }
}

function unwindPath(
  feature: Int32Array,
  zeros: Float64Array,
  ones: Float64Array,
  weight: Float64Array,
  at: number,
  depth: number,
  pathIndex: number,
): void {
  const one = ones[at + pathIndex]!;
  const zero = zeros[at + pathIndex]!;
  let nextOnePortion = weight[at + depth]!;
  if (one !== 0) {
    const invOne = 1 / one;
    const scale = RECIPROCAL[depth + 1]!;
    for (let i = depth - 1; i >= 0; i--) {
      const tmp = weight[at + i]!;
      const w = nextOnePortion * (depth + 1) * RECIPROCAL[i + 1]! * invOne;
      weight[at + i] = w;
      nextOnePortion = tmp - w * zero * (depth - i) * scale;
    }
  } else {
    const invZero = 1 / zero;
    for (let i = depth - 1; i >= 0; i--) {
      weight[at + i] = weight[at + i]! * (depth + 1) * invZero * RECIPROCAL[depth - i]!;
    }
  }
  for (let i = pathIndex; i < depth; i++) {
    feature[at + i] = feature[at + i + 1]!;
    zeros[at + i] = zeros[at + i + 1]!;
    ones[at + i] = ones[at + i + 1]!;
  }
}

function unwoundPathSum(zeros: Float64Array, ones: Float64Array, weight: Float64Array, at: number, depth: number, pathIndex: number): number {
  const one = ones[at + pathIndex]!;
  const zero = zeros[at + pathIndex]!;
  let total = 0;
  if (one !== 0) {
    const invOne = 1 / one;
    let nextOnePortion = weight[at + depth]!;
    for (let i = depth - 1; i >= 0; i--) {
      const tmp = nextOnePortion * RECIPROCAL[i + 1]! * invOne;
      total += tmp;
      nextOnePortion = weight[at + i]! - tmp * zero * (depth - i);
    }
  } else {
    const invZero = 1 / zero;
    for (let i = depth - 1; i >= 0; i--) total += weight[at + i]! * invZero * RECIPROCAL[depth - i]!;
  }
  return total * (depth + 1);
}

const cover = (model: CompiledModel, tree: CompiledTree, node: number) =>
  node >= 0 ? model.nodes.internalCount[tree.nodeBase + node]! : model.leaves.count[tree.leafBase + ~node]!;

/** Adds one tree's contributions (not its expected value) to `phi`. */
export function referenceTreeShap(model: CompiledModel, tree: CompiledTree, x: Float64Array, phi: Float64Array, workspace: ReferenceWorkspace): void {
  if (tree.numLeaves > 1) recurse(model, tree, x, phi, workspace, 0, 0, 0, 1, 1, -1);
}

function recurse(
  model: CompiledModel,
  tree: CompiledTree,
  x: Float64Array,
  phi: Float64Array,
  w: ReferenceWorkspace,
  node: number,
  parentAt: number,
  depth: number,
  parentZero: number,
  parentOne: number,
  parentFeature: number,
): void {
  const { feature, zero: zeros, one: ones, weight } = w;
  // Each depth gets its own copy of the path, right after the parent's.
  const at = parentAt + depth;
  for (let i = 0; i < depth; i++) {
    feature[at + i] = feature[parentAt + i]!;
    zeros[at + i] = zeros[parentAt + i]!;
    ones[at + i] = ones[parentAt + i]!;
    weight[at + i] = weight[parentAt + i]!;
  }
  extendPath(feature, zeros, ones, weight, at, depth, parentZero, parentOne, parentFeature);

  if (node < 0) {
    const leafValue = model.leaves.value[tree.leafBase + ~node]!;
    for (let i = 1; i <= depth; i++) {
      const pathWeight = unwoundPathSum(zeros, ones, weight, at, depth, i);
      phi[feature[at + i]!]! += pathWeight * (ones[at + i]! - zeros[at + i]!) * leafValue;
    }
    return;
  }

  const at0 = tree.nodeBase + node;
  const splitFeature = model.nodes.splitFeature[at0]!;
  const hot = decide(model, tree, node, x);
  const cold = hot === model.nodes.left[at0] ? model.nodes.right[at0]! : model.nodes.left[at0]!;
  const invCover = 1 / model.nodes.internalCount[at0]!;
  const hotZero = cover(model, tree, hot) * invCover;
  const coldZero = cover(model, tree, cold) * invCover;
  let incomingZero = 1;
  let incomingOne = 1;

  // A feature already on the path is unwound so this split can be redone with both fractions.
  let pathIndex = 0;
  for (; pathIndex <= depth; pathIndex++) {
    if (feature[at + pathIndex] === splitFeature) break;
  }
  let nextDepth = depth;
  if (pathIndex !== depth + 1) {
    incomingZero = zeros[at + pathIndex]!;
    incomingOne = ones[at + pathIndex]!;
    unwindPath(feature, zeros, ones, weight, at, depth, pathIndex);
    nextDepth -= 1;
  }

  recurse(model, tree, x, phi, w, hot, at, nextDepth + 1, hotZero * incomingZero, incomingOne, splitFeature);
  recurse(model, tree, x, phi, w, cold, at, nextDepth + 1, coldZero * incomingZero, 0, splitFeature);
}

/** SHAP values of one encoded row in LightGBM's `pred_contrib` layout (contributions, then the base value). */
export function treeShapReference(model: CompiledModel, x: Float64Array, workspace = createReferenceWorkspace(model)): Float64Array {
  const phi = new Float64Array(model.numFeatures + 1);
  for (const tree of model.trees) {
    phi[model.numFeatures]! += tree.expectedValue;
    referenceTreeShap(model, tree, x, phi, workspace);
  }
  return phi;
}
