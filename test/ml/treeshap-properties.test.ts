import { describe, expect, it } from 'vitest';
import { compileModel, DecisionType, emptyTree, MODEL_FORMAT, MODEL_FORMAT_VERSION, type GbdtModel, type SerializedTree } from '../../worker/ml/model';
import { decide, predictRaw } from '../../worker/ml/predict';
import { seededRandom as rng } from '../../worker/ml/random';
import { treeShap } from '../../worker/ml/treeshap';


/** A random tree with consistent counts: every internal count is the sum of its children's. */
function randomTree(random: () => number, numFeatures: number, numLeaves: number): SerializedTree {
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
      t.cat_sets.push([0, 2].filter(() => random() < 0.7));
    } else {
      t.threshold.push(random() * 4 - 1);
    }
    t.default_left.push(random() < 0.5 ? 1 : 0);
    t.missing_type.push(Math.floor(random() * 3) as 0 | 1 | 2);
    t.left_child.push(0);
    t.right_child.push(0);
    t.internal_count.push(0);
    const leftLeaves = 1 + Math.floor(random() * (remainingLeaves - 1));
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

function randomModel(seed: number, numFeatures: number, numTrees: number, maxLeaves: number): GbdtModel {
  const random = rng(seed);
  return {
    format: MODEL_FORMAT,
    version: MODEL_FORMAT_VERSION,
    objective: 'binary',
    feature_names: Array.from({ length: numFeatures }, (_, i) => `f${i}`),
    categorical_features: [],
    category_codes: {},
    trees: Array.from({ length: numTrees }, () => randomTree(random, numFeatures, 1 + Math.floor(random() * maxLeaves))),
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
  for (const tree of model.trees) {
    const walk = (node: number): number => {
      if (node < 0) return tree.leafValue[~node]!;
      if (known.has(tree.splitFeature[node]!)) return walk(decide(tree, node, x));
      const l = tree.left[node]!;
      const r = tree.right[node]!;
      const cover = (n: number) => (n >= 0 ? tree.internalCount[n]! : tree.leafCount[~n]!);
      return (cover(l) * walk(l) + cover(r) * walk(r)) / tree.internalCount[node]!;
    };
    total += tree.numLeaves === 1 ? tree.leafValue[0]! : walk(0);
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
    const model = compileModel(randomModel(7, 3, 5, 10));
    const unused = compileModel({ ...model.source, feature_names: [...model.source.feature_names, 'never_split'] });
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
});
