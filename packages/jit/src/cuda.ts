import { JitError } from './errors.js';
import { ATOMIC_FUNCTIONS } from './intrinsics/atomics.js';
import { BIT_FUNCTIONS } from './intrinsics/bits.js';
import { FENCES } from './intrinsics/fences.js';
import { FP16_FUNCTIONS } from './intrinsics/fp16.js';
import { MMA_FUNCTIONS } from './intrinsics/mma.js';
import { PACKS } from './intrinsics/packs.js';
import { CUDA_MATH } from './intrinsics/math.js';
import { LANE_MASKS } from './intrinsics/lane-masks.js';
import { TIMERS } from './intrinsics/timers.js';
import { WARP_MATCHES } from './intrinsics/warp-matches.js';
import { WARP_SHUFFLES } from './intrinsics/warp-shuffles.js';
import { WARP_VOTES } from './intrinsics/warp-votes.js';
import type { ScalarName } from './typing/jit-types.js';
import type { MATH_FUNCTIONS } from './typing/typed-ir.js';
import type { KernelArray, NumberScalarName, ScalarOfToken, ScalarOfTypedArray } from './kernel-array.js';

/** A thread's position along x, y and z. */
export interface Dim3Value {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

function onlyInKernels(what: string): never {
  throw new JitError(
    `cuda.${what} is only available inside a kernel compiled by jit(); it has no value in plain JavaScript`,
  );
}

/** Functions named `names` that throw outside kernels. */
function kernelOnly<K extends string>(names: readonly K[], prefix: string): Readonly<Record<K, () => never>> {
  return Object.freeze(
    Object.fromEntries(names.map((n) => [n, (): never => onlyInKernels(`${prefix}${n}()`)])) as Record<K, () => never>,
  );
}

function dims(name: string): Dim3Value {
  return Object.freeze({
    get x(): number {
      return onlyInKernels(`${name}.x`);
    },
    get y(): number {
      return onlyInKernels(`${name}.y`);
    },
    get z(): number {
      return onlyInKernels(`${name}.z`);
    },
  });
}

/** The TypeScript signature of a bit function by its row's `result`: a count (i32), or a value of the argument's type. */
export interface BitSignatures {
  i32(x: number | bigint): number;
  arg<T extends number | bigint>(x: T): T;
}

/** The bit functions of the `cuda` object (`cuda.popc(x)`, `cuda.brev(x)`, …): one per row of the bit-function table. */
export type BitIntrinsics = { [K in keyof typeof BIT_FUNCTIONS]: BitSignatures[(typeof BIT_FUNCTIONS)[K]['result']] };

/** The TypeScript signature of an atomic by its row's `operands`: each gives the old value; `index` is a number, or [i, j, ...] for n-D arrays. */
export interface AtomicSignatures {
  value<T extends number | bigint>(array: AtomicTarget, index: AtomicIndex, value: T): T;
  compare<T extends number | bigint>(array: AtomicTarget, index: AtomicIndex, expected: T, value: T): T;
}

/** The atomics of `cuda.atomic` (`add`, `cas`, …): one per row of the atomics table. */
export type AtomicIntrinsics = {
  [K in keyof typeof ATOMIC_FUNCTIONS]: AtomicSignatures[(typeof ATOMIC_FUNCTIONS)[K]['operands']];
};

/** The timers of the `cuda` object (`cuda.clock64()`, `cuda.globaltimer()`): one per row of the timers table, each a u64. */
export type TimerIntrinsics = { [K in keyof typeof TIMERS]: () => bigint };

/** The lane masks of the `cuda` object (`cuda.activemask()`, `cuda.lanemask_lt()`, …): one per row of the lane-mask table, each a u32. */
export type LaneMaskIntrinsics = { [K in keyof typeof LANE_MASKS]: () => number };

/** The TypeScript signature of a warp vote by its row's `result`: a bool, or a u32 of lanes. */
export interface WarpVoteSignatures {
  bool(mask: number, predicate: unknown): boolean;
  u32(mask: number, predicate: unknown): number;
}

/** The warp votes of the `cuda` object (`cuda.all_sync(mask, p)`, `cuda.ballot_sync(mask, p)`, …): one per row of the warp-vote table. */
export type WarpVoteIntrinsics = {
  [K in keyof typeof WARP_VOTES]: WarpVoteSignatures[(typeof WARP_VOTES)[K]['result']];
};

/** The TypeScript signature of a math function of the `cuda` object by its arity. */
export interface MathSignatures {
  1: (x: number) => number;
  2: (a: number, b: number) => number;
  3: (a: number, b: number, c: number) => number;
}

/** The math functions of the `cuda` object (`cuda.fma(a, b, c)`, `cuda.cbrt(x)`): one per row of the cuda-math table. */
export type MathIntrinsics = {
  [K in keyof typeof CUDA_MATH]: MathSignatures[(typeof MATH_FUNCTIONS)[(typeof CUDA_MATH)[K]['fn']]['arity']];
};

/** The warp matches of the `cuda` object (`cuda.match_any_sync(mask, v)`, `cuda.match_all_sync(mask, v)`): one per row of the warp-match table, each a u32 of lanes. */
export type WarpMatchIntrinsics = {
  [K in keyof typeof WARP_MATCHES]: (mask: number, value: number | bigint) => number;
};

/** The TypeScript signature of a warp shuffle: the value of another lane, of the value's type. */
export type WarpShuffleSignature = <T extends number | bigint>(
  mask: number,
  value: T,
  lane: number,
  width?: number,
) => T;

/** The warp shuffles of the `cuda` object (`cuda.shfl_sync(mask, v, srcLane, width?)`, `shfl_up_sync`, …): one per row of the warp-shuffle table. */
export type WarpShuffleIntrinsics = { [K in keyof typeof WARP_SHUFFLES]: WarpShuffleSignature };

/** The memory fences of the `cuda` object (`cuda.threadfence()`, …): one per row of the fences table. */
export type FenceIntrinsics = { [K in keyof typeof FENCES as (typeof FENCES)[K]['cuda']]: () => void };

/**
 * The intrinsics that kernels use (numba's `cuda` module): the thread's
 * position and the grid's shape. Kernels name it `cuda` (a bundler's
 * namespace object in front of it is fine); outside a kernel each member
 * throws, as it has no meaning on the CPU.
 */
export interface CudaIntrinsics
  extends BitIntrinsics,
    TimerIntrinsics,
    LaneMaskIntrinsics,
    FenceIntrinsics,
    WarpVoteIntrinsics,
    WarpMatchIntrinsics,
    PackIntrinsics,
    WarpShuffleIntrinsics,
    MathIntrinsics {
  /** The absolute thread index: `blockIdx.x * blockDim.x + threadIdx.x` (and y, z for 2 and 3). */
  grid(ndim: 1): number;
  grid(ndim: 2): [number, number];
  grid(ndim: 3): [number, number, number];
  /** Threads in the grid along each dimension: `blockDim * gridDim`. */
  gridsize(ndim: 1): number;
  gridsize(ndim: 2): [number, number];
  gridsize(ndim: 3): [number, number, number];
  readonly threadIdx: Dim3Value;
  readonly blockIdx: Dim3Value;
  readonly blockDim: Dim3Value;
  readonly gridDim: Dim3Value;
  /** The thread's lane in its warp (0 to 31). */
  readonly laneid: number;
  /** Threads per warp (32). */
  readonly warpsize: number;

  // ---- casts: `cuda.f32(x)` is the kernel's `f32(x)`, typed as the number (bigint, boolean) it gives in the kernel ----
  f64(value: number | bigint | boolean): number;
  f32(value: number | bigint | boolean): number;
  f16(value: number | bigint | boolean): number;
  bf16(value: number | bigint | boolean): number;
  i8(value: number | bigint | boolean): number;
  u8(value: number | bigint | boolean): number;
  i16(value: number | bigint | boolean): number;
  u16(value: number | bigint | boolean): number;
  i32(value: number | bigint | boolean): number;
  u32(value: number | bigint | boolean): number;
  i64(value: number | bigint | boolean): bigint;
  u64(value: number | bigint | boolean): bigint;
  bool(value: number | bigint | boolean): boolean;

  // ---- memory ----
  /** Block-shared arrays: `cuda.shared.array(256, f32)`, `cuda.shared.array([16, 16], f32)`; shape 0 sizes it by the launch's `sharedMemory`. */
  readonly shared: KernelArrayMaker;
  /** Per-thread arrays: `cuda.local.array(8, f64)`. */
  readonly local: KernelArrayMaker;
  /** Constant memory filled at compile time from a host array passed in `constants`: `cuda.const.arrayLike(TABLE)`. */
  readonly const: {
    arrayLike<Host extends ArrayLike<number | bigint>>(hostArray: Host): KernelArray<ConstScalar<Host>, 1>;
  };

  // ---- synchronization ----
  /** Waits until every thread of the block has reached it (`__syncthreads`). */
  syncthreads(): void;
  /** A block barrier that counts the threads whose predicate is true. */
  syncthreads_count(predicate: unknown): number;
  /** A block barrier that tells whether the predicate is true for every thread. */
  syncthreads_and(predicate: unknown): boolean;
  /** A block barrier that tells whether the predicate is true for any thread. */
  syncthreads_or(predicate: unknown): boolean;
  /** Waits for the lanes of `mask` (default all 32). */
  syncwarp(mask?: number): void;
  /** Cooperative groups: `cuda.cg.thisGrid().sync()` waits for every thread of the grid (the launch becomes cooperative). */
  readonly cg: { thisGrid(): { sync(): void } };

  // ---- atomics: each gives the old value; `index` is a number, or [i, j, ...] for n-D arrays ----
  readonly atomic: AtomicIntrinsics;

  // ---- warp ----

  /**
   * The tensor cores' warp-wide matrix multiply-accumulates (`mma.sync`, sm_80 and later):
   * `cuda.mma.m16n8k16_bf16(d, a, b, c)`, every lane of the warp together, each operand a
   * per-thread fragment array (docs/tensor-cores.md).
   */
  readonly mma: MmaIntrinsics;

  /**
   * numba's `cuda.fp16`: f16 arithmetic (`hadd`, `hsub`, `hmul`, `hdiv`, `hfma`, `hneg`, `habs`),
   * comparisons (`heq`, `hne`, `hgt`, `hge`, `hlt`, `hle`), `hmax`/`hmin` (a NaN gives the other
   * value) and math (`hsin`, `hcos`, `hlog`, `hlog2`, `hlog10`, `hexp`, `hexp2`, `hexp10`, `hsqrt`,
   * `hrsqrt`, `hceil`, `hfloor`, `hrcp`, `htrunc`), on f16 values.
   */
  readonly fp16: Fp16Functions;

  // ---- other intrinsics ----
  /** `test ? a : b`, evaluating both. */
  selp<T>(test: unknown, a: T, b: T): T;
  nanosleep(nanoseconds: number): void;
  /** C printf from the thread: `cuda.printf('%d %f\n', i, x)`; `console.log(...)` works too. */
  printf(format: string, ...args: unknown[]): void;
}

/** The TypeScript signature of a `cuda.fp16` function by its row's form: f16 values in, an f16 value (a bool for comparisons) out. */
export interface Fp16Signatures {
  unary(x: number): number;
  binary(a: number, b: number): number;
  ternary(a: number, b: number, c: number): number;
  compare(a: number, b: number): boolean;
}

/** The signature kind (a key of {@link Fp16Signatures}) of a `cuda.fp16` row's form. */
export type Fp16Kind<Form> = Form extends { compare: unknown }
  ? 'compare'
  : Form extends { arity: 3 }
    ? 'ternary'
    : Form extends { binary: unknown } | { extremum: unknown }
      ? 'binary'
      : 'unary';

/** The functions of `cuda.fp16` (see {@link CudaIntrinsics.fp16}): one per row of the fp16 table. */
export type Fp16Functions = {
  [K in keyof typeof FP16_FUNCTIONS]: Fp16Signatures[Fp16Kind<(typeof FP16_FUNCTIONS)[K]['form']>];
};

/** A scalar type token: the scalar makers `f32`, `i32`, ... (in a kernel, or passed in its constants). */
export type DtypeToken = (value: never) => unknown;

/**
 * `cuda.shared` and `cuda.local`: `array(shape, dtype)` is a
 * {@link KernelArray} of the dtype's element type (`f32` gives `'f32'`), with
 * one dimension per entry of the shape (a number is 1-D).
 */
export interface KernelArrayMaker {
  array<Token extends DtypeToken>(
    shape: number | readonly [number],
    dtype: Token,
  ): KernelArray<ScalarOfToken<Token>, 1>;
  array<Token extends DtypeToken>(shape: readonly [number, number], dtype: Token): KernelArray<ScalarOfToken<Token>, 2>;
  array<Token extends DtypeToken>(
    shape: readonly [number, number, number],
    dtype: Token,
  ): KernelArray<ScalarOfToken<Token>, 3>;
  array<Token extends DtypeToken>(shape: readonly number[], dtype: Token): KernelArray<ScalarOfToken<Token>>;
}

/** The element type of a constant array: its typed array's, else a number type (a JS array of numbers) or i64 (of bigints). */
export type ConstScalar<Host> = [ScalarOfTypedArray<Host>] extends [never]
  ? Host extends ArrayLike<bigint>
    ? 'i64'
    : NumberScalarName
  : ScalarOfTypedArray<Host>;

/** A fragment of u32 registers (packed bf16x2 or f16x2): a u32 array of the kernel, `cuda.local.array(4, u32)`. */
export type MmaRegisters = KernelArray<'u32', 1> | Uint32Array;
/** A fragment of f32 accumulators: an f32 array of the kernel, `cuda.local.array(4, f32)`. */
export type MmaAccumulators = KernelArray<'f32', 1> | Float32Array;

/** The mma intrinsics of `cuda.mma` (`m16n8k16_bf16`, …): one per row of the mma table; `d` is written. */
export type MmaIntrinsics = {
  [K in keyof typeof MMA_FUNCTIONS]: (d: MmaAccumulators, a: MmaRegisters, b: MmaRegisters, c: MmaAccumulators) => void;
};

/** The fragment packers of the `cuda` object (`cuda.pack_bf16x2(lo, hi)`, `pack_f16x2`): one per row of the packs table, a u32. */
export type PackIntrinsics = { [K in keyof typeof PACKS]: (lo: number, hi: number) => number };

/** What atomics work on: an array parameter or a shared or local array. */
export type AtomicTarget =
  | ArrayLike<number | bigint>
  | KernelArray<ScalarName, 1>
  | KernelArray<ScalarName, 2>
  | KernelArray<ScalarName, 3>;
export type AtomicIndex = number | readonly number[];

export const cuda: CudaIntrinsics = Object.freeze({
  grid: ((): never => onlyInKernels('grid()')) as CudaIntrinsics['grid'],
  gridsize: ((): never => onlyInKernels('gridsize()')) as CudaIntrinsics['gridsize'],
  threadIdx: dims('threadIdx'),
  blockIdx: dims('blockIdx'),
  blockDim: dims('blockDim'),
  gridDim: dims('gridDim'),
  get laneid(): number {
    return onlyInKernels('laneid');
  },
  get warpsize(): number {
    return onlyInKernels('warpsize');
  },
  shared: Object.freeze({ array: (): never => onlyInKernels('shared.array()') }),
  local: Object.freeze({ array: (): never => onlyInKernels('local.array()') }),
  const: Object.freeze({ arrayLike: (): never => onlyInKernels('const.arrayLike()') }),
  cg: Object.freeze({ thisGrid: (): never => onlyInKernels('cg.thisGrid()') }),
  fp16: kernelOnly(Object.keys(FP16_FUNCTIONS) as (keyof typeof FP16_FUNCTIONS)[], 'fp16.') as unknown as Fp16Functions,
  mma: kernelOnly(Object.keys(MMA_FUNCTIONS) as (keyof typeof MMA_FUNCTIONS)[], 'mma.'),
  atomic: kernelOnly(Object.keys(ATOMIC_FUNCTIONS) as (keyof typeof ATOMIC_FUNCTIONS)[], 'atomic.'),
  ...kernelOnly(
    [
      'syncthreads',
      'syncthreads_count',
      'syncthreads_and',
      'syncthreads_or',
      'syncwarp',
      'selp',
      'nanosleep',
      'printf',
      'f64',
      'f32',
      'f16',
      'bf16',
      'i8',
      'u8',
      'i16',
      'u16',
      'i32',
      'u32',
      'i64',
      'u64',
      'bool',
    ] as const,
    '',
  ),
  ...kernelOnly(Object.keys(BIT_FUNCTIONS) as (keyof typeof BIT_FUNCTIONS)[], ''),
  ...kernelOnly(Object.keys(TIMERS) as (keyof typeof TIMERS)[], ''),
  ...kernelOnly(Object.keys(CUDA_MATH) as (keyof typeof CUDA_MATH)[], ''),
  ...kernelOnly(Object.keys(WARP_VOTES) as (keyof typeof WARP_VOTES)[], ''),
  ...kernelOnly(Object.keys(WARP_MATCHES) as (keyof typeof WARP_MATCHES)[], ''),
  ...kernelOnly(Object.keys(PACKS) as (keyof typeof PACKS)[], ''),
  ...kernelOnly(Object.keys(WARP_SHUFFLES) as (keyof typeof WARP_SHUFFLES)[], ''),
  ...kernelOnly(Object.keys(LANE_MASKS) as (keyof typeof LANE_MASKS)[], ''),
  ...kernelOnly(
    Object.values(FENCES).map((row) => row.cuda),
    '',
  ),
});
