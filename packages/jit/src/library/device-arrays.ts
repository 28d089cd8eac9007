// numba's host-side array makers (cuda.to_device, device_array,
// device_array_like, pinned_array, mapped_array), as core's DeviceArray.
// For the simulator they make the same arrays over host memory, so that a
// program written for the GPU runs there unchanged (numba's simulator does
// the same with its fake device arrays).
import { DeviceArray, DeviceNotFoundError, type ArrayMemory, type Device } from '@cuda-js/core';
import { readShape, dtype as toDType, StridedMemoryView, type DType, type DTypeLike } from '@cuda-js/memory-view';
import type { StreamArgument } from '@cuda-js/streams';
import { LibraryNotFoundError } from '@cuda-js/pathfinder';
import { KernelArgumentError, NoGpuError, SIMULATOR_HINT } from '../errors.js';
import { defaultTarget, type JitTarget } from '../jit.js';
import { dtypeOfScalar } from '../launch/kernel-dtype.js';
import { makerType } from '../typing/signature.js';
import { viewOfList } from './list-array.js';
import { checkSimulatorStream } from '../simulate/simulator-stream-check.js';
import { checkJitOptions, DEVICE_ARRAY_MAKER_OPTIONS } from '../jit-options.js';

export interface DeviceArrayMakerOptions {
  /** The stream the allocation and copy are ordered on. */
  readonly stream?: StreamArgument | undefined;
  /** The device (default: the current one). */
  readonly device?: Device | undefined;
  /** `'gpu'` (default; `CUDA_JS_SIMULATOR=1` makes it `'simulator'`): where the kernels that take the array run. In the simulator the array is host memory. */
  readonly target?: JitTarget | undefined;
}

/** An element type: a dtype name (`'float32'`) or DType, or a scalar maker (`f32`), as kernels name dtypes. */
export type ArrayDtype = DTypeLike | ((value: never) => unknown);

function dtypeOf(t: ArrayDtype, what: string): DType {
  if (typeof t === 'function') {
    const scalar = makerType(t);
    if (scalar === undefined)
      throw new KernelArgumentError(`${what}: ${t.name || 'the function'} is not a scalar maker (f32, i32, ...)`);
    return dtypeOfScalar(scalar);
  }
  return toDType(t);
}

function shapeOf(shape: number | readonly number[]): readonly number[] {
  return typeof shape === 'number' ? [shape] : shape;
}

/**
 * A DeviceArray over new host memory: the simulator's array.
 *
 * @throws {InvalidLayoutError} for a shape that is no list of extents (as on the GPU)
 * @throws {KernelArgumentError} for an array larger than the host memory a JS buffer holds
 */
function hostArray(shape: readonly number[], t: DType, what: string): DeviceArray {
  const extents = readShape(shape, what);
  const bytes = Math.ceil(extents.reduce((a, b) => a * b, 1) * t.itemsize);
  let memory: ArrayBuffer;
  try {
    memory = new ArrayBuffer(bytes);
  } catch (error) {
    throw new KernelArgumentError(
      `${what}: [${extents.join(', ')}] of ${t.name} is ${bytes} bytes, which the simulator cannot allocate as host memory (${(error as Error).message})`,
      undefined,
      {
        cause: error,
      },
    );
  }
  return new DeviceArray(StridedMemoryView.fromBuffer(memory, { dtype: t, shape: extents }));
}

/**
 * `make()` on the GPU; where there is none (no driver library, no device), a
 * NoGpuError that says how to make the array for the simulator instead, as a
 * launch's does, its cause the error that found no GPU.
 */
function onGpu<T>(what: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (!(error instanceof DeviceNotFoundError || error instanceof LibraryNotFoundError)) throw error;
    const reason = `${error.name}: ${error.message.split('\n')[0]}`;
    throw new NoGpuError(`${what}: there is no GPU to make the array on (${reason}); ${SIMULATOR_HINT}`, undefined, {
      cause: error,
    });
  }
}

