/**
 * A model's trees as one set of flat typed arrays, and LightGBM 4.6's split decision on them: what
 * the hot loops (QuickScorer prediction, TreeSHAP) read instead of the per-tree objects.
 */
import { MissingType, ZERO_THRESHOLD, type CompiledModel } from './model';

/**
 * All trees of a model in one set of flat arrays, for the hot loops: global node indices, a child
 * `c < 0` naming global leaf `~c`, each split reduced to one of three kinds with its missing-value
 * side precomputed, and category sets as bitsets.
 */
export type Forest = {
  /** Per tree: its root node, or ~leaf for a single-leaf tree. */
  roots: Int32Array;
  /** Per tree: its first global node (internal nodes of tree t are nodeStart[t]..nodeStart[t+1]-1). */
  nodeStart: Int32Array;
  feature: Int32Array;
  threshold: Float64Array;
  kind: Uint8Array;
  /** Where NaN goes (Plain) or where NaN and ±0 go (ZeroMissing): 1 = left. */
  missingLeft: Uint8Array;
  left: Int32Array;
  right: Int32Array;
  /** Categorical nodes: first word and word count of their bitset in `bits`. */
  bitsStart: Int32Array;
  bitsWords: Int32Array;
  bits: Uint32Array;
  leafValue: Float64Array;
};

export const SplitKind = { Plain: 0, ZeroMissing: 1, Categorical: 2 } as const;

const forests = new WeakMap<CompiledModel, Forest>();

export function forestOf(model: CompiledModel): Forest {
  let forest = forests.get(model);
  if (forest) return forest;
  const trees = model.trees;
  const nodes = model.nodes.splitFeature.length;
  const words: number[] = [];
  forest = {
    roots: new Int32Array(trees.length),
    nodeStart: new Int32Array(trees.length + 1),
    // Split features, thresholds and leaf values are the model's own arrays, already global.
    feature: model.nodes.splitFeature,
    threshold: model.nodes.threshold,
    kind: new Uint8Array(nodes),
    missingLeft: new Uint8Array(nodes),
    left: new Int32Array(nodes),
    right: new Int32Array(nodes),
    bitsStart: new Int32Array(nodes),
    bitsWords: new Int32Array(nodes),
    bits: new Uint32Array(0),
    leafValue: model.leaves.value,
  };
  // The model's nodes and leaves are already tree after tree: a tree's node i is global node
  // nodeBase + i and its leaf j global leaf leafBase + j; only the children need the offsets.
  const { threshold, isCategorical, missingType, defaultLeft, left, right } = model.nodes;
  const { start, length, codes } = model.categorySets;
  trees.forEach((tree, t) => {
    const internal = tree.numLeaves - 1;
    const global = (child: number) => (child >= 0 ? tree.nodeBase + child : ~(tree.leafBase + ~child));
    forest!.nodeStart[t] = tree.nodeBase;
    forest!.roots[t] = internal > 0 ? tree.nodeBase : ~tree.leafBase;
    for (let g = tree.nodeBase; g < tree.nodeBase + internal; g++) {
      forest!.left[g] = global(left[g]!);
      forest!.right[g] = global(right[g]!);
      if (isCategorical[g]) {
        forest!.kind[g] = SplitKind.Categorical;
        const set = tree.catSetBase + threshold[g]!;
        const last = length[set]! === 0 ? -1 : codes[start[set]! + length[set]! - 1]!;
        const count = last < 0 ? 0 : Math.floor(last / 32) + 1;
        forest!.bitsStart[g] = words.length;
        forest!.bitsWords[g] = count;
        const first = words.length;
        for (let w = 0; w < count; w++) words.push(0);
        for (let i = start[set]!; i < start[set]! + length[set]!; i++) {
          const code = codes[i]!;
          if (code >= 0) words[first + (code >>> 5)]! |= 1 << (code & 31);
        }
      } else if (missingType[g] === MissingType.Zero) {
        forest!.kind[g] = SplitKind.ZeroMissing;
        forest!.missingLeft[g] = defaultLeft[g]!;
      } else {
        forest!.kind[g] = SplitKind.Plain;
        // Missing type None reads NaN as 0; missing type NaN sends it to the default side.
        forest!.missingLeft[g] = missingType[g] === MissingType.NaN ? defaultLeft[g]! : 0 <= threshold[g]! ? 1 : 0;
      }
    }
  });
  forest.nodeStart[trees.length] = nodes;
  forest.bits = Uint32Array.from(words);
  forests.set(model, forest);
  return forest;
}

/** Whether `x` goes left at global node `node`: `decide`'s rules on the flat arrays. */
export function goesLeft(f: Forest, node: number, x: Float64Array): boolean {
  const value = x[f.feature[node]!]!;
  const kind = f.kind[node]!;
  if (kind === SplitKind.Plain) return value === value ? value <= f.threshold[node]! : f.missingLeft[node] === 1;
  if (kind === SplitKind.ZeroMissing) {
    return value === value && (value > ZERO_THRESHOLD || value < -ZERO_THRESHOLD) ? value <= f.threshold[node]! : f.missingLeft[node] === 1;
  }
  // NaN and codes below 0 go right; LightGBM truncates toward zero first, so -0.5 is code 0.
  return inCategorySet(f, node, Math.trunc(value));
}

/** Whether category `code` (a whole number, or NaN) is in categorical node `node`'s left set. */
export function inCategorySet(f: Forest, node: number, code: number): boolean {
  return code >= 0 && code < f.bitsWords[node]! * 32 && ((f.bits[f.bitsStart[node]! + (code >>> 5)]! >>> (code & 31)) & 1) === 1;
}

/** Where `x` goes at each of `count` nodes from global node `first`: out[i] = 1 if left at node first + i. */
export function decideNodes(f: Forest, first: number, count: number, x: Float64Array, out: Uint8Array): void {
  for (let i = 0; i < count; i++) out[i] = goesLeft(f, first + i, x) ? 1 : 0;
}
