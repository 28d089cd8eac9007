import { deviceTypeName, StridedMemoryView } from '@cuda-js/memory-view';
import { KernelArgumentError } from '../errors.js';
import type { ArrayType } from '../typing/jit-types.js';
import type { KernelParam } from '../typing/typed-ir.js';
import { ELEMENT_TYPES } from './element-types.js';
import { MAX_EXTENT } from './i64-number-ranges.js';
import type { ArrayArgument } from './kernel-source.js';

type ArrayParam = Extract<KernelParam, { kind: 'array' }>;

function compactSteps(shape: readonly number[], layout: 'C' | 'F'): number[] {
  const steps = new Array<number>(shape.length).fill(1);
  let step = 1;
  for (let n = 0; n < shape.length; n++) {
    const k = layout === 'C' ? shape.length - 1 - n : n;
    steps[k] = step;
    step *= shape[k]!;
  }
  return steps;
}

function layoutFits(view: StridedMemoryView, type: ArrayType): boolean {
  if (type.layout === 'A') return true;
  // A 1-D array compact one way is compact the other way.
  return type.layout === 'C' ? view.isCContiguous || (type.ndim === 1 && view.isFContiguous) : view.isFContiguous;
}

/**
 * An array argument in place: a typed array over the view's whole buffer
 * (zero-copy; strides may be negative, so elements can lie before the
 * view's first one) with element 0's index and the layout in elements.
 * Refuses what the GPU kernel could not take either: another dtype, ndim or
 * layout than the parameter's, and extents of 2^31 or more (kernels read
 * extents as i32); and device memory, which the CPU cannot reach.
 */
export function bindArrayArgument(param: ArrayParam, index: number, value: unknown): ArrayArgument {
  const type = param.type;
  const what = `argument ${index + 1} ('${param.name}', ${type.name})`;
  let view: StridedMemoryView;
  try {
    view = StridedMemoryView.fromAny(value);
  } catch (error) {
    throw new KernelArgumentError(`${what} cannot be viewed as an array: ${(error as Error).message}`, undefined, {
      cause: error,
    });
  }
  if (!view.isHostAccessible) {
    const device = view.device;
    throw new KernelArgumentError(
      `${what} is memory on ${deviceTypeName(device.type)}:${device.id}, not in a JS buffer: the simulator runs kernels on the CPU and needs host memory ` +
        '(a typed array, an ArrayBuffer or a view of one); copy the array to the host first',
    );
  }
  if (view.closed) throw new KernelArgumentError(`${what} is a closed view`);
  const element = ELEMENT_TYPES[type.dtype];
  if (view.dtype.name !== element.dtypeName)
    throw new KernelArgumentError(
      `${what} holds ${view.dtype.name}; the kernel was specialized for ${element.dtypeName}`,
    );
  if (view.ndim !== type.ndim)
    throw new KernelArgumentError(`${what} has ${view.ndim} dimension(s); the kernel was specialized for ${type.ndim}`);
  if (!layoutFits(view, type)) {
    throw new KernelArgumentError(
      `${what} has strides [${view.strides.join(', ')}] for shape [${view.shape.join(', ')}], which are not layout '${type.layout}'`,
    );
  }
  if (param.use.written && view.readonly)
    throw new KernelArgumentError(`${what} is read-only, and the kernel writes it`);
  const tooLarge = view.shape.findIndex((extent) => extent > MAX_EXTENT);
  if (tooLarge >= 0)
    throw new KernelArgumentError(
      `${what} has extent ${view.shape[tooLarge]} in dimension ${tooLarge}; kernels take extents below 2^31`,
    );
  const ctor = element.arrayConstructor;
  const size = ctor.BYTES_PER_ELEMENT;
  if (view.byteOffset % size !== 0)
    throw new KernelArgumentError(
      `${what} starts at byte ${view.byteOffset}, which is not aligned to its ${size}-byte elements`,
    );
  const buffer = view.buffer!;
  // (A SharedArrayBuffer works the same; the cast only satisfies the union of constructors.)
  const data = new ctor(buffer as ArrayBuffer, 0, Math.floor(buffer.byteLength / size));
  return {
    data,
    offset: view.byteOffset / size,
    shape: view.shape,
    steps: type.layout === 'A' ? view.strides : compactSteps(view.shape, type.layout),
    strides: view.strides,
  };
}
