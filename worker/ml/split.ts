/**
 * Seeded, stratified train/test splitting that reproduces scikit-learn 1.2's
 * `train_test_split(test_size, stratify=y, random_state=seed)` exactly: numpy's legacy
 * `RandomState` (MT19937 seeded by `init_genrand`, shuffles via masked rejection sampling) driving
 * `StratifiedShuffleSplit`. Using the same procedure as the LightGBM reference lets our models be
 * compared with it on identical held-out rows, and gives the platform's own split a well-known,
 * documented definition. Cross-validation's stratified folds are dealt from the same generator.
 */
import type { PreparedDataset } from './dataset-source';

/** MT19937 with numpy's legacy integer seeding. */
export class Mt19937 {
  private readonly state = new Uint32Array(624);
  private index = 624;

  constructor(seed: number) {
    let s = seed >>> 0;
    for (let i = 0; i < 624; i++) {
      this.state[i] = s;
      s = (Math.imul(1812433253, s ^ (s >>> 30)) + i + 1) >>> 0;
    }
  }

  private twist(): void {
    const mt = this.state;
    for (let i = 0; i < 624; i++) {
      const y = (mt[i]! & 0x80000000) | (mt[(i + 1) % 624]! & 0x7fffffff);
      let next = mt[(i + 397) % 624]! ^ (y >>> 1);
      if (y & 1) next ^= 0x9908b0df;
      mt[i] = next;
    }
    this.index = 0;
  }

  nextUint32(): number {
    if (this.index >= 624) this.twist();
    let y = this.state[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** numpy's `random_interval(max)`: uniform in [0, max] by masking and rejection. */
  interval(max: number): number {
    if (max === 0) return 0;
    let mask = max;
    mask |= mask >>> 1;
    mask |= mask >>> 2;
    mask |= mask >>> 4;
    mask |= mask >>> 8;
    mask |= mask >>> 16;
    let value: number;
    do value = (this.nextUint32() & mask) >>> 0;
    while (value > max);
    return value;
  }

  /** numpy's legacy `RandomState.permutation(n)`: a Fisher–Yates shuffle of 0..n-1, from the end. */
  permutation(n: number): number[] {
    const a = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i >= 1; i--) {
      const j = this.interval(i);
      const t = a[i]!;
      a[i] = a[j]!;
      a[j] = t;
    }
    return a;
  }
}

/** scikit-learn's `_approximate_mode`: class shares of `draws`, ties in the remainders broken at random. */
function approximateMode(classCounts: number[], draws: number, rng: Mt19937): number[] {
  const total = classCounts.reduce((a, b) => a + b, 0);
  const continuous = classCounts.map((c) => (c / total) * draws);
  const floored = continuous.map(Math.floor);
  let needToAdd = Math.trunc(draws - floored.reduce((a, b) => a + b, 0));
  if (needToAdd > 0) {
    const remainder = continuous.map((c, i) => c - floored[i]!);
    const values = [...new Set(remainder)].sort((a, b) => b - a);
    for (const value of values) {
      const indices = remainder.flatMap((r, i) => (r === value ? [i] : []));
      const addNow = Math.min(indices.length, needToAdd);
      const chosen = rng.permutation(indices.length).slice(0, addNow).map((k) => indices[k]!);
      for (const i of chosen) floored[i]!++;
      needToAdd -= addNow;
      if (needToAdd === 0) break;
    }
  }
  return floored;
}

/**
 * Stratified split of row indices 0..n-1 by their 0/1 labels; returns sorted index lists.
 * Equals scikit-learn's `train_test_split(range(n), test_size=testSize, stratify=labels,
 * random_state=seed)` as sets.
 */
export function stratifiedSplit(labels: ArrayLike<number>, testSize: number, seed: number): { train: number[]; test: number[] } {
  const n = labels.length;
  const nTest = Math.ceil(testSize * n);
  const nTrain = n - nTest;
  const classes = [...new Set(Array.from(labels))].sort((a, b) => a - b);
  const classIndices = classes.map((c) => Array.from(labels).flatMap((y, i) => (y === c ? [i] : [])));
  const classCounts = classIndices.map((ix) => ix.length);
  const rng = new Mt19937(seed);
  const trainPerClass = approximateMode(classCounts, nTrain, rng);
  const testPerClass = approximateMode(
    classCounts.map((c, i) => c - trainPerClass[i]!),
    nTest,
    rng,
  );
  const train: number[] = [];
  const test: number[] = [];
  classIndices.forEach((indices, i) => {
    const permuted = rng.permutation(indices.length).map((k) => indices[k]!);
    train.push(...permuted.slice(0, trainPerClass[i]));
    test.push(...permuted.slice(trainPerClass[i], trainPerClass[i]! + testPerClass[i]!));
  });
  return { train: train.sort((a, b) => a - b), test: test.sort((a, b) => a - b) };
}

/** Stratified folds over `indices`, dealt round-robin per label after a seeded shuffle. */
export function stratifiedFolds(data: PreparedDataset, indices: readonly number[], folds: number, seed: number): number[][] {
  const rng = new Mt19937(seed);
  const shuffled = rng.permutation(indices.length).map((k) => indices[k]!);
  const result: number[][] = Array.from({ length: folds }, () => []);
  for (const label of [0, 1]) {
    shuffled.filter((i) => data.examples[i]!.label === label).forEach((i, k) => result[k % folds]!.push(i));
  }
  return result;
}