function allocate(
  shape: number | readonly number[],
  dtype: ArrayDtype,
  memory: ArrayMemory,
  given: DeviceArrayMakerOptions,
  what: string,
): DeviceArray {
  const options = checkJitOptions<DeviceArrayMakerOptions>(`${what}()`, given, DEVICE_ARRAY_MAKER_OPTIONS);
  const t = dtypeOf(dtype, what);
  const extents = shapeOf(shape);
  if ((options.target ?? defaultTarget()) === 'simulator') {
    checkSimulatorStream(options.stream, what);
    return hostArray(extents, t, what);
  }
  return onGpu(what, () =>
    DeviceArray.allocate(extents, t, { memory, stream: options.stream, device: options.device }),
  );
}

/**
 * A device copy of a host array (numba's `cuda.to_device(ary, stream=...)`):
 * a typed array, a host view or anything viewable on the host, n-D, or a
 * (nested, rectangular) JS array of numbers (float64) or bigints (int64).
 */
export function toDevice(host: unknown, given: DeviceArrayMakerOptions = {}): DeviceArray {
  const options = checkJitOptions<DeviceArrayMakerOptions>('toDevice()', given, DEVICE_ARRAY_MAKER_OPTIONS);
  host = viewOfList(host, 'toDevice') ?? host;
  if ((options.target ?? defaultTarget()) === 'simulator') {
    checkSimulatorStream(options.stream, 'toDevice');
    const view = host instanceof StridedMemoryView ? host : StridedMemoryView.fromAny(host);
    const array = hostArray(view.shape, view.dtype, 'toDevice');
    array.copyFromHost(view);
    return array;
  }
  return onGpu('toDevice', () => DeviceArray.fromHost(host, { stream: options.stream, device: options.device }));
}

/** A new device array, elements not set (numba's `cuda.device_array(shape, dtype)`). */
export function deviceArray(
  shape: number | readonly number[],
  dtype: ArrayDtype,
  options: DeviceArrayMakerOptions = {},
): DeviceArray {
  return allocate(shape, dtype, 'device', options, 'deviceArray');
}

/** A new device array of the shape and dtype of `like` (numba's `cuda.device_array_like`). */
export function deviceArrayLike(like: unknown, given: DeviceArrayMakerOptions = {}): DeviceArray {
  const options = checkJitOptions<DeviceArrayMakerOptions>('deviceArrayLike()', given, DEVICE_ARRAY_MAKER_OPTIONS);
  const view =
    like instanceof DeviceArray
      ? like.view
      : like instanceof StridedMemoryView
        ? like
        : (viewOfList(like, 'deviceArrayLike') ?? StridedMemoryView.fromAny(like, { stream: -1 }));
  return allocate(view.shape, view.dtype, 'device', options, 'deviceArrayLike');
}

/** A host array in page-locked memory (numba's `cuda.pinned_array`): copies into it from the device are stream-ordered; `typedArray()` reads it. */
export function pinnedArray(
  shape: number | readonly number[],
  dtype: ArrayDtype,
  options: DeviceArrayMakerOptions = {},
): DeviceArray {
  return allocate(shape, dtype, 'pinned', options, 'pinnedArray');
}

/** A host array that kernels read and write through its address (numba's `cuda.mapped_array`): pinned memory, which cuda-js maps for the device. */
export function mappedArray(
  shape: number | readonly number[],
  dtype: ArrayDtype,
  options: DeviceArrayMakerOptions = {},
): DeviceArray {
  return allocate(shape, dtype, 'pinned', options, 'mappedArray');
}

/** A managed (unified) array (numba's `cuda.managed_array`). */
export function managedArray(
  shape: number | readonly number[],
  dtype: ArrayDtype,
  options: DeviceArrayMakerOptions = {},
): DeviceArray {
  return allocate(shape, dtype, 'managed', options, 'managedArray');
}
