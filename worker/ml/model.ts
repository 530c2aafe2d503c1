/**
 * The platform's serialized tree-ensemble format (`xdl-gbdt`, version 1) and its compiled,
 * typed-array form used by prediction and TreeSHAP.
 *
 * Trees follow LightGBM's layout: internal nodes are numbered 0..n-2, leaves 0..n-1, and a child
 * index `c < 0` names leaf `~c`. Counts are training rows reaching each node, which path-dependent
 * TreeSHAP uses as cover (as LightGBM's `pred_contrib` does).
 */
import { z } from 'zod';

export const MODEL_FORMAT = 'xdl-gbdt';
export const MODEL_FORMAT_VERSION = 1;

/** How a numeric split treats missing values (LightGBM's `missing_type`). */
export const MissingType = { None: 0, Zero: 1, NaN: 2 } as const;
/** `decision_type`: numeric `<=` or categorical `==` (membership in a category set). */
export const DecisionType = { Numeric: 0, Categorical: 1 } as const;

/** Thresholds at or above this stand for +∞ (LightGBM's dump clamps infinity to 1e300). */
export const INFINITE_THRESHOLD = 1e300;
/** LightGBM's kZeroThreshold (the float 1e-35f): |x| at or below it is zero. */
export const ZERO_THRESHOLD = Math.fround(1e-35);

const intArray = z.array(z.number().int());

/**
 * Whether the children reach every internal node and every leaf exactly once from node 0. A cycle
 * or a shared subtree would make every tree walk (prediction, TreeSHAP, depth) loop or miscount.
 */
function isBinaryTree(left: number[], right: number[], numLeaves: number): boolean {
  const internal = numLeaves - 1;
  if (internal === 0) return true;
  const seenNode = new Uint8Array(internal);
  const seenLeaf = new Uint8Array(numLeaves);
  const stack = [0];
  seenNode[0] = 1;
  let reached = 1;
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const child of [left[node]!, right[node]!]) {
      if (child < 0) {
        if (~child >= numLeaves || seenLeaf[~child]) return false;
        seenLeaf[~child] = 1;
        reached++;
      } else {
        if (child >= internal || seenNode[child]) return false;
        seenNode[child] = 1;
        reached++;
        stack.push(child);
      }
    }
  }
  return reached === internal + numLeaves;
}

export const treeSchema = z
  .object({
    num_leaves: z.number().int().min(1),
    split_feature: intArray,
    threshold: z.array(z.number()),
    decision_type: z.array(z.union([z.literal(0), z.literal(1)])),
    default_left: z.array(z.union([z.literal(0), z.literal(1)])),
    missing_type: z.array(z.union([z.literal(0), z.literal(1), z.literal(2)])),
    left_child: intArray,
    right_child: intArray,
    internal_count: z.array(z.number().nonnegative()),
    /** Category codes that go left, for categorical node `i` at `cat_sets[threshold[i]]`. */
    cat_sets: z.array(intArray),
    leaf_value: z.array(z.number()),
    leaf_count: z.array(z.number().nonnegative()),
  })
  .superRefine((t, ctx) => {
    const internal = t.num_leaves - 1;
    const lengths = [
      t.split_feature,
      t.threshold,
      t.decision_type,
      t.default_left,
      t.missing_type,
      t.left_child,
      t.right_child,
      t.internal_count,
    ].map((a) => a.length);
    if (lengths.some((n) => n !== internal)) {
      ctx.addIssue({ code: 'custom', message: `every internal-node array must have ${internal} entries` });
    }
    if (t.leaf_value.length !== t.num_leaves || t.leaf_count.length !== t.num_leaves) {
      ctx.addIssue({ code: 'custom', message: `leaf arrays must have ${t.num_leaves} entries` });
    }
    for (const child of [...t.left_child, ...t.right_child]) {
      if (child >= internal || ~child >= t.num_leaves) {
        ctx.addIssue({ code: 'custom', message: `child index ${child} is out of range` });
        break;
      }
    }
    if (lengths.every((n) => n === internal) && !isBinaryTree(t.left_child, t.right_child, t.num_leaves)) {
      ctx.addIssue({ code: 'custom', message: 'the child indices must form one binary tree: every node and leaf reached once from the root' });
    }
    t.decision_type.forEach((d, i) => {
      if (d === DecisionType.Categorical && !(Number.isInteger(t.threshold[i]) && t.threshold[i]! < t.cat_sets.length)) {
        ctx.addIssue({ code: 'custom', message: `categorical node ${i} names no category set` });
      }
    });
  });
