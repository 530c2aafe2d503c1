/**
 * Exact path-dependent TreeSHAP in time linear in the tree's size per row, giving the values
 * LightGBM's `pred_contrib` gives (its `Tree::TreeSHAP`, the original algorithm, is kept as
 * `treeshap-reference.ts`, which the tests compare this with).
 *
 * Why it works. For a leaf ℓ with value v reached through d distinct features, each feature k
 * carries a zero fraction Z_k (the share of training rows that follow the path at its splits) and
 * a one fraction O_k ∈ {0, 1} (whether this row follows it). Feature i's Shapley contribution
 * from ℓ is
 *
 *   v · (O_i − Z_i) · Σ_s c_s · s!(d−1−s)!/d!,   c_s = coefficient of tˢ in Π_{k≠i} (Z_k + O_k t),
 *
 * and since s!(d−1−s)!/d! = ∫₀¹ tˢ (1−t)^{d−1−s} dt, the sum is ∫₀¹ Π_{k≠i} (Z_k(1−t) + O_k t) dt:
 * the integral of a polynomial of degree below the tree's depth D. Gauss–Legendre quadrature with
 * ⌈D/2⌉ points is exact for it, so a leaf is represented by its product F_ℓ(t) = Π_k f_k(t) at
 * those points (the idea of Linear TreeSHAP, Yu et al., NeurIPS 2022, here with quadrature in
 * place of polynomial arithmetic). Products are built top-down, one multiplication per point and
 * node; sums of v·F_ℓ over a subtree are gathered bottom-up; each edge then adds its feature's
 * share of all leaves below it with one dot product. A feature split again deeper down takes back,
 * at that deeper edge, what the ancestor's edge credited for the leaves below it, so each leaf's
 * share is counted once, with its merged fractions.
 *
 * Everything that does not depend on the row (fractions, quadrature weights, the per-edge factor
 * and coefficient vectors for each on/off state) is computed once per model into flat typed
 * arrays; a row allocates nothing beyond the result (and not even that with `out`).
 */
import { ArrayPack, bytesBeyondModel, type CompiledModel, type CompiledTree } from './model';
import { decideNodes, forestOf, type Forest } from './forest';
import { createReferenceWorkspace, referenceTreeShap, type ReferenceWorkspace } from './treeshap-reference';

