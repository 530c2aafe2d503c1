import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compiledBytes, compileModel, DecisionType, typedArraysBytes, emptyTree, MODEL_FORMAT, MODEL_FORMAT_VERSION, type GbdtModel, type SerializedTree } from '../../worker/ml/model';
import { forestOf } from '../../worker/ml/forest';
import { decide, leafIndex, predictRaw, walkForest } from '../../worker/ml/predict';
import { buildQuickScorer, quickScore } from '../../worker/ml/quick-scorer';
import { seededRandom as rng } from '../../worker/ml/random';
import { createShapWorkspace, gaussLegendre01, shapPlanBytes, treeShap } from '../../worker/ml/treeshap';
import { treeShapReference } from '../../worker/ml/treeshap-reference';


/** A random tree with consistent counts: every internal count is the sum of its children's. */
/** `lopsided`: the chance a split sends a single leaf one way, which makes deep trees. */
function randomTree(random: () => number, numFeatures: number, numLeaves: number, lopsided = 0): SerializedTree {
  const t = emptyTree(numLeaves);
  let leaves = 0;
  const build = (remainingLeaves: number): [number, number] => {
    if (remainingLeaves === 1) {
      const count = 1 + Math.floor(random() * 50);
      t.leaf_value.push(random() * 2 - 1);
      t.leaf_count.push(count);
      return [~leaves++, count];
    }
    const index = t.split_feature.length;
    const categorical = random() < 0.25;
    t.split_feature.push(Math.floor(random() * numFeatures));
    t.decision_type.push(categorical ? DecisionType.Categorical : DecisionType.Numeric);
    if (categorical) {
      t.threshold.push(t.cat_sets.length);
      // Small codes (which rows hit) and, now and then, large ones (multi-word bitsets).
      t.cat_sets.push([0, 2, 33, 70].filter((code) => random() < (code < 3 ? 0.7 : 0.2)));
    } else {
      t.threshold.push(random() * 4 - 1);
    }
    t.default_left.push(random() < 0.5 ? 1 : 0);
    t.missing_type.push(Math.floor(random() * 3) as 0 | 1 | 2);
    t.left_child.push(0);
    t.right_child.push(0);
    t.internal_count.push(0);
    const leftLeaves = random() < lopsided ? (random() < 0.5 ? 1 : remainingLeaves - 1) : 1 + Math.floor(random() * (remainingLeaves - 1));
    const [l, lc] = build(leftLeaves);
    const [r, rc] = build(remainingLeaves - leftLeaves);
    t.left_child[index] = l;
    t.right_child[index] = r;
    t.internal_count[index] = lc + rc;
    return [index, lc + rc];
  };
  build(numLeaves);
  return t;
}

function randomModel(seed: number, numFeatures: number, numTrees: number, maxLeaves: number, lopsided = 0): GbdtModel {
  const random = rng(seed);
  return {
    format: MODEL_FORMAT,
    version: MODEL_FORMAT_VERSION,
    objective: 'binary',
    feature_names: Array.from({ length: numFeatures }, (_, i) => `f${i}`),
    categorical_features: [],
    category_codes: {},
    trees: Array.from({ length: numTrees }, () => randomTree(random, numFeatures, 1 + Math.floor(random() * maxLeaves), lopsided)),
    metadata: {},
  };
}

function randomRow(random: () => number, numFeatures: number): Float64Array {
  return Float64Array.from({ length: numFeatures }, () => {
    const u = random();
    if (u < 0.1) return NaN;
    if (u < 0.2) return 0;
    if (u < 0.4) return Math.floor(random() * 4);
    return random() * 4 - 1;
  });
}

/** E[f(x) | x_S] under path-dependent cover weighting (Lundberg et al. 2020, Algorithm 1). */
function conditionalExpectation(model: ReturnType<typeof compileModel>, x: Float64Array, known: Set<number>): number {
  let total = 0;
  const { nodes, leaves } = model;
  for (const tree of model.trees) {
    const walk = (node: number): number => {
      if (node < 0) return leaves.value[tree.leafBase + ~node]!;
      const at = tree.nodeBase + node;
      if (known.has(nodes.splitFeature[at]!)) return walk(decide(model, tree, node, x));
      const l = nodes.left[at]!;
      const r = nodes.right[at]!;
      const cover = (n: number) => (n >= 0 ? nodes.internalCount[tree.nodeBase + n]! : leaves.count[tree.leafBase + ~n]!);
      return (cover(l) * walk(l) + cover(r) * walk(r)) / nodes.internalCount[at]!;
    };
    total += tree.numLeaves === 1 ? leaves.value[tree.leafBase]! : walk(0);
  }
  return total;
}

