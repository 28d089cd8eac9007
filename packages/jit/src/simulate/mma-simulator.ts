// A warp's mma (intrinsics/mma.ts) in the simulator: the lanes' fragments
// gathered into the matrices by the PTX ISA's fragment layout
// (M16N8K16_LAYOUT), D = A × B + C in f32, and each lane's D fragment back.
import { bfloat16FromBits, float16FromBits } from '@cuda-js/core';
import { M16N8K16_LAYOUT, mmaRow } from '../intrinsics/mma.js';

/** The matrices of an m16n8k16 mma: A (16 × 16, row-major), B (16 × 8, k × n, row-major), C (16 × 8, row-major). */
export interface MmaMatrices {
  readonly a: Float64Array;
  readonly b: Float64Array;
  readonly c: Float64Array;
}

/**
 * The matrices that the 32 lanes' registers hold: `registers[lane]` is the
 * lane's a (4 u32), b (2 u32) and c (4 f32), in order; each u32 packs two
 * 16-bit elements, the lower index in the lower half.
 */
export function mmaMatrices(shape: string, registers: readonly (readonly number[])[]): MmaMatrices {
  const row = mmaRow(shape);
  if (row?.m !== 16 || row.n !== 8 || row.k !== 16) throw new Error(`simulator: an mma of shape '${shape}'`);
  const decode = row.input === 'bf16' ? bfloat16FromBits : float16FromBits;
  const a = new Float64Array(16 * 16);
  const b = new Float64Array(16 * 8);
  const c = new Float64Array(16 * 8);
  for (let lane = 0; lane < 32; lane++) {
    const r = registers[lane]!;
    for (let i = 0; i < 8; i++) {
      const [m, k] = M16N8K16_LAYOUT.a(lane, i);
      a[m * 16 + k] = decode((r[i >> 1]! >>> ((i & 1) * 16)) & 0xffff);
    }
    for (let i = 0; i < 4; i++) {
      const [k, n] = M16N8K16_LAYOUT.b(lane, i);
      b[k * 8 + n] = decode((r[4 + (i >> 1)]! >>> ((i & 1) * 16)) & 0xffff);
    }
    for (let i = 0; i < 4; i++) {
      const [m, n] = M16N8K16_LAYOUT.c(lane, i);
      c[m * 8 + n] = r[6 + i]!;
    }
  }
  return { a, b, c };
}

/**
 * D = A × B + C of the 32 lanes' registers (see {@link mmaMatrices}); gives
 * each lane's D fragment (4 f32). The products of 16-bit floats are exact in
 * f64, as is their sum but for far-apart magnitudes; D rounds once to f32
 * (the GPU adds in another order: compare with a tolerance).
 */
export function mmaWarp(shape: string, registers: readonly (readonly number[])[]): number[][] {
  const { a, b, c } = mmaMatrices(shape, registers);
  const d = new Float64Array(16 * 8);
  for (let m = 0; m < 16; m++)
    for (let n = 0; n < 8; n++) {
      let sum = c[m * 8 + n]!;
      for (let k = 0; k < 16; k++) sum += a[m * 16 + k]! * b[k * 8 + n]!;
      d[m * 8 + n] = Math.fround(sum);
    }
  return Array.from({ length: 32 }, (_, lane) =>
    Array.from({ length: 4 }, (_, i) => {
      const [m, n] = M16N8K16_LAYOUT.c(lane, i);
      return d[m * 8 + n]!;
    }),
  );
}