export type SerializedTree = z.infer<typeof treeSchema>;

/** A tree with no nodes yet, for builders that append internal nodes in order. */
export const emptyTree = (numLeaves: number): SerializedTree => ({
  num_leaves: numLeaves,
  split_feature: [],
  threshold: [],
  decision_type: [],
  default_left: [],
  missing_type: [],
  left_child: [],
  right_child: [],
  internal_count: [],
  cat_sets: [],
  leaf_value: [],
  leaf_count: [],
});

export const gbdtModelSchema = z
  .object({
    format: z.literal(MODEL_FORMAT),
    version: z.literal(MODEL_FORMAT_VERSION),
    objective: z.literal('binary'),
    feature_names: z.array(z.string().min(1)).min(1),
    /** Features whose raw values are category strings (or integer codes) rather than numbers. */
    categorical_features: z.array(z.string()),
    /** Per categorical feature: raw (trimmed) value → integer code. Features without an entry use the value itself as the code. */
    category_codes: z.record(z.string(), z.record(z.string(), z.number().int())),
    trees: z.array(treeSchema).min(1),
    /** Where the model came from and how it was made (trainer params, metrics, source). */
    metadata: z.record(z.string(), z.unknown()).default({}),
  })
  .superRefine((m, ctx) => {
    const features = m.feature_names.length;
    m.trees.forEach((t, i) => {
      if (t.split_feature.some((f) => f < 0 || f >= features)) {
        ctx.addIssue({ code: 'custom', message: `tree ${i} splits on a feature outside 0..${features - 1}` });
      }
    });
    for (const name of m.categorical_features) {
      if (!m.feature_names.includes(name)) {
        ctx.addIssue({ code: 'custom', message: `categorical feature ${name} is not a model feature` });
      }
    }
  });
export type GbdtModel = z.infer<typeof gbdtModelSchema>;

/**
 * One tree of a compiled model: where its internal nodes, leaves and category sets start in the
 * model's arrays. Its children keep the tree's own numbers (LightGBM's layout): internal node `c`
 * is the model's node `nodeBase + c`, leaf `~c` the model's leaf `leafBase + ~c`, and categorical
 * node threshold `s` names the model's category set `catSetBase + s`.
 */
export type CompiledTree = {
  numLeaves: number;
  nodeBase: number;
  leafBase: number;
  catSetBase: number;
  /** Longest root-to-leaf path in splits; sizes TreeSHAP's path buffer. */
  maxDepth: number;
  /** Count-weighted mean leaf value: this tree's share of the SHAP base value. */
  expectedValue: number;
};

/** Every tree's internal nodes, tree after tree. */
export type CompiledNodes = {
  splitFeature: Int32Array;
  threshold: Float64Array;
  isCategorical: Uint8Array;
  defaultLeft: Uint8Array;
  missingType: Uint8Array;
  left: Int32Array;
  right: Int32Array;
  internalCount: Float64Array;
};

/** Every tree's leaves, tree after tree. */
export type CompiledLeaves = { value: Float64Array; count: Float64Array };

/** Every tree's category sets, each sorted: set `s` is `codes[start[s] .. start[s] + length[s])`. */
export type CompiledCategorySets = { start: Int32Array; length: Int32Array; codes: Int32Array };

/**
 * A model's trees in a few model-wide typed arrays sharing one buffer, each tree an offset into
 * them: a cache of many models holds a dozen arrays per model, not a dozen per tree, for a full
 * collection to visit.
 */
export type CompiledModel = {
  featureNames: readonly string[];
  numFeatures: number;
  trees: CompiledTree[];
  nodes: CompiledNodes;
  leaves: CompiledLeaves;
  categorySets: CompiledCategorySets;
  maxDepth: number;
  /** Σ over trees of their expected values: the SHAP base value. */
  baseValue: number;
  /** The model file without its trees (they live on only as the typed arrays above). */
  header: ModelHeader;
};

