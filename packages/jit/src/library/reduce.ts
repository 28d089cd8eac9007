// A reduction builder written in the kernel language itself (numba's
// `cuda.reduce`): the user's binary function becomes a device function,
// inlined into a two-pass shared-memory tree reduction that is compiled
// once per element type.
import { isAnything, isString } from '@cuda-js/options';
import { checkJitOptions, isJitTarget } from '../jit-options.js';

const REDUCER_OPTIONS = { target: isJitTarget, name: isString };
// The stream is read by the launch; init, size and res are checked below with their own errors.
const REDUCE_CALL_OPTIONS = { init: isAnything, stream: isAnything, size: isAnything, res: isAnything };
import {
  Device,
  type Scalar,
  bf16,
  bfloat16Bits,
  bfloat16FromBits,
  bool,
  f16,
  f32,
  f64,
  float16Bits,
  float16FromBits,
  i8,
  i16,
  i32,
  i64,
  u8,
  u16,
  u32,
  u64,
} from '@cuda-js/core';
import { cuda } from '../cuda.js';
import { StridedMemoryView } from '@cuda-js/memory-view';
import type { StreamArgument } from '@cuda-js/streams';
import { device } from '../device-function.js';
import { JitError, KernelArgumentError } from '../errors.js';
import { jit, type JitKernel, type JitTarget } from '../jit.js';
import { argumentTypes } from '../launch/argument-types.js';
import { dtypeOfScalar } from '../launch/kernel-dtype.js';
import { typedScalar } from './ufunc-operands.js';
import { ELEMENT_TYPES, type ElementArray } from '../simulate/element-types.js';
import { isArrayType, SCALARS, type ScalarName } from '../typing/jit-types.js';

/** Threads per block of both passes (a power of two). */
const BLOCK = 256;
/** Blocks of the first pass, at most: enough to fill a large GPU several times over. */
const MAX_BLOCKS = 1024;

/** The scalar makers, which kernels take as dtypes (`cuda.shared.array(n, DTYPE)` with DTYPE a constant). */
const DTYPE_TOKENS: Readonly<Record<ScalarName, (value: never) => Scalar>> = {
  bool,
  i8,
  u8,
  i16,
  u16,
  i32,
  u32,
  i64,
  u64,
  f16,
  bf16,
  f32,
  f64,
};

export interface ReduceOptions {
  /** Combined with the array's reduction last: `fn(init, reduced)`; the result of an empty array. */
  readonly init?: number | bigint | undefined;
  /** The stream to run on (GPU); the call waits for it before giving the value (with `res`, it does not wait). */
  readonly stream?: StreamArgument | undefined;
  /** How many elements to reduce, from the first (numba's `size`; default: all of them). */
  readonly size?: number | undefined;
  /**
   * Where the result goes, in its element 0 (numba's `res`): a 1-D array of
   * the input's dtype, normally device memory (a DeviceArray, a view). The
   * call then gives nothing and, on the GPU, copies nothing to the host: the
   * result is ready when the stream's work is.
   */
  readonly res?: unknown;
}

export interface ReducerOptions {
  /** `'gpu'` (default) or `'simulator'` (as `jit`'s option; `CUDA_JS_SIMULATOR=1` makes the simulator the default). */
  readonly target?: JitTarget | undefined;
  /** The reducer's name in messages and PTX (default: the function's name). */
  readonly name?: string | undefined;
}

/** Reduces a 1-D array with a binary function, on the GPU or in the simulator, giving the value. */
export interface Reducer {
  (input: unknown, options?: ReduceOptions & { readonly res?: undefined }): number | bigint;
  /** With `res`, the result is written there and nothing is given. */
  (input: unknown, options: ReduceOptions & { readonly res: unknown }): undefined;
  readonly name: string;
}

// The kernel of both passes: each block folds a grid-stride slice of `input`
// into one value per thread, then a tree in shared memory; `partials[b]` gets
// block b's value. With `finish`, block 0 also applies `init`. Every block has
// at least one element (the grid is at most ceil(n / BLOCK)), and the threads
// that have one form a prefix of the block, which the tree's bound respects.
function reduceSource(
  input: ArrayLike<number>,
  partials: ArrayLike<number> & { [i: number]: number },
  n: number,
  useInit: boolean,
  init: number,
): void {
  const sm = cuda.shared.array(THREADS, DTYPE);
  const t = cuda.threadIdx.x;
  const b = cuda.blockIdx.x;
  const stride = THREADS * cuda.gridDim.x;
  let i = b * THREADS + t;
  if (i < n) {
    let acc = input[i]!;
    i += stride;
    while (i < n) {
      acc = op(acc, input[i]!);
      i += stride;
    }
    sm[t] = acc;
  }
  cuda.syncthreads();
  const valid = Math.min(THREADS, n - b * THREADS);
  for (let s = THREADS >> 1; s > 0; s >>= 1) {
    if (t < s && t + s < valid) sm[t] = op(sm[t]!, sm[t + s]!);
    cuda.syncthreads();
  }
  if (t === 0) partials[b] = useInit ? op(init, sm[0]!) : sm[0]!;
}
// The kernel's free names, given as its constants: declared, not bound here,
// so that a bundler cannot rename them in the kernel's text. (`cuda` is the
// package's own, imported: a declared one would be a global reference that
// makes a scope-hoisting bundler rename the package's export, `cuda$1`.)
declare const THREADS: number;
declare const DTYPE: (value: number) => Scalar;
declare const op: (a: number, b: number) => number;

