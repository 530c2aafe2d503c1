/**
 * The inferential statistics behind the research figures, pure and deterministic so that a
 * researcher's own script (the export's `analysis/reproduce.py`) computes the same numbers:
 *
 * - a participant-level percentile bootstrap of a mean (and of a difference of two groups' means),
 *   drawn from a seeded mulberry32 stream of the group's own: the interval stays inside the
 *   measure's range, and the same values in the same group always give the same interval;
 * - a logistic regression of a binary outcome on one covariate with participant-clustered
 *   (sandwich) standard errors and the small-cluster t reference with G − 1 degrees of freedom, as
 *   statsmodels computes `Logit(y, X).fit(cov_type='cluster', use_t=True)`.
 */

/** Bootstrap resamples per interval. */
export const BOOTSTRAP_RESAMPLES = 2000;
/** The seed every group's stream is derived from (`streamSeed`). */
export const BOOTSTRAP_SEED = 20190504;

/**
 * A group's own stream seed: BOOTSTRAP_SEED XOR the 32-bit FNV-1a hash of the group's name (its
 * UTF-8 bytes). Groups of one size would otherwise draw the same resamples, and their intervals'
 * Monte Carlo errors would be correlated; the same group always draws the same stream.
 */
export function streamSeed(group: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(group)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (BOOTSTRAP_SEED ^ hash) >>> 0;
}

/**
 * mulberry32 (Tommy Ettinger, public domain): a 32-bit generator whose every step is integer
 * arithmetic modulo 2^32, so Python's `reproduce.py` draws the same numbers bit for bit.
 */
/** A mulberry32 stream's state, for loops that inline its steps. */
type Mulberry32 = { state: number };

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

export type MeanInterval = { mean: number | null; ci_low: number | null; ci_high: number | null };

/** A table of participants (rows) × measures (columns), null where a measure is undefined for a participant. */
export type ValueTable = readonly (readonly (number | null)[])[];

/** The table column by column, NaN where a measure is undefined for a participant. */
function columnsOf(rows: ValueTable, measures: number) {
  const columns = Array.from({ length: measures }, (_, k) => Float64Array.from(rows, (row) => row[k] ?? NaN));
  return { columns, n: rows.length, drawn: new Int32Array(rows.length) };
}

/**
 * Draws n participants with replacement (n = the table's participants) and adds, per measure, the
 * drawn participants' defined values and their number to `sums` and `counts`.
 */
function drawInto(t: ReturnType<typeof columnsOf>, stream: Mulberry32, sums: Float64Array, counts: Float64Array) {
  const { n, drawn } = t;
  // mulberry32 inlined (the same steps as `mulberry32` above): this loop runs millions of times per report.
  let a = stream.state;
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), a | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    drawn[i] = Math.floor((((x ^ (x >>> 14)) >>> 0) / 4294967296) * n);
  }
  stream.state = a;
  for (let k = 0; k < t.columns.length; k++) {
    const column = t.columns[k]!;
    let s = 0;
    let c = 0;
    for (let i = 0; i < n; i++) {
      const v = column[drawn[i]!]!;
      // NaN (undefined for the participant) is the one value unequal to itself.
      if (v === v) {
        s += v;
        c++;
      }
    }
    sums[k] = s;
    counts[k] = c;
  }
}

/** The 95% percentile interval of replicate statistics, leaving out replicates where the statistic was undefined (NaN). */
function percentileInterval(replicates: Float64Array): [number | null, number | null] {
  const kept = replicates.filter((x) => !Number.isNaN(x)).sort();
  return kept.length === 0 ? [null, null] : [quantileSorted(kept, 0.025), quantileSorted(kept, 0.975)];
}

/** Each measure's mean over the participants it is defined for. */
function columnMeans(rows: ValueTable, measures: number): { mean: number | null; participants: number }[] {
  return Array.from({ length: measures }, (_, k) => {
    const values = rows.map((r) => r[k]).filter((v): v is number => v !== null && v !== undefined);
    return { mean: values.length ? sum(values) / values.length : null, participants: values.length };
  });
}

/**
 * Each measure's mean over participants, with a 95% percentile-bootstrap interval from one
 * participant-level bootstrap: each of BOOTSTRAP_RESAMPLES replicates draws n participants with
 * replacement (n = the group's participants) and takes, for every measure, the mean over the drawn
 * participants it is defined for (a replicate with none is left out of that measure's interval).
 * No interval for a measure defined for fewer than two participants.
 */
export function bootstrapMeans(rows: ValueTable, measures: number, group: string): MeanInterval[] {
  const means = columnMeans(rows, measures);
  if (!means.some((m) => m.participants >= 2)) return means.map((m) => ({ mean: m.mean, ci_low: null, ci_high: null }));
  const t = columnsOf(rows, measures);
  const stream: Mulberry32 = { state: streamSeed(group) };
  const replicates = Array.from({ length: measures }, () => new Float64Array(BOOTSTRAP_RESAMPLES));
  const sums = new Float64Array(measures);
  const counts = new Float64Array(measures);
  for (let b = 0; b < BOOTSTRAP_RESAMPLES; b++) {
    drawInto(t, stream, sums, counts);
    for (let k = 0; k < measures; k++) replicates[k]![b] = counts[k]! > 0 ? sums[k]! / counts[k]! : NaN;
  }
  return means.map((m, k) => {
    if (m.participants < 2) return { mean: m.mean, ci_low: null, ci_high: null };
    const [low, high] = percentileInterval(replicates[k]!);
    return { mean: m.mean, ci_low: low, ci_high: high };
  });
}