/** Everything in a model file but its trees: format, features and their category codes, metadata. */
export type ModelHeader = Omit<GbdtModel, 'trees'>;

/** What V8 holds for one typed array beside its contents: the view and its share of its model's buffer (measured). */
const TYPED_ARRAY_OVERHEAD_BYTES = 120;

/**
 * Memory the typed arrays among the values of `holders` take (their contents and V8's overhead),
 * each array once however many holders share it; other values are skipped.
 */
export function typedArraysBytes(...holders: object[]): number {
  const views = new Set<ArrayBufferView>();
  for (const holder of holders) for (const value of Object.values(holder)) if (ArrayBuffer.isView(value)) views.add(value);
  let bytes = 0;
  for (const view of views) bytes += view.byteLength + TYPED_ARRAY_OVERHEAD_BYTES;
  return bytes;
}

/** The holders of a compiled model's own typed arrays. */
const modelArrays = (model: CompiledModel) => [model.nodes, model.leaves, model.categorySets];

/** Memory a compiled model's trees take, typed arrays and their overhead: what a model cache is bounded by. */
export const compiledBytes = (model: CompiledModel) => typedArraysBytes(...modelArrays(model));

/** Memory `holders`' typed arrays add to the model's own, arrays they share with the model not counted again. */
export const bytesBeyondModel = (model: CompiledModel, ...holders: object[]) => typedArraysBytes(...modelArrays(model), ...holders) - compiledBytes(model);