/** Exact Shapley values by enumerating every coalition. */
function bruteForceShapley(model: ReturnType<typeof compileModel>, x: Float64Array): number[] {
  const n = model.numFeatures;
  const factorial = (k: number): number => (k <= 1 ? 1 : k * factorial(k - 1));
  const phi = new Array<number>(n).fill(0);
  for (let mask = 0; mask < 1 << n; mask++) {
    const known = new Set<number>();
    for (let i = 0; i < n; i++) if (mask & (1 << i)) known.add(i);
    const base = conditionalExpectation(model, x, known);
    for (let i = 0; i < n; i++) {
      if (known.has(i)) continue;
      const weight = (factorial(known.size) * factorial(n - known.size - 1)) / factorial(n);
      phi[i]! += weight * (conditionalExpectation(model, x, new Set([...known, i])) - base);
    }
  }
  return phi;
}

describe('TreeSHAP on random trees', () => {
  it('satisfies local accuracy: base value + Σφ = raw score', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const model = compileModel(randomModel(seed, 6, 8, 40));
      const random = rng(seed * 7919);
      for (let r = 0; r < 25; r++) {
        const x = randomRow(random, 6);
        const phi = treeShap(model, x);
        const sum = phi.reduce((a, b) => a + b, 0);
        expect(Math.abs(sum - predictRaw(model, x))).toBeLessThan(1e-9);
        expect(phi[6]).toBeCloseTo(model.baseValue, 12);
      }
    }
  });

  it('equals brute-force Shapley values of the path-dependent conditional expectation', () => {
    for (let seed = 100; seed < 120; seed++) {
      const model = compileModel(randomModel(seed, 5, 3, 12));
      const random = rng(seed);
      for (let r = 0; r < 5; r++) {
        const x = randomRow(random, 5);
        const phi = treeShap(model, x);
        const exact = bruteForceShapley(model, x);
        exact.forEach((v, i) => expect(Math.abs(phi[i]! - v)).toBeLessThan(1e-9));
      }
    }
  });

  it('gives features a tree never splits on exactly zero', () => {
    const source = randomModel(7, 3, 5, 10);
    const unused = compileModel({ ...source, feature_names: [...source.feature_names, 'never_split'] });
    const phi = treeShap(unused, Float64Array.from([0.5, 1, -0.5, 123]));
    expect(phi[3]).toBe(0);
  });
});

describe('model validation', () => {
  it('rejects a tree whose child index is out of range', () => {
    const bad = randomModel(3, 3, 1, 5);
    bad.trees[0] = { ...bad.trees[0]!, num_leaves: 2, left_child: [5], right_child: [-1], split_feature: [0], threshold: [0], decision_type: [0], default_left: [0], missing_type: [0], internal_count: [2], leaf_value: [1, 2], leaf_count: [1, 1] };
    expect(() => compileModel(bad)).toThrow(/out of range/);
  });

  it('rejects a split on a feature the model does not have', () => {
    const bad = randomModel(4, 2, 1, 5);
    bad.trees[0] = { ...bad.trees[0]!, num_leaves: 2, left_child: [-1], right_child: [-2], split_feature: [9], threshold: [0], decision_type: [0], default_left: [0], missing_type: [0], internal_count: [2], leaf_value: [1, 2], leaf_count: [1, 1] };
    expect(() => compileModel(bad)).toThrow(/outside/);
  });

  it('rejects children that loop, share a subtree or leave a cycle unreachable, and accepts every random tree', () => {
    const three: Partial<SerializedTree> = { split_feature: [0, 0, 0], threshold: [1, 1, 1], decision_type: [0, 0, 0], default_left: [0, 0, 0], missing_type: [0, 0, 0], internal_count: [2, 2, 2], leaf_value: [1, 2, 3, 4], leaf_count: [1, 1, 1, 1] };
    const structures: [number[], number[]][] = [
      [[1, 1, ~2], [~0, ~1, ~3]], // node 1 is its own child
      [[1, 2, ~2], [2, ~0, ~1]], // node 2 has two parents
      [[~0, 2, 1], [~1, ~2, ~3]], // nodes 1 and 2 form a cycle the root never reaches
      [[1, ~0, ~0], [2, ~1, ~2]], // leaf 0 twice, leaf 3 never
    ];
    for (const [left, right] of structures) {
      const bad = randomModel(5, 1, 1, 5);
      bad.trees[0] = { ...bad.trees[0]!, ...three, num_leaves: 4, left_child: left, right_child: right, cat_sets: [] };
      expect(() => compileModel(bad)).toThrow(/one binary tree/);
    }
    for (let seed = 1; seed <= 50; seed++) expect(() => compileModel(randomModel(seed, 3, 3, 40, seed % 2 ? 0.7 : 0))).not.toThrow();
  });
});

