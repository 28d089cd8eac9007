import { Buffer, DeviceArray, Scalar } from '@cuda-js/core';
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  deviceTypeName,
  StridedMemoryView,
  type CudaArrayInterface,
} from '@cuda-js/memory-view';
import { arrayType, type ArrayType, type JitType, type Layout, type ScalarName } from '../typing/jit-types.js';
import { argumentCountError, argumentError } from './argument-error.js';
import { KERNEL_DTYPE_NAMES, kernelScalarOf } from './kernel-dtype.js';

/** Where a kernel runs: on the GPU, or thread by thread in the CPU simulator. */
export type LaunchTarget = 'gpu' | 'simulator';

// A StridedMemoryView never changes its dtype, shape, strides or flags: its type is worked out once.
const viewTypes = new WeakMap<StridedMemoryView, ArrayType>();
// Nor does a frozen CUDA array interface answer.
const answerTypes = new WeakMap<CudaArrayInterface, ArrayType>();

// The canonical array types, found without building their names: [scalar][(ndim - 1) * 6 + layout * 2 + readonly].
const arrayTypes = new Map<ScalarName, (ArrayType | undefined)[]>();
const LAYOUT_INDEX: Readonly<Record<Layout, number>> = { C: 0, F: 1, A: 2 };

function arrayTypeOf(scalar: ScalarName, ndim: 1 | 2 | 3, layout: Layout, readonly: boolean): ArrayType {
  let row = arrayTypes.get(scalar);
  if (row === undefined) arrayTypes.set(scalar, (row = []));
  const key = (ndim - 1) * 6 + LAYOUT_INDEX[layout] * 2 + (readonly ? 1 : 0);
  return (row[key] ??= arrayType(scalar, ndim, layout, readonly));
}

// Typed arrays by the engine's own kind (%TypedArray%.prototype[Symbol.toStringTag], undefined for anything
// else), which an own or changed `constructor` property, a subclass or a swapped prototype cannot change: 1-D, compact, writable.
const typedArrayTag = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Int8Array.prototype) as object,
  Symbol.toStringTag,
)!.get as (this: unknown) => string | undefined;
const TYPED_ARRAYS = new Map<string | undefined, ArrayType>([
  ['Int8Array', arrayTypeOf('i8', 1, 'C', false)],
  ['Uint8Array', arrayTypeOf('u8', 1, 'C', false)],
  ['Uint8ClampedArray', arrayTypeOf('u8', 1, 'C', false)],
  ['Int16Array', arrayTypeOf('i16', 1, 'C', false)],
  ['Uint16Array', arrayTypeOf('u16', 1, 'C', false)],
  ['Int32Array', arrayTypeOf('i32', 1, 'C', false)],
  ['Uint32Array', arrayTypeOf('u32', 1, 'C', false)],
  ['BigInt64Array', arrayTypeOf('i64', 1, 'C', false)],
  ['BigUint64Array', arrayTypeOf('u64', 1, 'C', false)],
  ['Float32Array', arrayTypeOf('f32', 1, 'C', false)],
  ['Float64Array', arrayTypeOf('f64', 1, 'C', false)],
]);
// Float16Array is in newer engines only (Node 20 has none: f16 data there is a float16 view of a Uint16Array's memory).
if ((globalThis as { Float16Array?: unknown }).Float16Array !== undefined)
  TYPED_ARRAYS.set('Float16Array', arrayTypeOf('f16', 1, 'C', false));

/**
 * The type of each launch argument, for choosing (or compiling) the kernel's
 * specialization. Called on every launch, so cheap: scalars by `typeof`,
 * typed arrays by constructor, StridedMemoryViews and frozen CUDA array
 * interface answers once per object.
 *
 * - a JS number is `f64` (it keeps JavaScript's meaning), a bigint `i64`, a
 *   boolean `bool`, a core Scalar (`f32(x)`, `i32(n)`, `f16(x)`, ...) its own type;
 * - an array is `array(dtype, ndim, layout)` (read-only where its memory is):
 *   a StridedMemoryView, any object implementing DLPack or the CUDA array
 *   interface, or host memory that StridedMemoryView.fromAny views (typed
 *   arrays, DataView, ArrayBuffer, scijs and stdlib ndarrays, ...); layout
 *   `'C'` when C-contiguous, else `'F'` when F-contiguous (2 or more
 *   dimensions), else `'A'`. A Uint16Array is `u16`: f16 and bf16 data come
 *   as a view of dtype float16 or bfloat16 (`StridedMemoryView.fromAny(bits).view({ dtype: 'float16' })`)
 *   or a Float16Array where the engine has one.
 *
 * `target` says where the kernel runs: the simulator reads arrays through
 * JS, so it refuses device-only memory; the GPU takes host arrays (they are
 * copied) as well as device ones.
 *
 * @param params the kernel's parameter names, for messages
 * @throws {KernelArgumentError} for a wrong count, an unsupported value or dtype, or ndim outside 1..3
 */
export function argumentTypes(args: readonly unknown[], params: readonly string[], target: LaunchTarget): JitType[] {
  if (args.length !== params.length) throw argumentCountError(params, args.length);
  const types = new Array<JitType>(args.length);
  for (let i = 0; i < args.length; i++) types[i] = argumentType(args[i], i, params, target);
  return types;
}