function treeDepth(left: readonly number[], right: readonly number[], numLeaves: number): number {
  if (numLeaves <= 1) return 0;
  let max = 0;
  const stack: [number, number][] = [[0, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    for (const child of [left[node]!, right[node]!]) {
      if (child < 0) max = Math.max(max, depth + 1);
      else stack.push([child, depth + 1]);
    }
  }
  return max;
}

/** LightGBM's `Tree::ExpectedValue`: Σ leaf_count / root count · leaf_value. */
function expectedValue(leafValue: readonly number[], leafCount: readonly number[], rootCount: number, numLeaves: number): number {
  if (numLeaves === 1) return leafValue[0]!;
  let value = 0;
  for (let i = 0; i < numLeaves; i++) value += (leafCount[i]! / rootCount) * leafValue[i]!;
  return value;
}

/**
 * Typed arrays carved out of one buffer: one buffer object per model instead of one per array, so
 * a cache of many models holds fewer objects a full collection has to visit. Sized by how many
 * 8-, 4- and 1-byte values it holds; its arrays must be taken in that order (8-byte ones first),
 * which keeps each at an offset its element size divides (a typed array refuses any other).
 * Each takes its values, or a length to start as zeros.
 */
export class ArrayPack {
  private offset = 0;
  private readonly buffer: ArrayBuffer;
  constructor(f64Values: number, i32Values: number, u8Values: number) {
    this.buffer = new ArrayBuffer(8 * f64Values + 4 * i32Values + u8Values);
  }
  private take<A extends Float64Array | Int32Array | Uint8Array>(make: (b: ArrayBuffer, at: number, n: number) => A, values: ArrayLike<number> | number): A {
    const array = make(this.buffer, this.offset, typeof values === 'number' ? values : values.length);
    if (typeof values !== 'number') array.set(values);
    this.offset += array.byteLength;
    return array;
  }
  f64 = (values: ArrayLike<number> | number) => this.take((b, at, n) => new Float64Array(b, at, n), values);
  i32 = (values: ArrayLike<number> | number) => this.take((b, at, n) => new Int32Array(b, at, n), values);
  u8 = (values: ArrayLike<number> | number) => this.take((b, at, n) => new Uint8Array(b, at, n), values);
}

/** Validates (when given unknown JSON) and compiles a model for prediction and TreeSHAP. */
export function compileModel(input: GbdtModel | unknown): CompiledModel {
  const { trees: serialized, ...header } = gbdtModelSchema.parse(input);
  const total = (size: (t: SerializedTree) => number) => serialized.reduce((n, t) => n + size(t), 0);
  const nodeCount = total((t) => t.num_leaves - 1);
  const leafCount = total((t) => t.num_leaves);
  const sortedSets = serialized.flatMap((t) => t.cat_sets.map((set) => [...set].sort((a, b) => a - b)));
  const codeCount = sortedSets.reduce((n, set) => n + set.length, 0);
  const memory = new ArrayPack(2 * nodeCount + 2 * leafCount, 3 * nodeCount + 2 * sortedSets.length + codeCount, 3 * nodeCount);
  const threshold = memory.f64(nodeCount);
  const internalCount = memory.f64(nodeCount);
  const leaves: CompiledLeaves = { value: memory.f64(leafCount), count: memory.f64(leafCount) };
  const splitFeature = memory.i32(nodeCount);
  const left = memory.i32(nodeCount);
  const right = memory.i32(nodeCount);
  const categorySets: CompiledCategorySets = { start: memory.i32(sortedSets.length), length: memory.i32(sortedSets.length), codes: memory.i32(codeCount) };
  const nodes: CompiledNodes = {
    splitFeature,
    threshold,
    isCategorical: memory.u8(nodeCount),
    defaultLeft: memory.u8(nodeCount),
    missingType: memory.u8(nodeCount),
    left,
    right,
    internalCount,
  };
  let codeAt = 0;
  sortedSets.forEach((set, s) => {
    categorySets.start[s] = codeAt;
    categorySets.length[s] = set.length;
    categorySets.codes.set(set, codeAt);
    codeAt += set.length;
  });

  let nodeBase = 0;
  let leafBase = 0;
  let catSetBase = 0;
  const trees = serialized.map((t): CompiledTree => {
    t.threshold.forEach((v, i) => (nodes.threshold[nodeBase + i] = t.decision_type[i] === DecisionType.Numeric && v >= INFINITE_THRESHOLD ? Infinity : v));
    nodes.internalCount.set(t.internal_count, nodeBase);
    nodes.splitFeature.set(t.split_feature, nodeBase);
    nodes.left.set(t.left_child, nodeBase);
    nodes.right.set(t.right_child, nodeBase);
    nodes.isCategorical.set(t.decision_type, nodeBase);
    nodes.defaultLeft.set(t.default_left, nodeBase);
    nodes.missingType.set(t.missing_type, nodeBase);
    leaves.value.set(t.leaf_value, leafBase);
    leaves.count.set(t.leaf_count, leafBase);
    const rootCount = t.num_leaves > 1 ? t.internal_count[0]! : t.leaf_count[0]!;
    const tree = {
      numLeaves: t.num_leaves,
      nodeBase,
      leafBase,
      catSetBase,
      maxDepth: treeDepth(t.left_child, t.right_child, t.num_leaves),
      expectedValue: expectedValue(t.leaf_value, t.leaf_count, rootCount, t.num_leaves),
    };
    nodeBase += t.num_leaves - 1;
    leafBase += t.num_leaves;
    catSetBase += t.cat_sets.length;
    return tree;
  });
  let baseValue = 0;
  for (const tree of trees) baseValue += tree.expectedValue;
  return {
    featureNames: header.feature_names,
    numFeatures: header.feature_names.length,
    trees,
    nodes,
    leaves,
    categorySets,
    maxDepth: trees.reduce((m, t) => Math.max(m, t.maxDepth), 0),
    baseValue,
    header,
  };
}

export type RawValue = string | number | null | undefined;

/**
 * Encodes one raw row (feature name → value as in the source data) into the model's float input:
 * missing (null, undefined, empty) is NaN; a categorical feature with a code table takes its
 * code (unknown categories become NaN, which every split sends to its missing/right side); any
 * other value is parsed as a decimal number.
 */
export function encodeRow(model: Pick<GbdtModel, 'feature_names' | 'category_codes'>, row: Record<string, RawValue>): Float64Array {
  const x = new Float64Array(model.feature_names.length);
  model.feature_names.forEach((name, i) => {
    const value = row[name];
    if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) {
      x[i] = NaN;
      return;
    }
    const codes = model.category_codes[name];
    if (codes) {
      const code = codes[String(value).trim()];
      x[i] = code ?? NaN;
      return;
    }
    x[i] = typeof value === 'number' ? value : Number(value.trim());
  });
  return x;
}