describe('compiled model memory', () => {
  it('keeps all trees of a model in a few model-wide arrays of one buffer, aligned, apart and holding every tree\'s values', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 9 }), (seed, trees, leaves) => {
        const serialized = randomModel(seed, 4, trees, leaves);
        const model = compileModel(serialized);
        const arrays = [model.nodes, model.leaves, model.categorySets].flatMap((holder) => Object.values(holder) as ArrayBufferView[]);
        expect(arrays).toHaveLength(13);
        const buffer = arrays[0]!.buffer;
        expect(arrays.every((a) => a.buffer === buffer)).toBe(true);
        const spans = arrays.filter((a) => a.byteLength > 0).map((a) => [a.byteOffset, a.byteOffset + a.byteLength] as const).sort((a, b) => a[0] - b[0]);
        spans.forEach(([start], i) => i > 0 && expect(start).toBeGreaterThanOrEqual(spans[i - 1]![1]));
        const { nodes, leaves: leafArrays, categorySets } = model;
        model.trees.forEach((t, i) => {
          const source = serialized.trees[i]!;
          const internal = t.numLeaves - 1;
          expect([...nodes.left.subarray(t.nodeBase, t.nodeBase + internal)]).toEqual(source.left_child);
          expect([...nodes.missingType.subarray(t.nodeBase, t.nodeBase + internal)]).toEqual(source.missing_type);
          expect([...leafArrays.value.subarray(t.leafBase, t.leafBase + t.numLeaves)]).toEqual(source.leaf_value);
          const sets = source.cat_sets.map((_, s) => [...categorySets.codes.subarray(categorySets.start[t.catSetBase + s]!, categorySets.start[t.catSetBase + s]! + categorySets.length[t.catSetBase + s]!)]);
          expect(sets).toEqual(source.cat_sets.map((set) => [...set].sort((a, b) => a - b)));
        });
      }),
      { numRuns: 200 },
    );
  });

  it("shares the model's split features, thresholds and leaf values with the flat forest, and counts them once", () => {
    const model = compileModel(randomModel(5, 4, 12, 9));
    const { plan } = createShapWorkspace(model);
    const { forest } = plan;
    expect(forest.feature).toBe(model.nodes.splitFeature);
    expect(forest.threshold).toBe(model.nodes.threshold);
    expect(forest.leafValue).toBe(model.leaves.value);
    const shared = typedArraysBytes({ feature: forest.feature, threshold: forest.threshold, leafValue: forest.leafValue });
    expect(shapPlanBytes(model)).toBe(typedArraysBytes(plan) + typedArraysBytes(forest) - shared);
    expect(compiledBytes(model) + shapPlanBytes(model)).toBe(typedArraysBytes(model.nodes, model.leaves, model.categorySets, plan, forest));
  });
});