/** Gauss–Legendre nodes and weights on [0, 1], by Newton's method on the Legendre recurrence. */
export function gaussLegendre01(n: number): { nodes: Float64Array; weights: Float64Array } {
  const nodes = new Float64Array(n);
  const weights = new Float64Array(n);
  for (let i = 0; i < Math.ceil(n / 2); i++) {
    let x = Math.cos((Math.PI * (i + 0.75)) / (n + 0.5));
    let derivative = 0;
    for (let iteration = 0; iteration < 100; iteration++) {
      let p0 = 1;
      let p1 = x;
      for (let k = 2; k <= n; k++) {
        const p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      derivative = (n * (x * p1 - p0)) / (x * x - 1);
      const step = p1 / derivative;
      x -= step;
      if (Math.abs(step) < 1e-17) break;
    }
    const weight = 2 / ((1 - x * x) * derivative * derivative);
    nodes[i] = (1 - x) / 2;
    nodes[n - 1 - i] = (1 + x) / 2;
    weights[i] = weights[n - 1 - i] = weight / 2;
  }
  return { nodes, weights };
}

const rules = new Map<number, ReturnType<typeof gaussLegendre01>>();
/** The n-point rule, computed once per n for every tree of every model. */
function ruleOf(n: number) {
  let rule = rules.get(n);
  if (!rule) rules.set(n, (rule = gaussLegendre01(n)));
  return rule;
}

/** How the row meets an edge, given how it met the nearest edge above on the same feature. */
const State = { BothOn: 0, AncestorOnThisOff: 1, AncestorOff: 2 } as const;
const STATES = 3;

/**
 * The row-independent part of one tree. Its edges are numbered in pre-order from 1 (edge 0 stands
 * for the root's empty path), so a row is one pass down the list and one pass back up. Its per-edge
 * values live in the model's ShapPlan arrays, edge `e` at `edgeBase + e` (the edge numbers stored
 * there stay the tree's own).
 */
type TreePlan = {
  tree: CompiledTree;
  /** Quadrature points used for this tree. */
  points: number;
  edges: number;
  edgeBase: number;
  /** Where this tree's edges' factors and coefficients start in the plan's `vectors`. */
  vectorBase: number;
  /** Trees this method cannot take (a child with no training rows) go to the reference algorithm. */
  useReference: boolean;
  /**
   * Small trees (at most TABLE_MAX_INTERNAL internal nodes): a tree's contributions depend on the
   * row only through the sides it takes at the internal nodes, so they are kept per pattern of
   * sides, filled the first time a pattern is met: a row then costs the decisions and one add per
   * feature the tree uses (the row-independent precomputation of Fast TreeSHAP v2, Yang 2021,
   * which pays only while 2^internal stays small).
   */
  table: PatternTable | null;
};

/** Where a tree's pattern table lives in the plan's table arrays. */
type PatternTable = {
  /** The features the tree splits on: `featureCount` of them from `featureBase` in `tableFeatures`. */
  featureBase: number;
  featureCount: number;
  /** Per pattern: one contribution per feature, from `valueBase` in `tableValues`. */
  valueBase: number;
  /** Per pattern: whether it is filled yet, from `filledBase` in `tableFilled`. */
  filledBase: number;
};

/** 2^8 patterns × at most 8 features: 16 KB per tree at most. */
const TABLE_MAX_INTERNAL = 8;

/**
 * A model's TreeSHAP plan: one TreePlan per tree and every tree's arrays in one set of model-wide
 * arrays sharing one buffer, so a cached model costs a full collection a dozen objects here
 * rather than a dozen per tree.
 */
type ShapPlan = {
  trees: TreePlan[];
  forest: Forest;
  maxPoints: number;
  maxEdges: number;
  maxInternal: number;
  /** Per edge: the internal node it leaves, and whether it is that node's left edge. */
  parentNode: Int32Array;
  isLeft: Uint8Array;
  /** Per edge: the edge into its parent node (0 at the root). */
  parentEdge: Int32Array;
  /** Per edge: nearest edge above with the same feature, or -1. */
  ancestorEdge: Int32Array;
  feature: Int32Array;
  /** Per edge into an internal node: the edge of that node's right child (the left one is the next edge); -1 for a leaf. */
  rightEdge: Int32Array;
  /** Per edge into a leaf: its value. */
  leafValue: Float64Array;
  /** Per edge and state: `points` factors F_child/F_parent, then `points` coefficients. */
  vectors: Float64Array;
  tableFeatures: Int32Array;
  tableValues: Float64Array;
  tableFilled: Uint8Array;
};

const plans = new WeakMap<CompiledModel, ShapPlan>();

const coverOf = (model: CompiledModel, tree: CompiledTree, child: number) =>
  child >= 0 ? model.nodes.internalCount[tree.nodeBase + child]! : model.leaves.count[tree.leafBase + ~child]!;

/** The most distinct features any root-to-leaf path splits on: the integrands' degree is below it. */
function distinctFeaturesOnLongestPath(model: CompiledModel, tree: CompiledTree): number {
  const { splitFeature, left: lefts, right: rights } = model.nodes;
  const onPath = new Map<number, number>();
  let most = 0;
  const walk = (node: number) => {
    const feature = splitFeature[tree.nodeBase + node]!;
    onPath.set(feature, (onPath.get(feature) ?? 0) + 1);
    most = Math.max(most, onPath.size);
    for (const child of [lefts[tree.nodeBase + node]!, rights[tree.nodeBase + node]!]) if (child >= 0) walk(child);
    const left = onPath.get(feature)! - 1;
    if (left === 0) onPath.delete(feature);
    else onPath.set(feature, left);
  };
  if (tree.numLeaves > 1) walk(0);
  return most;
}

/** A tree's plan sizes: its edges, quadrature points and (small trees) the features its table keeps. */
function shapeOf(model: CompiledModel, tree: CompiledTree) {
  // Three points become four: a rule exact beyond the degree needed is still exact, and
  // treeContributions4 runs those trees without inner loops (as treeContributions2 runs two).
  const needed = Math.max(1, Math.ceil(distinctFeaturesOnLongestPath(model, tree) / 2));
  const internal = tree.numLeaves - 1;
  const tabled = internal >= 1 && internal <= TABLE_MAX_INTERNAL;
  return {
    edges: 2 * tree.numLeaves - 1,
    points: needed <= 2 ? 2 : needed <= UNROLLED_POINTS ? UNROLLED_POINTS : needed,
    tableFeatures: tabled ? [...new Set(model.nodes.splitFeature.subarray(tree.nodeBase, tree.nodeBase + internal))] : null,
    /** Patterns of sides its table keeps: 2^internal for a small tree, none for another. */
    patterns: tabled ? 1 << internal : 0,
  };
}

/** Fills one tree's part of the plan's arrays (its shape already placed at `edgeBase`, `vectorBase`). */
function planTree(plan: ShapPlan, model: CompiledModel, tree: CompiledTree, points: number, edges: number, edgeBase: number, vectorBase: number): boolean {
  const { nodes, weights } = ruleOf(points);
  const node0 = tree.nodeBase;
  const { splitFeature: splitFeatures, internalCount, left, right } = model.nodes;
  const { parentNode, isLeft, parentEdge, ancestorEdge, feature, rightEdge, leafValue, vectors } = plan;
  const mergedZero = new Float64Array(edges).fill(1);
  let useReference = tree.numLeaves <= 1;

  // Pre-order over the structure, keeping the last edge seen per feature on the current path.
  const lastEdge = new Map<number, number>();
  let next = 1;
  const walk = (node: number, intoNode: number) => {
    const splitFeature = splitFeatures[node0 + node]!;
    const parentCover = internalCount[node0 + node]!;
    const saved = lastEdge.get(splitFeature);
    for (const child of [left[node0 + node]!, right[node0 + node]!]) {
      const edge = next++;
      const at = edgeBase + edge;
      if (child === right[node0 + node]) rightEdge[edgeBase + intoNode] = edge;
      parentNode[at] = node;
      isLeft[at] = child === left[node0 + node] ? 1 : 0;
      parentEdge[at] = intoNode;
      feature[at] = splitFeature;
      const fraction = coverOf(model, tree, child) / parentCover;
      if (!(fraction > 0) || !Number.isFinite(fraction)) useReference = true;
      const ancestor = saved ?? -1;
      const ancestorZero = ancestor >= 0 ? mergedZero[ancestor]! : 1;
      ancestorEdge[at] = ancestor;
      const zero = (mergedZero[edge] = ancestorZero * fraction);
      for (let state = 0; state < STATES; state++) {
        const ancestorOne = state === State.AncestorOff ? 0 : 1;
        const one = state === State.BothOn ? 1 : 0;
        const v = vectorBase + (edge * STATES + state) * 2 * points;
        for (let q = 0; q < points; q++) {
          const t = nodes[q]!;
          const factor = zero * (1 - t) + one * t;
          // Without an ancestor edge the "ancestor" is the neutral factor 1 with O = Z = 1.
          const ancestorFactor = ancestor >= 0 ? ancestorZero * (1 - t) + ancestorOne * t : 1;
          const ancestorShare = ancestor >= 0 ? (ancestorOne - ancestorZero) / ancestorFactor : 0;
          vectors[v + q] = factor / ancestorFactor;
          vectors[v + points + q] = weights[q]! * ((one - zero) / factor - ancestorShare);
        }
      }
      if (child >= 0) {
        lastEdge.set(splitFeature, edge);
        walk(child, edge);
      } else {
        leafValue[at] = model.leaves.value[tree.leafBase + ~child]!;
      }
    }
    if (saved === undefined) lastEdge.delete(splitFeature);
    else lastEdge.set(splitFeature, saved);
  };
  if (!useReference) walk(0, 0);
  return useReference;
}

function planFor(model: CompiledModel): ShapPlan {
  let plan = plans.get(model);
  if (plan) return plan;
  const shapes = model.trees.map((tree) => shapeOf(model, tree));
  const total = (size: (shape: (typeof shapes)[number]) => number) => shapes.reduce((n, shape) => n + size(shape), 0);
  const edges = total((s) => s.edges);
  const vectorValues = total((s) => s.edges * STATES * 2 * s.points);
  const tableFeatures = total((s) => s.tableFeatures?.length ?? 0);
  const tableValues = total((s) => s.patterns * (s.tableFeatures?.length ?? 0));
  const tablePatterns = total((s) => s.patterns);
  const pack = new ArrayPack(edges + vectorValues + tableValues, 5 * edges + tableFeatures, edges + tablePatterns);
  plan = {
    trees: [],
    forest: forestOf(model),
    maxPoints: shapes.reduce((m, s) => Math.max(m, s.points), 1),
    maxEdges: shapes.reduce((m, s) => Math.max(m, s.edges), 1),
    maxInternal: model.trees.reduce((m, t) => Math.max(m, t.numLeaves - 1), 1),
    leafValue: pack.f64(edges),
    vectors: pack.f64(vectorValues),
    tableValues: pack.f64(tableValues),
    parentNode: pack.i32(edges),
    parentEdge: pack.i32(edges),
    ancestorEdge: pack.i32(edges).fill(-1),
    feature: pack.i32(edges),
    rightEdge: pack.i32(edges).fill(-1),
    tableFeatures: pack.i32(tableFeatures),
    isLeft: pack.u8(edges),
    tableFilled: pack.u8(tablePatterns),
  };
  let edgeBase = 0;
  let vectorBase = 0;
  let featureBase = 0;
  let valueBase = 0;
  let filledBase = 0;
  for (const [t, tree] of model.trees.entries()) {
    const { edges: treeEdges, points, tableFeatures: used, patterns } = shapes[t]!;
    const useReference = planTree(plan, model, tree, points, treeEdges, edgeBase, vectorBase);
    let table: PatternTable | null = null;
    if (used) {
      // Room is kept for every small tree; one the reference algorithm takes leaves its room unused.
      if (!useReference) {
        plan.tableFeatures.set(used, featureBase);
        table = { featureBase, featureCount: used.length, valueBase, filledBase };
      }
      featureBase += used.length;
      valueBase += patterns * used.length;
      filledBase += patterns;
    }
    plan.trees.push({ tree, points, edges: treeEdges, edgeBase, vectorBase, useReference, table });
    edgeBase += treeEdges;
    vectorBase += treeEdges * STATES * 2 * points;
  }
  plans.set(model, plan);
  return plan;
}

/**
 * Memory the model's TreeSHAP plan adds to the model (built now if it is not yet), the flat forest
 * it walks included, less the arrays the forest shares with the model: typed arrays and their
 * overhead, as `compiledBytes` counts the model's own. (The quick scorer `predictProbability`
 * builds beside it, about the forest's size, is not counted.)
 */
export function shapPlanBytes(model: CompiledModel): number {
  const plan = planFor(model);
  return bytesBeyondModel(model, plan, plan.forest);
}

/** Scratch space for one model; reuse it across rows. */
export type ShapWorkspace = {
  plan: ShapPlan;
  /** Per edge: the product of the path's factors at each quadrature point (`points` per edge). */
  products: Float64Array;
  /** Per edge: Σ leaf value × product over the leaves below it. */
  sums: Float64Array;
  /** Per edge: its state for this row. */
  state: Uint8Array;
  /** Per internal node: whether this row goes left. */
  wentLeft: Uint8Array;
  reference: ReferenceWorkspace | null;
  /** Contributions of one tree while a pattern table entry is filled. */
  scratch: Float64Array;
};

export function createShapWorkspace(model: CompiledModel): ShapWorkspace {
  const plan = planFor(model);
  const size = plan.maxEdges * plan.maxPoints;
  return {
    plan,
    products: new Float64Array(size),
    sums: new Float64Array(size),
    state: new Uint8Array(plan.maxEdges),
    wentLeft: new Uint8Array(plan.maxInternal),
    reference: plan.trees.some((t) => t.useReference && t.tree.numLeaves > 1) ? createReferenceWorkspace(model) : null,
    scratch: new Float64Array(model.numFeatures),
  };
}

/** How the row meets `edge` of `tree`, given the states already set for the edges above it. */
function stateOf(tree: TreePlan, w: ShapWorkspace, edge: number): number {
  const { ancestorEdge, parentNode, isLeft } = w.plan;
  const at = tree.edgeBase + edge;
  const ancestor = ancestorEdge[at]!;
  if (ancestor >= 0 && w.state[ancestor] !== State.BothOn) return State.AncestorOff;
  return w.wentLeft[parentNode[at]!] === isLeft[at] ? State.BothOn : State.AncestorOnThisOff;
}

const UNROLLED_POINTS = 4;

/** Adds one tree's contributions for the sides in `w.wentLeft` to `phi`. */
function treeContributions(tree: TreePlan, phi: Float64Array, w: ShapWorkspace): void {
  const { points, edges, edgeBase: e0, vectorBase: v0 } = tree;
  const { parentEdge, feature, rightEdge, leafValue, vectors } = w.plan;
  const { products, sums, state } = w;
  const stride = 2 * points;
  for (let q = 0; q < points; q++) products[q] = 1;

  // Down: each edge's state and the product of factors along the path to it.
  for (let edge = 1; edge < edges; edge++) {
    const edgeState = (state[edge] = stateOf(tree, w, edge));
    const factors = v0 + (edge * STATES + edgeState) * stride;
    const from = parentEdge[e0 + edge]! * points;
    const to = edge * points;
    for (let q = 0; q < points; q++) products[to + q] = products[from + q]! * vectors[factors + q]!;
  }

  // Up: sums of value × product below each edge, each edge crediting its feature.
  for (let edge = edges - 1; edge >= 1; edge--) {
    const coefficients = v0 + (edge * STATES + state[edge]!) * stride + points;
    const at = edge * points;
    const right = rightEdge[e0 + edge]!;
    let dot = 0;
    if (right < 0) {
      const value = leafValue[e0 + edge]!;
      for (let q = 0; q < points; q++) {
        const sum = value * products[at + q]!;
        sums[at + q] = sum;
        dot += vectors[coefficients + q]! * sum;
      }
    } else {
      const left = (edge + 1) * points;
      const r = right * points;
      for (let q = 0; q < points; q++) {
        const sum = sums[left + q]! + sums[r + q]!;
        sums[at + q] = sum;
        dot += vectors[coefficients + q]! * sum;
      }
    }
    phi[feature[e0 + edge]!]! += dot;
  }
}

/** treeContributions for trees with exactly two points, written out point by point. */
function treeContributions2(tree: TreePlan, phi: Float64Array, w: ShapWorkspace): void {
  const { edges, edgeBase: e0, vectorBase: v0 } = tree;
  const { parentEdge, feature, rightEdge, leafValue, vectors } = w.plan;
  const { products, sums, state } = w;
  products[0] = products[1] = 1;
  for (let edge = 1; edge < edges; edge++) {
    const edgeState = (state[edge] = stateOf(tree, w, edge));
    const v = v0 + (edge * STATES + edgeState) * 4;
    const from = parentEdge[e0 + edge]! * 2;
    products[edge * 2] = products[from]! * vectors[v]!;
    products[edge * 2 + 1] = products[from + 1]! * vectors[v + 1]!;
  }
  for (let edge = edges - 1; edge >= 1; edge--) {
    const c = v0 + (edge * STATES + state[edge]!) * 4 + 2;
    const right = rightEdge[e0 + edge]!;
    const value = leafValue[e0 + edge]!;
    const s0 = right < 0 ? value * products[edge * 2]! : sums[edge * 2 + 2]! + sums[right * 2]!;
    const s1 = right < 0 ? value * products[edge * 2 + 1]! : sums[edge * 2 + 3]! + sums[right * 2 + 1]!;
    sums[edge * 2] = s0;
    sums[edge * 2 + 1] = s1;
    phi[feature[e0 + edge]!]! += vectors[c]! * s0 + vectors[c + 1]! * s1;
  }
}

/** treeContributions for trees with exactly four points, written out point by point. */
function treeContributions4(tree: TreePlan, phi: Float64Array, w: ShapWorkspace): void {
  const { edges, edgeBase: e0, vectorBase: v0 } = tree;
  const { parentEdge, feature, rightEdge, leafValue, vectors } = w.plan;
  const { products, sums, state } = w;
  products[0] = products[1] = products[2] = products[3] = 1;
  for (let edge = 1; edge < edges; edge++) {
    const edgeState = (state[edge] = stateOf(tree, w, edge));
    const v = v0 + (edge * STATES + edgeState) * 8;
    const from = parentEdge[e0 + edge]! * 4;
    const to = edge * 4;
    products[to] = products[from]! * vectors[v]!;
    products[to + 1] = products[from + 1]! * vectors[v + 1]!;
    products[to + 2] = products[from + 2]! * vectors[v + 2]!;
    products[to + 3] = products[from + 3]! * vectors[v + 3]!;
  }
  for (let edge = edges - 1; edge >= 1; edge--) {
    const c = v0 + (edge * STATES + state[edge]!) * 8 + 4;
    const at = edge * 4;
    const right = rightEdge[e0 + edge]!;
    let s0: number;
    let s1: number;
    let s2: number;
    let s3: number;
    if (right < 0) {
      const value = leafValue[e0 + edge]!;
      s0 = value * products[at]!;
      s1 = value * products[at + 1]!;
      s2 = value * products[at + 2]!;
      s3 = value * products[at + 3]!;
    } else {
      const l = (edge + 1) * 4;
      const r = right * 4;
      s0 = sums[l]! + sums[r]!;
      s1 = sums[l + 1]! + sums[r + 1]!;
      s2 = sums[l + 2]! + sums[r + 2]!;
      s3 = sums[l + 3]! + sums[r + 3]!;
    }
    sums[at] = s0;
    sums[at + 1] = s1;
    sums[at + 2] = s2;
    sums[at + 3] = s3;
    phi[feature[e0 + edge]!]! += vectors[c]! * s0 + vectors[c + 1]! * s1 + vectors[c + 2]! * s2 + vectors[c + 3]! * s3;
  }
}

const contributionsFor = (tree: TreePlan) =>
  tree.points === 2 ? treeContributions2 : tree.points === UNROLLED_POINTS ? treeContributions4 : treeContributions;

function fromTable(tree: TreePlan, table: PatternTable, firstNode: number, x: Float64Array, phi: Float64Array, w: ShapWorkspace): void {
  const internal = tree.tree.numLeaves - 1;
  const { forest, tableFeatures, tableValues, tableFilled } = w.plan;
  decideNodes(forest, firstNode, internal, x, w.wentLeft);
  let pattern = 0;
  for (let node = 0; node < internal; node++) pattern |= w.wentLeft[node]! << node;
  const { featureBase, featureCount } = table;
  const at = table.valueBase + pattern * featureCount;
  if (tableFilled[table.filledBase + pattern] === 0) {
    for (let node = 0; node < internal; node++) w.wentLeft[node] = (pattern >> node) & 1;
    const scratch = w.scratch;
    contributionsFor(tree)(tree, scratch, w);
    for (let j = 0; j < featureCount; j++) {
      const f = tableFeatures[featureBase + j]!;
      tableValues[at + j] = scratch[f]!;
      scratch[f] = 0;
    }
    tableFilled[table.filledBase + pattern] = 1;
  }
  for (let j = 0; j < featureCount; j++) phi[tableFeatures[featureBase + j]!]! += tableValues[at + j]!;
}

/**
 * SHAP values of one encoded row: `numFeatures` contributions followed by the base value, so the
 * array sums to the raw score (LightGBM's `pred_contrib` layout). Pass `out` (length numFeatures + 1)
 * to reuse an array.
 */
export function treeShap(
  model: CompiledModel,
  x: Float64Array,
  workspace = createShapWorkspace(model),
  out?: Float64Array,
): Float64Array {
  const phi = out ?? new Float64Array(model.numFeatures + 1);
  if (out) phi.fill(0);
  const { trees, forest } = workspace.plan;
  for (let t = 0; t < trees.length; t++) {
    const treePlan = trees[t]!;
    phi[model.numFeatures]! += treePlan.tree.expectedValue;
    if (treePlan.tree.numLeaves <= 1) continue;
    if (treePlan.useReference) referenceTreeShap(model, treePlan.tree, x, phi, workspace.reference!);
    else if (treePlan.table) fromTable(treePlan, treePlan.table, forest.nodeStart[t]!, x, phi, workspace);
    else {
      const firstNode = forest.nodeStart[t]!;
      const internal = treePlan.tree.numLeaves - 1;
      decideNodes(forest, firstNode, internal, x, workspace.wentLeft);
      contributionsFor(treePlan)(treePlan, phi, workspace);
    }
  }
  return phi;
}
