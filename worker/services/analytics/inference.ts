/**
 * The inferential statistics behind the research figures, pure and deterministic so that a
 * researcher's own script (the export's `analysis/reproduce.py`) computes the same numbers:
 *
 * - a participant-level percentile bootstrap of a mean (and of a difference of two groups' means),
 *   drawn from a seeded mulberry32 stream: the interval stays inside the measure's range, and the
 *   same values always give the same interval;
 * - a logistic regression of a binary outcome on one covariate with participant-clustered
 *   (sandwich) standard errors, as statsmodels computes `Logit(y, X).fit(cov_type='cluster')`.
 */

/** Bootstrap resamples per interval. */
export const BOOTSTRAP_RESAMPLES = 2000;
/** The stream's seed: every interval restarts it, so an interval depends only on its values. */
export const BOOTSTRAP_SEED = 20190504;

/**
 * mulberry32 (Tommy Ettinger, public domain): a 32-bit generator whose every step is integer
 * arithmetic modulo 2^32, so Python's `reproduce.py` draws the same numbers bit for bit.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The p-quantile of sorted values by linear interpolation between order statistics (Hyndman & Fan type 7, numpy's default). */
export function quantileSorted(sorted: Float64Array | number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

const sum = (values: readonly number[]) => {
  let s = 0;
  for (const v of values) s += v;
  return s;
};

/** Mean of one resample of `values` (n draws with replacement from the stream). */
function resampleMean(values: readonly number[], next: () => number): number {
  const n = values.length;
  let s = 0;
  for (let i = 0; i < n; i++) s += values[Math.floor(next() * n)]!;
  return s / n;
}

export type MeanInterval = { mean: number | null; ci_low: number | null; ci_high: number | null };

/**
 * Mean of participants' values with a 95% percentile-bootstrap interval (participants resampled
 * with replacement, BOOTSTRAP_RESAMPLES times). No interval below two participants.
 */
export function bootstrapMean(values: readonly number[]): MeanInterval {
  const n = values.length;
  if (n === 0) return { mean: null, ci_low: null, ci_high: null };
  const mean = sum(values) / n;
  if (n < 2) return { mean, ci_low: null, ci_high: null };
  const next = mulberry32(BOOTSTRAP_SEED);
  const means = new Float64Array(BOOTSTRAP_RESAMPLES);
  for (let b = 0; b < BOOTSTRAP_RESAMPLES; b++) means[b] = resampleMean(values, next);
  means.sort();
  return { mean, ci_low: quantileSorted(means, 0.025), ci_high: quantileSorted(means, 0.975) };
}

/**
 * Difference of two independent groups' participant means (b − a) with a 95% percentile-bootstrap
 * interval: each replicate resamples group a, then group b, from one stream. None unless both groups have two participants.
 */
export function bootstrapDifference(a: readonly number[], b: readonly number[]): MeanInterval {
  if (a.length === 0 || b.length === 0) return { mean: null, ci_low: null, ci_high: null };
  const difference = sum(b) / b.length - sum(a) / a.length;
  if (a.length < 2 || b.length < 2) return { mean: difference, ci_low: null, ci_high: null };
  const next = mulberry32(BOOTSTRAP_SEED);
  const diffs = new Float64Array(BOOTSTRAP_RESAMPLES);
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    const ma = resampleMean(a, next);
    diffs[r] = resampleMean(b, next) - ma;
  }
  diffs.sort();
  return { mean: difference, ci_low: quantileSorted(diffs, 0.025), ci_high: quantileSorted(diffs, 0.975) };
}

/**
 * erfc(x) to double precision: the Maclaurin series of erf for |x| < 2, a continued fraction
 * (modified Lentz) beyond. Only for the normal tail probabilities of the logit model's z-tests.
 */
