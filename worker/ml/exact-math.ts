/**
 * `exp` and `log` computed from IEEE-754 arithmetic alone (+, −, ×, ÷ and exact bit operations),
 * after the algorithms of Sun's fdlibm (e_exp.c, e_log.c; error below 1 ulp). The JavaScript
 * engine's `Math.exp` and `Math.log` are not specified to the bit and do differ between the V8 in
 * Node and the one in workerd (about one value in ten, in the last bit), which made the same
 * definition train different trees in set-up and on the dashboard. Every ML result that is stored
 * (trees, leaf values, reports) is computed with these, so it is the same in any engine; a test
 * builds one dataset in both runtimes and compares the model files byte for byte.
 */

const view = new DataView(new ArrayBuffer(8));
const highWord = (x: number) => {
  view.setFloat64(0, x, false);
  return view.getInt32(0, false);
};
const lowWord = (x: number) => {
  view.setFloat64(0, x, false);
  return view.getInt32(4, false);
};
const withHighWord = (x: number, high: number) => {
  view.setFloat64(0, x, false);
  view.setInt32(0, high, false);
  return view.getFloat64(0, false);
};
/** 2^k for −1022 ≤ k ≤ 1023, exactly. */
const twoTo = (k: number) => {
  view.setInt32(0, (k + 1023) << 20, false);
  view.setInt32(4, 0, false);
  return view.getFloat64(0, false);
};

const LN2_HI = 6.93147180369123816490e-1;
const LN2_LO = 1.90821492927058770002e-10;
const INV_LN2 = 1.4426950408889634074;
const EXP_OVERFLOW = 7.09782712893383973096e2;
const EXP_UNDERFLOW = -7.45133219101941108420e2;
const P1 = 1.66666666666666019037e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.65339022054652515390e-6;
const P5 = 4.13813679705723846039e-8;

/** e^x, the same to the bit in every engine. */
export function exp(x: number): number {
  if (Number.isNaN(x)) return x;
  if (x > EXP_OVERFLOW) return Infinity;
  if (x < EXP_UNDERFLOW) return 0;
  const ax = Math.abs(x);
  if (ax < 3.725290298461914e-9) return 1 + x; // |x| < 2^-28
  // x = k·ln2 + r, |r| ≤ ln2/2; k·LN2_HI is exact (LN2_HI has its low bits zero).
  const k = ax > 0.5 * 0.6931471805599453 ? Math.trunc(INV_LN2 * x + (x < 0 ? -0.5 : 0.5)) : 0;
  const hi = x - k * LN2_HI;
  const lo = k * LN2_LO;
  const r = k === 0 ? x : hi - lo;
  const t = r * r;
  const c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  if (k === 0) return 1 - ((r * c) / (c - 2) - r);
  const y = 1 - ((lo - (r * c) / (2 - c)) - hi);
  if (k > 1023) return y * 2 * twoTo(1023);
  if (k < -1021) return y * twoTo(k + 1000) * twoTo(-1000);
  return y * twoTo(k);
}

const TWO54 = 1.8014398509481984e16;
const LG1 = 6.666666666666735130e-1;
const LG2 = 3.999999999940941908e-1;
const LG3 = 2.857142874366239149e-1;
const LG4 = 2.222219843214978396e-1;
const LG5 = 1.818357216161805012e-1;
const LG6 = 1.531383769920937332e-1;
const LG7 = 1.479819860511658591e-1;

/** The natural logarithm, the same to the bit in every engine. */
export function log(input: number): number {
  let x = input;
  let hx = highWord(x);
  const lx = lowWord(x);
  let k = 0;
  if (hx < 0x00100000) {
    if (((hx & 0x7fffffff) | lx) === 0) return -Infinity;
    if (hx < 0) return NaN;
    // A subnormal: scaled into the normal range.
    k -= 54;
    x *= TWO54;
    hx = highWord(x);
  }
  if (hx >= 0x7ff00000) return x + x;
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  const i = (hx + 0x95f64) & 0x100000;
  // x or x/2, into [√2/2, √2).
  x = withHighWord(x, hx | (i ^ 0x3ff00000));
  k += i >> 20;
  const f = x - 1;
  const dk = k;
  if ((0x000fffff & (2 + hx)) < 3) {
    // |f| < 2^-20
    if (f === 0) return k === 0 ? 0 : dk * LN2_HI + dk * LN2_LO;
    const r = f * f * (0.5 - 0.33333333333333333 * f);
    return k === 0 ? f - r : dk * LN2_HI - ((r - dk * LN2_LO) - f);
  }
  const s = f / (2 + f);
  const z = s * s;
  const w = z * z;
  const t1 = w * (LG2 + w * (LG4 + w * LG6));
  const t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
  const r = t2 + t1;
  if (((hx - 0x6147a) | (0x6b851 - hx)) > 0) {
    const hfsq = 0.5 * f * f;
    return k === 0 ? f - (hfsq - s * (hfsq + r)) : dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f);
  }
  return k === 0 ? f - s * (f - r) : dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f);
}