/**
 * Each measure's difference between two independent groups' participant means (b − a), with a 95%
 * percentile-bootstrap interval: each replicate draws group a's participants, then group b's, from
 * the pair's own stream (`group` names the pair). None where either group has fewer than two
 * participants with a value.
 */
export function bootstrapDifferences(a: ValueTable, b: ValueTable, measures: number, group: string): MeanInterval[] {
  const ma = columnMeans(a, measures);
  const mb = columnMeans(b, measures);
  const difference = (k: number) => (ma[k]!.mean === null || mb[k]!.mean === null ? null : mb[k]!.mean! - ma[k]!.mean!);
  const estimable = (k: number) => ma[k]!.participants >= 2 && mb[k]!.participants >= 2;
  if (!Array.from({ length: measures }, (_, k) => estimable(k)).some(Boolean)) {
    return Array.from({ length: measures }, (_, k) => ({ mean: difference(k), ci_low: null, ci_high: null }));
  }
  const ta = columnsOf(a, measures);
  const tb = columnsOf(b, measures);
  const stream: Mulberry32 = { state: streamSeed(group) };
  const replicates = Array.from({ length: measures }, () => new Float64Array(BOOTSTRAP_RESAMPLES));
  const sa = new Float64Array(measures), ca = new Float64Array(measures), sb = new Float64Array(measures), cb = new Float64Array(measures);
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    drawInto(ta, stream, sa, ca);
    drawInto(tb, stream, sb, cb);
    for (let k = 0; k < measures; k++) replicates[k]![r] = ca[k]! > 0 && cb[k]! > 0 ? sb[k]! / cb[k]! - sa[k]! / ca[k]! : NaN;
  }
  return Array.from({ length: measures }, (_, k) => {
    if (!estimable(k)) return { mean: difference(k), ci_low: null, ci_high: null };
    const [low, high] = percentileInterval(replicates[k]!);
    return { mean: difference(k), ci_low: low, ci_high: high };
  });
}

/** One measure's mean with its interval (a one-column table), drawn from `group`'s stream. */
export const bootstrapMean = (values: readonly number[], group = ''): MeanInterval => bootstrapMeans(values.map((v) => [v]), 1, group)[0]!;
/** One measure's difference of means with its interval. */
export const bootstrapDifference = (a: readonly number[], b: readonly number[], group = ''): MeanInterval =>
  bootstrapDifferences(a.map((v) => [v]), b.map((v) => [v]), 1, group)[0]!;

/** The Lanczos coefficients for g = 7, n = 9 (Godfrey's; relative error of ln Γ below 1e-15 for x > 0). */
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
  1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 by the Lanczos approximation (Press et al., Numerical Recipes, 3rd ed., §6.1). */
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The continued fraction of the incomplete beta function, by the modified Lentz method (Numerical Recipes §6.4, `betacf`). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  const guard = (v: number) => (Math.abs(v) < tiny ? tiny : v);
  let c = 1;
  let d = 1 / guard(1 - ((a + b) * x) / (a + 1));
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    const even = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 / guard(1 + even * d);
    c = guard(1 + even / c);
    h *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 / guard(1 + odd * d);
    c = guard(1 + odd / c);
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-16) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b) (Numerical Recipes §6.4, `betai`). */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** Two-sided p-value of Student's t with `df` degrees of freedom: P(|T| ≥ |t|) = I_{df/(df+t²)}(df/2, 1/2). */
export const tTwoSidedP = (t: number, df: number) => regularizedBeta(df / (df + t * t), df / 2, 0.5);

/**
 * The critical value c with P(|T| ≥ c) = 1 − level for Student's t with `df` degrees of freedom
 * (scipy's `t.ppf((1 + level) / 2, df)`), by bisection on the two-sided p-value to the last bits.
 */
export function tCritical(level: number, df: number): number {
  const p = 1 - level;
  let lo = 0;
  let hi = 1;
  while (tTwoSidedP(hi, df) > p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (tTwoSidedP(mid, df) > p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Below this many clusters the tab and the export say the cluster-robust inference rests on few participants (Cameron & Miller 2015). */
export const FEW_CLUSTERS = 30;

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
  /** slope ÷ slope_se, referred to Student's t with `df` degrees of freedom. */
  slope_t: number;
  /** Degrees of freedom of the t reference: participants (clusters) − 1. */
  df: number;
  slope_p: number;
  slope_ci_low: number;
  slope_ci_high: number;
  /** Fewer than FEW_CLUSTERS participants: the cluster-robust standard errors rest on few clusters. */
  few_clusters: boolean;
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
 * summed score, H the Hessian, G the clusters, N the trials and k = 2 parameters. Inference refers
 * the slope's ratio to its standard error to Student's t with G − 1 degrees of freedom, the
 * small-cluster reference (statsmodels' `use_t=True` for cluster covariances): with the 5–30
 * participants a condition often has, normal z-tests overstate certainty. Cameron & Miller (2015),
 * "A Practitioner's Guide to Cluster-Robust Inference", J. Human Resources 50(2), §VI.
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
  const t = b1 / se1;
  const df = G - 1;
  const critical = tCritical(0.95, df);
  return {
    ...base,
    intercept: b0,
    slope: b1,
    intercept_se: se0,
    slope_se: se1,
    slope_t: t,
    df,
    slope_p: tTwoSidedP(t, df),
    slope_ci_low: b1 - critical * se1,
    slope_ci_high: b1 + critical * se1,
    few_clusters: G < FEW_CLUSTERS,
    odds_ratio: Math.exp(b1),
    iterations,
  };
}
