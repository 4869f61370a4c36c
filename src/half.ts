/**
 * Conversions for 16-bit floats held as Uint16Array bits: IEEE 754 half (FP16) and bfloat16 (BF16).
 *
 * @module
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE half-precision bits → number. */
export function fp16ToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** number → IEEE half-precision bits (round to nearest even). */
export function numberToFp16(value: number): number {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let r = mant >> shift;
    const rest = mant & ((1 << shift) - 1);
    if (rest > half || (rest === half && (r & 1))) r++;
    return sign | r;
  }
  let r = mant >> 13;
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (r & 1))) {
    r++;
    if (r === 0x400) {
      r = 0;
      e++;
      if (e >= 0x1f) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | r;
}

/** bfloat16 bits → number. */
export function bf16ToNumber(bits: number): number {
  u32[0] = bits << 16;
  return f32[0];
}

/** number → bfloat16 bits (round to nearest even; NaN stays NaN). */
export function numberToBf16(value: number): number {
  f32[0] = value;
  const x = u32[0];
  if ((x & 0x7fffffff) > 0x7f800000) return (x >>> 16) | 0x40;
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}