function argumentType(arg: unknown, i: number, params: readonly string[], target: LaunchTarget): JitType {
  switch (typeof arg) {
    case 'number':
      return 'f64';
    case 'bigint':
      return 'i64';
    case 'boolean':
      return 'bool';
    case 'object':
      if (arg !== null) return objectType(arg, i, params, target);
      break;
    default:
      break;
  }
  throw argumentError(
    params,
    i,
    `cannot pass ${arg === null ? 'null' : typeof arg}; a kernel takes numbers, bigints, booleans, typed scalars (f32(x), i32(n), ...) and arrays`,
  );
}

function objectType(arg: object, i: number, params: readonly string[], target: LaunchTarget): JitType {
  if (arg instanceof StridedMemoryView) return viewType(arg, true, i, params, target);
  if (arg instanceof Scalar) return arg.type;
  if (arg instanceof DeviceArray) return viewType(arg.view, true, i, params, target);
  const typed = TYPED_ARRAYS.get(typedArrayTag.call(arg));
  if (typed !== undefined) return typed;
  if (arg instanceof Buffer) {
    throw argumentError(
      params,
      i,
      "a Buffer is bytes with no element type; pass a typed view of it: StridedMemoryView.fromAny(buffer, { stream }).view({ dtype: 'float32', shape })",
    );
  }
  if (Array.isArray(arg))
    throw argumentError(
      params,
      i,
      'a JS Array is not an array of numbers in memory; pass a typed array (Float64Array.from(array), ...) or a device array',
    );
  // The CUDA array interface is cheaper to read than a DLPack export, and describes device memory,
  // which the simulator cannot read; there, DLPack (which may describe host memory) is asked instead.
  if (CUDA_ARRAY_INTERFACE in arg && (target === 'gpu' || !(DLPACK in arg)))
    return interfaceType(arg, i, params, target);
  let view: StridedMemoryView;
  try {
    // DLPack producers are asked for no synchronization: only the layout is read here.
    view = StridedMemoryView.fromAny(arg, { stream: -1 });
  } catch (error) {
    throw argumentError(params, i, `not an array that cuda-js can view (${(error as Error).message})`, error);
  }
  try {
    return viewType(view, false, i, params, target);
  } finally {
    if (DLPACK in arg) view.close(); // gives the export back to its producer now
  }
}

function interfaceType(arg: object, i: number, params: readonly string[], target: LaunchTarget): ArrayType {
  if (target === 'simulator') {
    throw argumentError(
      params,
      i,
      'a CUDA array interface object is device memory, which the simulator cannot read; copy it to the host (or pass a host array)',
    );
  }
  let answer: CudaArrayInterface;
  try {
    answer = (arg as { [CUDA_ARRAY_INTERFACE](): CudaArrayInterface })[CUDA_ARRAY_INTERFACE]();
  } catch (error) {
    throw argumentError(params, i, `Symbol.for('cuda.array_interface') threw: ${(error as Error).message}`, error);
  }
  const known = answer !== null && typeof answer === 'object' ? answerTypes.get(answer) : undefined;
  if (known !== undefined) return known;
  let view: StridedMemoryView;
  try {
    view = StridedMemoryView.fromCudaArrayInterface(arg, { stream: -1 });
  } catch (error) {
    throw argumentError(params, i, `not a CUDA array that cuda-js can view (${(error as Error).message})`, error);
  }
  const t = viewType(view, false, i, params, target);
  if (
    Object.isFrozen(answer) &&
    Object.isFrozen(answer.data) &&
    Object.isFrozen(answer.shape) &&
    (answer.strides == null || Object.isFrozen(answer.strides))
  ) {
    answerTypes.set(answer, t);
  }
  return t;
}

function viewType(
  view: StridedMemoryView,
  cache: boolean,
  i: number,
  params: readonly string[],
  target: LaunchTarget,
): ArrayType {
  if (view.closed) throw argumentError(params, i, 'the view is closed');
  if (view.buffer === undefined) {
    if (target === 'simulator') {
      throw argumentError(
        params,
        i,
        `the array is on ${where(view)}, which the simulator cannot read (it runs on the CPU); copy it to the host, or launch on the GPU`,
      );
    }
    if (!view.isDeviceAccessible)
      throw argumentError(params, i, `the array is on ${where(view)}, which neither the GPU nor JS can read`);
  }
  let t = cache ? viewTypes.get(view) : undefined;
  if (t === undefined) {
    t = arrayTypeOfView(view, i, params);
    if (cache) viewTypes.set(view, t);
  }
  return t;
}

function where(view: StridedMemoryView): string {
  const d = view.device;
  return `${deviceTypeName(d.type)}:${d.id}`;
}

function arrayTypeOfView(view: StridedMemoryView, i: number, params: readonly string[]): ArrayType {
  const scalar = kernelScalarOf(view.dtype);
  if (scalar === undefined) {
    throw argumentError(
      params,
      i,
      `arrays of ${view.dtype.name} are not supported by kernels (they take ${KERNEL_DTYPE_NAMES.join(', ')})`,
    );
  }
  const ndim = view.shape.length;
  if (ndim < 1 || ndim > 3)
    throw argumentError(params, i, `the array has ${ndim} dimension(s); kernels take arrays of 1 to 3`);
  const layout: Layout = view.isCContiguous ? 'C' : ndim >= 2 && view.isFContiguous ? 'F' : 'A';
  return arrayTypeOf(scalar, ndim as 1 | 2 | 3, layout, view.readonly);
}