export function erfc(x: number): number {
  if (x < 0) return 2 - erfc(-x);
  if (x < 2) {
    // erf(x) = 2/√π Σ (−1)^k x^(2k+1) / (k! (2k+1))
    let term = x;
    let s = x;
    for (let k = 1; k < 100; k++) {
      term *= (-x * x) / k;
      const add = term / (2 * k + 1);
      s += add;
      if (Math.abs(add) < 1e-17 * Math.abs(s)) break;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * s;
  }
  // erfc(x) = exp(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 500; k++) {
    const a = k / 2;
    d = x + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = x + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** Two-sided p-value of a standard-normal z. */
export const twoSidedP = (z: number) => erfc(Math.abs(z) / Math.SQRT2);
/** The 97.5th percentile of the standard normal (scipy.stats.norm.ppf(0.975)). */
export const Z975 = 1.959963984540054;

/** Trials sharing a cluster (participant) and covariate value: `successes` of `trials` had the outcome. */
export type LogitCell = { cluster: number; x: number; trials: number; successes: number };

export type ClusteredLogit = {
  /** Trials and clusters (participants) in the fit. */
  trials: number;
  participants: number;
  intercept: number;
  slope: number;
  intercept_se: number;
  slope_se: number;
  slope_z: number;
  slope_p: number;
  slope_ci_low: number;
  slope_ci_high: number;
  /** exp(slope): the odds ratio from alpha 0 to alpha 1. */
  odds_ratio: number;
  iterations: number;
};

export type LogitRefusal = { refused: 'too_few_participants' | 'no_variation_in_outcome' | 'no_variation_in_covariate' | 'not_converged'; trials: number; participants: number };

const expit = (eta: number) => (eta >= 0 ? 1 / (1 + Math.exp(-eta)) : Math.exp(eta) / (1 + Math.exp(eta)));

/**
 * Maximum-likelihood logistic regression of the outcome on an intercept and x (Newton–Raphson from
 * zero, as statsmodels' default), with the cluster-robust covariance statsmodels uses for
 * `cov_type='cluster'`: H⁻¹ (Σ_g s_g s_gᵀ) H⁻¹ × G/(G−1) × (N−1)/(N−k), where s_g is cluster g's
 * summed score, H the Hessian, G the clusters, N the trials and k = 2 parameters; z-based inference
 * (Logit's default `use_t=False`). Cameron & Miller (2015), "A Practitioner's Guide to
 * Cluster-Robust Inference", J. Human Resources 50(2).
 */
export function clusteredLogit(cells: readonly LogitCell[]): ClusteredLogit | LogitRefusal {
  const cells_ = cells.filter((c) => c.trials > 0);
  const clusters = [...new Set(cells_.map((c) => c.cluster))];
  const N = cells_.reduce((a, c) => a + c.trials, 0);
  const Y = cells_.reduce((a, c) => a + c.successes, 0);
  const base = { trials: N, participants: clusters.length };
  if (clusters.length < 2) return { refused: 'too_few_participants', ...base };
  if (Y === 0 || Y === N) return { refused: 'no_variation_in_outcome', ...base };
  if (new Set(cells_.map((c) => c.x)).size < 2) return { refused: 'no_variation_in_covariate', ...base };

  let b0 = 0;
  let b1 = 0;
  let iterations = 0;
  let converged = false;
  for (; iterations < 100; ) {
    iterations++;
    let g0 = 0, g1 = 0, h00 = 0, h01 = 0, h11 = 0;
    for (const c of cells_) {
      const p = expit(b0 + b1 * c.x);
      const r = c.successes - c.trials * p;
      const w = c.trials * p * (1 - p);
      g0 += r;
      g1 += r * c.x;
      h00 += w;
      h01 += w * c.x;
      h11 += w * c.x * c.x;
    }
    const det = h00 * h11 - h01 * h01;
    if (!(det > 0)) break;
    const d0 = (h11 * g0 - h01 * g1) / det;
    const d1 = (h00 * g1 - h01 * g0) / det;
    b0 += d0;
    b1 += d1;
    if (!Number.isFinite(b0) || !Number.isFinite(b1) || Math.abs(b1) > 50) break;
    if (Math.max(Math.abs(d0), Math.abs(d1)) < 1e-12) {
      converged = true;
      break;
    }
  }
  if (!converged) return { refused: 'not_converged', ...base };

  // Information matrix (the negative Hessian) at the estimate, and each cluster's summed score.
  let h00 = 0, h01 = 0, h11 = 0;
  const scores = new Map<number, [number, number]>();
  for (const c of cells_) {
    const p = expit(b0 + b1 * c.x);
    const r = c.successes - c.trials * p;
    const w = c.trials * p * (1 - p);
    h00 += w;
    h01 += w * c.x;
    h11 += w * c.x * c.x;
    const s = scores.get(c.cluster) ?? [0, 0];
    s[0] += r;
    s[1] += r * c.x;
    scores.set(c.cluster, s);
  }
  let m00 = 0, m01 = 0, m11 = 0;
  for (const [s0, s1] of scores.values()) {
    m00 += s0 * s0;
    m01 += s0 * s1;
    m11 += s1 * s1;
  }
  const det = h00 * h11 - h01 * h01;
  // Inverse of the information matrix.
  const i00 = h11 / det, i01 = -h01 / det, i11 = h00 / det;
  // Sandwich A M A with A symmetric.
  const a00 = i00 * m00 + i01 * m01, a01 = i00 * m01 + i01 * m11;
  const a10 = i01 * m00 + i11 * m01, a11 = i01 * m01 + i11 * m11;
  const G = clusters.length;
  const correction = (G / (G - 1)) * ((N - 1) / (N - 2));
  const v00 = (a00 * i00 + a01 * i01) * correction;
  const v11 = (a10 * i01 + a11 * i11) * correction;
  const se0 = Math.sqrt(v00);
  const se1 = Math.sqrt(v11);
  const z = b1 / se1;
  return {
    ...base,
    intercept: b0,
    slope: b1,
    intercept_se: se0,
    slope_se: se1,
    slope_z: z,
    slope_p: twoSidedP(z),
    slope_ci_low: b1 - Z975 * se1,
    slope_ci_high: b1 + Z975 * se1,
    odds_ratio: Math.exp(b1),
    iterations,
  };
}
