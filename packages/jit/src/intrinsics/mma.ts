/**
 * The tensor-core matrix multiply-accumulates: `cuda.mma.<name>(d, a, b, c)`
 * computes D = A × B + C for one warp (`mma.sync.aligned`), every operand a
 * per-thread register fragment held in a 1-D array of the kernel (a local
 * array, `cuda.local.array(4, u32)`): `a` packs the A matrix's elements two
 * to a u32 (the lower element in the lower half), `b` the B matrix's
 * likewise, `c` and `d` hold f32 accumulators (typed-ir.ts's `mma` node,
 * keyed by the row's `shape`). Which element of the matrices a lane's
 * register holds is the PTX ISA's fragment layout (docs/tensor-cores.md);
 * the simulator runs it as a warp collective of all 32 lanes, with the
 * row's layout functions. The NVVM form is inline PTX: the four outputs
 * (`=f`) first, then A's, B's and C's registers. One row declares an mma
 * for every stage: the `cuda` stub and its type (its doc comment is the
 * row's), the typing rule, the lowering and the simulator.
 */
import type { ScalarName } from '../typing/jit-types.js';
import type { AsmForm } from './forms.js';

export interface MmaRow {
  /** The PTX instruction, for messages and documentation. */
  readonly instruction: string;
  /** The key of the IR node (`shape`). */
  readonly shape: string;
  /** The matrix shape M × N × K. */
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** The element type of A and B (two to a u32 register). */
  readonly input: 'bf16' | 'f16';
  /** The lowest SM architecture that has the instruction (80: sm_80). */
  readonly minArch: number;
  /** Each fragment's register count and type: a, b, c, d. */
  readonly fragments: {
    readonly a: { readonly count: number; readonly type: ScalarName };
    readonly b: { readonly count: number; readonly type: ScalarName };
    readonly c: { readonly count: number; readonly type: ScalarName };
    readonly d: { readonly count: number; readonly type: ScalarName };
  };
  /** The NVVM form: inline PTX giving `{ float, float, float, float }`. */
  readonly nvvm: AsmForm;
}

const M16N8K16_FRAGMENTS = {
  a: { count: 4, type: 'u32' },
  b: { count: 2, type: 'u32' },
  c: { count: 4, type: 'f32' },
  d: { count: 4, type: 'f32' },
} as const;

const m16n8k16 = (input: 'bf16' | 'f16'): AsmForm => ({
  ptx: `mma.sync.aligned.m16n8k16.row.col.f32.${input}.${input}.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};`,
  constraints: '=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f',
  result: '{ float, float, float, float }',
  sideEffect: false,
  convergent: true,
});

export const MMA_FUNCTIONS = Object.freeze({
  /**
   * D = A × B + C for one warp, A 16×16 bf16 (row-major), B 16×8 bf16
   * (column-major), C and D 16×8 f32: `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`
   * (sm_80 and later). Every lane of the warp calls it together: `a` is 4
   * u32 (8 bf16), `b` 2 u32 (4 bf16), `c` and `d` 4 f32, by the PTX ISA's
   * fragment layout (docs/tensor-cores.md).
   */
  m16n8k16_bf16: {
    instruction: 'mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32',
    shape: 'm16n8k16.bf16',
    m: 16,
    n: 8,
    k: 16,
    input: 'bf16',
    minArch: 80,
    fragments: M16N8K16_FRAGMENTS,
    nvvm: m16n8k16('bf16'),
  },
  /**
   * D = A × B + C for one warp, A 16×16 f16 (row-major), B 16×8 f16
   * (column-major), C and D 16×8 f32: `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`
   * (sm_80 and later). The fragments as {@link MMA_FUNCTIONS}' `m16n8k16_bf16`.
   */
  m16n8k16_f16: {
    instruction: 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32',
    shape: 'm16n8k16.f16',
    m: 16,
    n: 8,
    k: 16,
    input: 'f16',
    minArch: 80,
    fragments: M16N8K16_FRAGMENTS,
    nvvm: m16n8k16('f16'),
  },
} as const satisfies Record<string, MmaRow>);

/** An mma's shape, as the IR names it. */
export type MmaShape = (typeof MMA_FUNCTIONS)[keyof typeof MMA_FUNCTIONS]['shape'];

/** The row whose `shape` is `shape`, or undefined. */
export function mmaRow(shape: string): MmaRow | undefined {
  return Object.values(MMA_FUNCTIONS).find((row: MmaRow) => row.shape === shape);
}

/**
 * The m16n8k16 fragment layout (PTX ISA, "Matrix Fragments for
 * mma.m16n8k16 with floating point type"), with groupID = lane >> 2 and
 * threadID_in_group = lane % 4. A's element i (0..7, two per register: i =
 * 2 × register + half) of a lane is at (row, col); B's element i (0..3) at
 * (k, n); C's and D's element i (0..3) at (row, col).
 */
export const M16N8K16_LAYOUT = Object.freeze({
  a: (lane: number, i: number): readonly [number, number] => [
    (lane >> 2) + ((i >> 1) & 1) * 8,
    (lane % 4) * 2 + (i & 1) + (i >= 4 ? 8 : 0),
  ],
  b: (lane: number, i: number): readonly [number, number] => [(lane % 4) * 2 + (i & 1) + (i >= 2 ? 8 : 0), lane >> 2],
  c: (lane: number, i: number): readonly [number, number] => [(lane >> 2) + (i >= 2 ? 8 : 0), (lane % 4) * 2 + (i & 1)],
});