/**
 * Makes a reducer of a binary function (any associative and commutative
 * one: the order of the combinations is not fixed), for arrays of any
 * numeric dtype:
 *
 * ```ts
 * const sum = reduce((a: number, b: number) => a + b);
 * sum(new Float32Array([1, 2, 3]));         // 6
 * sum(view, { init: 10, stream });          // a device array, on a stream
 * ```
 */
export function reduce(fn: (a: number, b: number) => number, given: ReducerOptions = {}): Reducer {
  if (typeof fn !== 'function')
    throw new TypeError(`reduce: expected a function, got ${fn === null ? 'null' : typeof fn}`);
  const options = checkJitOptions<ReducerOptions>('reduce()', given, REDUCER_OPTIONS);
  const name = options.name ?? (fn.name || 'reduce');
  const binary = device(fn as (...args: never[]) => unknown, { name });
  const kernels = new Map<ScalarName, JitKernel>();
  const kernelFor = (dtype: ScalarName): JitKernel => {
    let kernel = kernels.get(dtype);
    if (!kernel) {
      kernel = jit(reduceSource as (...args: never[]) => unknown, {
        name: `${name.replace(/\W/g, '_')}_reduce_${dtype}`,
        target: options.target,
        constants: { THREADS: BLOCK, DTYPE: DTYPE_TOKENS[dtype], op: binary },
      });
      kernels.set(dtype, kernel);
    }
    return kernel;
  };

  const reducer = (input: unknown, given: ReduceOptions = {}): number | bigint | undefined => {
    const call = checkJitOptions<ReduceOptions>(`${name}()`, given, REDUCE_CALL_OPTIONS);
    const target = options.target ?? kernelFor('f32').target;
    const [type] = argumentTypes([input], ['input'], target);
    if (type === undefined || !isArrayType(type) || type.ndim !== 1) {
      throw new KernelArgumentError(
        `${name}: reduce takes a 1-D array, got ${type === undefined ? 'nothing' : typeof type === 'string' ? `a ${type} scalar` : type.name}`,
      );
    }
    const dtype = type.dtype;
    const length = lengthOf(input);
    const n = call.size === undefined ? length : sizeOf(call.size, length, name);
    const init = call.init === undefined ? undefined : scalarOf(dtype, call.init, name);
    const res = call.res;
    if (res !== undefined) {
      const [resType] = argumentTypes([res], ['res'], target);
      if (
        resType === undefined ||
        !isArrayType(resType) ||
        resType.ndim !== 1 ||
        resType.dtype !== dtype ||
        lengthOf(res) < 1
      ) {
        throw new KernelArgumentError(
          `${name}: res must be a 1-D array of ${dtype} (the input's dtype) with at least one element, got ${resType === undefined ? 'nothing' : typeof resType === 'string' ? `a ${resType} scalar` : `${resType.name}${isArrayType(resType) ? ` of length ${lengthOf(res)}` : ''}`}`,
        );
      }
    }
    if (n === 0) {
      if (call.init === undefined) throw new KernelArgumentError(`${name}: reduce of an empty array with no init`);
      if (res === undefined) return call.init;
      // res gets init: the one-element reduction of [init]
      const single = hostArrayOf(dtype, 1);
      single[0] =
        dtype === 'f16'
          ? float16Bits(Number(call.init))
          : dtype === 'bf16'
            ? bfloat16Bits(Number(call.init))
            : (elementOf(dtype, call.init) as never);
      const kernel = kernelFor(dtype);
      const noInit = scalarOf(dtype, 0, name);
      kernel.launch(
        { grid: 1, block: BLOCK, stream: call.stream },
        hostArgument(dtype, single),
        res,
        i32(1),
        false,
        noInit,
      );
      return undefined;
    }
    const kernel = kernelFor(dtype);
    const blocks = Math.min(MAX_BLOCKS, Math.ceil(n / BLOCK));
    const noInit = scalarOf(dtype, 0, name);
    if (kernel.target === 'simulator') {
      const partials = hostArgument(dtype, hostArrayOf(dtype, blocks));
      const result = hostArrayOf(dtype, 1);
      kernel.launch({ grid: blocks, block: BLOCK }, input, partials, i32(n), false, noInit);
      kernel.launch(
        { grid: 1, block: BLOCK },
        partials,
        res ?? hostArgument(dtype, result),
        i32(blocks),
        init !== undefined,
        init ?? noInit,
      );
      return res === undefined ? firstValue(dtype, result) : undefined;
    }
    return onDevice(kernel, dtype, input, n, blocks, init ?? noInit, init !== undefined, call.stream, res);
  };
  Object.defineProperty(reducer, 'name', { value: name });
  return reducer as Reducer;
}

