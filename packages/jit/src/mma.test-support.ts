// The one-warp 16×8×16 GEMM of the mma tests (simulator and GPU): the
// kernel, random bf16/f16 matrices and the CPU reference.
import { bfloat16Bits, bfloat16FromBits, float16Bits, float16FromBits } from '@cuda-js/core';
import { cuda, f32, jit, u32 } from './index.js';

/** A (16 × 16, row-major) and B (16 × 8, k × n, row-major) as 16-bit float bits, C (16 × 8) f32. */
export interface GemmInputs {
  readonly a: Uint16Array;
  readonly b: Uint16Array;
  readonly c: Float32Array;
}

/** D = A × B + C in f64 from the matrices' values, rounded once to f32. */
export function gemmReference(input: 'bf16' | 'f16', { a, b, c }: GemmInputs): Float32Array {
  const decode = input === 'bf16' ? bfloat16FromBits : float16FromBits;
  const d = new Float32Array(16 * 8);
  for (let m = 0; m < 16; m++)
    for (let n = 0; n < 8; n++) {
      let sum = c[m * 8 + n]!;
      for (let k = 0; k < 16; k++) sum += decode(a[m * 16 + k]!) * decode(b[k * 8 + n]!);
      d[m * 8 + n] = sum;
    }
  return d;
}

/** Matrices from `random` (0 ≤ r < 1): small values, so that f32 sums are near-exact. */
export function gemmInputs(input: 'bf16' | 'f16', random: () => number): GemmInputs {
  const bits = input === 'bf16' ? bfloat16Bits : float16Bits;
  const value = () => Math.round((random() * 2 - 1) * 64) / 16;
  return {
    a: Uint16Array.from({ length: 256 }, () => bits(value())),
    b: Uint16Array.from({ length: 128 }, () => bits(value())),
    c: Float32Array.from({ length: 128 }, value),
  };
}

/** A seeded generator (mulberry32). */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One warp: each lane loads its fragments from the row-major matrices by the
 * m16n8k16 layout (docs/tensor-cores.md), packs two 16-bit elements to a
 * u32 (the lower index in the lower half), runs the mma and stores D.
 */
export function gemmKernel(input: 'bf16' | 'f16', target: 'simulator' | 'gpu') {
  const options = { target } as const;
  const body =
    input === 'bf16'
      ? (A: Uint16Array, B: Uint16Array, C: Float32Array, D: Float32Array) => {
          const lane = cuda.laneid;
          const g = lane >> 2;
          const t = lane & 3;
          const a = cuda.local.array(4, u32);
          const b = cuda.local.array(2, u32);
          const c = cuda.local.array(4, f32);
          const d = cuda.local.array(4, f32);
          for (let j = 0; j < 4; j++) {
            const at = (g + (j & 1) * 8) * 16 + 2 * t + (j >> 1) * 8;
            a[j] = cuda.u32(A[at]! | (A[at + 1]! << 16));
          }
          for (let j = 0; j < 2; j++) {
            const k = 2 * t + 8 * j;
            b[j] = cuda.u32(B[k * 8 + g]! | (B[(k + 1) * 8 + g]! << 16));
          }
          for (let i = 0; i < 4; i++) c[i] = C[(g + (i >> 1) * 8) * 8 + 2 * t + (i & 1)]!;
          cuda.mma.m16n8k16_bf16(d, a, b, c);
          for (let i = 0; i < 4; i++) D[(g + (i >> 1) * 8) * 8 + 2 * t + (i & 1)] = d[i]!;
        }
      : (A: Uint16Array, B: Uint16Array, C: Float32Array, D: Float32Array) => {
          const lane = cuda.laneid;
          const g = lane >> 2;
          const t = lane & 3;
          const a = cuda.local.array(4, u32);
          const b = cuda.local.array(2, u32);
          const c = cuda.local.array(4, f32);
          const d = cuda.local.array(4, f32);
          for (let j = 0; j < 4; j++) {
            const at = (g + (j & 1) * 8) * 16 + 2 * t + (j >> 1) * 8;
            a[j] = cuda.u32(A[at]! | (A[at + 1]! << 16));
          }
          for (let j = 0; j < 2; j++) {
            const k = 2 * t + 8 * j;
            b[j] = cuda.u32(B[k * 8 + g]! | (B[(k + 1) * 8 + g]! << 16));
          }
          for (let i = 0; i < 4; i++) c[i] = C[(g + (i >> 1) * 8) * 8 + 2 * t + (i & 1)]!;
          cuda.mma.m16n8k16_f16(d, a, b, c);
          for (let i = 0; i < 4; i++) D[(g + (i >> 1) * 8) * 8 + 2 * t + (i & 1)] = d[i]!;
        };
  return jit(body, options);
}
