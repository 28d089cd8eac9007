/**
 * typed-ir.ts's bit functions (`popc`, `clz`, `ffs`, `brev`) on 32-bit
 * integers held as numbers and 64-bit ones held as bigints. Counts are i32
 * numbers; `brev` gives the bits as an unsigned value (the generated code
 * reinterprets it as the argument's type).
 */

export function popc32(x: number): number {
  let v = x >>> 0;
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) | 0;
}

const low = (x: bigint): number => Number(x & 0xffffffffn);
const high = (x: bigint): number => Number((x >> 32n) & 0xffffffffn);

export function popc64(x: bigint): number {
  return popc32(low(x)) + popc32(high(x));
}

export function clz64(x: bigint): number {
  const h = high(x);
  return h !== 0 ? Math.clz32(h) : 32 + Math.clz32(low(x));
}

/** 1-based position of the lowest set bit; 0 for 0. */
export function ffs32(x: number): number {
  return x === 0 ? 0 : 32 - Math.clz32(x & -x);
}

export function ffs64(x: bigint): number {
  const l = low(x);
  if (l !== 0) return ffs32(l);
  const h = high(x);
  return h !== 0 ? 32 + ffs32(h) : 0;
}

/** The 32 bits in reverse order, as a u32. */
export function brev32(x: number): number {
  let v = x >>> 0;
  v = ((v >>> 1) & 0x55555555) | ((v & 0x55555555) << 1);
  v = ((v >>> 2) & 0x33333333) | ((v & 0x33333333) << 2);
  v = ((v >>> 4) & 0x0f0f0f0f) | ((v & 0x0f0f0f0f) << 4);
  v = ((v >>> 8) & 0x00ff00ff) | ((v & 0x00ff00ff) << 8);
  return ((v >>> 16) | (v << 16)) >>> 0;
}

/** The 64 bits in reverse order, as a u64. */
export function brev64(x: bigint): bigint {
  return (BigInt(brev32(low(x))) << 32n) | BigInt(brev32(high(x)));
}