describe('fast TreeSHAP against the reference algorithm', () => {
  const agree = (model: ReturnType<typeof compileModel>, rows: Float64Array[]) => {
    const workspace = createShapWorkspace(model);
    const out = new Float64Array(model.numFeatures + 1);
    let worst = 0;
    for (const x of rows) {
      const fast = treeShap(model, x, workspace, out);
      const reference = treeShapReference(model, x);
      fast.forEach((v, i) => {
        // An empty child can make the reference itself divide 0 by 0; both must then say so.
        if (!(Number.isNaN(v) && Number.isNaN(reference[i]!))) worst = Math.max(worst, Math.abs(v - reference[i]!));
      });
    }
    return worst;
  };

  it('agrees to 1e-12 on random forests with missing values, zeros, categorical splits and deep paths', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 64 }), fc.double({ min: 0, max: 0.9, noNaN: true }), (seed, features, leaves, lopsided) => {
        const model = compileModel(randomModel(seed, features, 4, leaves, lopsided));
        const random = rng(seed ^ 0x5bd1e995);
        const rows = Array.from({ length: 8 }, () => randomRow(random, features));
        expect(agree(model, rows)).toBeLessThan(1e-12);
      }),
      { numRuns: 300, seed: 20261122 },
    );
  });

  it('agrees on deep trees that split on the same few features again and again', () => {
    let deepest = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const model = compileModel(randomModel(seed, 3, 2, 60, 0.8));
      deepest = Math.max(deepest, model.maxDepth);
      const random = rng(seed);
      expect(agree(model, Array.from({ length: 10 }, () => randomRow(random, 3)))).toBeLessThan(1e-12);
    }
    expect(deepest).toBeGreaterThanOrEqual(20);
  });

  it('hands a tree with an empty child to the reference algorithm and still agrees', () => {
    const source = randomModel(11, 4, 3, 10);
    const tree = source.trees.find((t) => t.num_leaves > 2)!;
    const leaf = ~tree.left_child.concat(tree.right_child).find((c) => c < 0)!;
    // An empty leaf: its count is 0 and its parent's counts stay consistent with it.
    const removed = tree.leaf_count[leaf]!;
    tree.leaf_count[leaf] = 0;
    const parents = (child: number): number[] => {
      const at = tree.left_child.indexOf(child) >= 0 ? tree.left_child.indexOf(child) : tree.right_child.indexOf(child);
      return at < 0 ? [] : [at, ...parents(at)];
    };
    for (const p of parents(~leaf)) tree.internal_count[p]! -= removed;
    const random = rng(3);
    const rows = Array.from({ length: 10 }, () => randomRow(random, 4));
    const alone = compileModel({ ...source, trees: [tree] });
    for (const x of rows) expect(Array.from(treeShap(alone, x))).toEqual(Array.from(treeShapReference(alone, x)));
    expect(agree(compileModel(source), rows)).toBeLessThan(1e-12);
  });

  it('integrates every polynomial of degree below 2n exactly with n Gauss–Legendre points', () => {
    for (let n = 1; n <= 16; n++) {
      const { nodes, weights } = gaussLegendre01(n);
      for (let degree = 0; degree < 2 * n; degree++) {
        let integral = 0;
        for (let q = 0; q < n; q++) integral += weights[q]! * nodes[q]! ** degree;
        expect(Math.abs(integral - 1 / (degree + 1))).toBeLessThan(1e-14);
      }
    }
  });
});

describe('prediction over the flat forest and by QuickScorer', () => {
  const awkward = [NaN, 0, -0, 1e-36, -1e-36, Math.fround(1e-35), -0.5, -1, 0.5, 2, 2.9, 33, 70, 71, 1e12, Infinity, -Infinity];

  it('reaches the same leaves as the per-tree walk, on awkward values too', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.array(fc.oneof(fc.constantFrom(...awkward), fc.double({ min: -2, max: 4, noNaN: true })), { minLength: 5, maxLength: 5 }), (seed, values) => {
        const model = compileModel(randomModel(seed, 5, 6, 20));
        const x = Float64Array.from(values);
        let expected = 0;
        for (const tree of model.trees) expected += model.leaves.value[tree.leafBase + leafIndex(model, tree, x)]!;
        expect(predictRaw(model, x)).toBe(expected);
      }),
      { numRuns: 500, seed: 7 },
    );
  });

  const awkwardRow = (size: number) =>
    fc.array(fc.oneof(fc.constantFrom(...awkward), fc.double({ min: -2, max: 4, noNaN: true }), fc.integer({ min: -3, max: 80 })), { minLength: size, maxLength: size });

  it('scores exactly as the tree walk, up to 32 leaves per tree, with categorical sets empty, short and multi-word', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), awkwardRow(4), fc.array(fc.nat(), { minLength: 4, maxLength: 4 }), (seed, values, pick) => {
        const model = compileModel(randomModel(seed, 4, 12, 32, seed % 3 === 0 ? 0.5 : 0));
        const scorer = buildQuickScorer(forestOf(model));
        expect(scorer).not.toBeNull();
        // Half the features take a split's own threshold: ties must go left, as x <= threshold does.
        const thresholds = forestOf(model).threshold;
        const x = Float64Array.from(values, (v, i) => (pick[i]! % 2 === 0 && thresholds.length > 0 ? thresholds[pick[i]! % thresholds.length]! : v));
        expect(quickScore(scorer!, x)).toBe(walkForest(model, x));
        expect(predictRaw(model, x)).toBe(walkForest(model, x));
      }),
      { numRuns: 400, seed: 11 },
    );
  });

  it('keeps the tree walk for a tree of more than 32 leaves', () => {
    const source = randomModel(5, 3, 1, 1);
    const wide = compileModel({ ...source, trees: [...source.trees, randomModel(9, 3, 1, 1).trees[0]!, randomTree(rng(3), 3, 33)] });
    expect(buildQuickScorer(forestOf(wide))).toBeNull();
    const x = Float64Array.of(0.5, NaN, 2);
    expect(predictRaw(wide, x)).toBe(walkForest(wide, x));
    const at32 = compileModel({ ...source, trees: [randomTree(rng(4), 3, 32)] });
    expect(buildQuickScorer(forestOf(at32))).not.toBeNull();
  });
});