function onDevice(
  kernel: JitKernel,
  dtype: ScalarName,
  input: unknown,
  n: number,
  blocks: number,
  init: Scalar,
  useInit: boolean,
  stream: StreamArgument | undefined,
  res: unknown,
): number | bigint | undefined {
  const current = Device.current() ?? Device.get(0).setCurrent();
  const bytes = SCALARS[dtype].bytes;
  const partials = current.allocate(blocks * bytes, { stream });
  const result = res === undefined ? current.allocate(bytes, { stream }) : undefined;
  try {
    const dt = dtypeOfScalar(dtype);
    const partialsView = StridedMemoryView.fromPointer(partials.ptr, {
      dtype: dt,
      shape: [blocks],
      exporter: partials,
    });
    const resultView =
      result === undefined
        ? res
        : StridedMemoryView.fromPointer(result.ptr, { dtype: dt, shape: [1], exporter: result });
    kernel.launch({ grid: blocks, block: BLOCK, stream }, input, partialsView, i32(n), false, init);
    kernel.launch({ grid: 1, block: BLOCK, stream }, partialsView, resultView, i32(blocks), useInit, init);
    if (result === undefined) return undefined;
    const out = hostArrayOf(dtype, 1);
    result.copyTo(new Uint8Array(out.buffer, out.byteOffset, bytes), { stream });
    return firstValue(dtype, out);
  } finally {
    // stream-ordered: with res, the kernels may still be running on the stream
    partials.close({ stream });
    result?.close({ stream });
  }
}

/** numba's `size`: how many leading elements to reduce. */
function sizeOf(size: unknown, length: number, name: string): number {
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || size > length) {
    throw new KernelArgumentError(
      `${name}: size must be an integer from 0 to the array's length ${length}, got ${typeof size === 'number' ? size : typeof size}`,
    );
  }
  return size;
}

/** `value` as an element of a host array of `dtype` (not f16 or bf16, whose elements are bits). */
function elementOf(dtype: ScalarName, value: number | bigint): number | bigint {
  return dtype === 'i64' || dtype === 'u64' ? BigInt(value) : Number(value);
}

/** A host array of `dtype` as the kernel's argument: f16 and bf16 elements are bits, which a Uint16Array alone would call u16. */
function hostArgument(dtype: ScalarName, array: ElementArray): ElementArray | StridedMemoryView {
  return dtype === 'f16' || dtype === 'bf16'
    ? StridedMemoryView.fromAny(array).view({ dtype: dtypeOfScalar(dtype) })
    : array;
}

/** Element 0 of a host array of `dtype`, as a value. */
function firstValue(dtype: ScalarName, array: ElementArray): number | bigint {
  const first = array[0] as number | bigint;
  if (dtype === 'f16') return float16FromBits(first as number);
  if (dtype === 'bf16') return bfloat16FromBits(first as number);
  return first;
}

/** A host array of `n` elements of `dtype` (bytes for bool, bits for f16 and bf16), as the simulator stores them. */
function hostArrayOf(dtype: ScalarName, n: number): ElementArray {
  return new ELEMENT_TYPES[dtype].arrayConstructor(n);
}

function lengthOf(input: unknown): number {
  const view = input instanceof StridedMemoryView ? input : undefined;
  if (view) return view.shape[0] ?? 0;
  const length =
    (input as { length?: unknown; shape?: readonly number[] }).shape?.[0] ?? (input as { length?: unknown }).length;
  if (typeof length !== 'number') throw new JitError('reduce: cannot tell the length of the input array');
  return length;
}

/** `value` as a typed scalar of `dtype` (the kernel's `init` parameter). */
function scalarOf(dtype: ScalarName, value: number | bigint, name: string): Scalar {
  const integer64 = dtype === 'i64' || dtype === 'u64';
  if (integer64 ? typeof value !== 'bigint' && !Number.isSafeInteger(value) : typeof value !== 'number') {
    throw new KernelArgumentError(
      `${name}: init must be a ${integer64 ? 'bigint (or safe integer)' : 'number'} for a ${dtype} array, got ${typeof value}`,
    );
  }
  return typedScalar(dtype, integer64 ? BigInt(value) : Number(value), `${name}: init`);
}
