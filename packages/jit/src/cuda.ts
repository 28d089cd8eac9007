import { JitError } from './errors.js';

/** A thread's position along x, y and z. */
export interface Dim3Value {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

function onlyInKernels(what: string): never {
  throw new JitError(`cuda.${what} is only available inside a kernel compiled by jit(); it has no value in plain JavaScript`);
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

/**
 * The intrinsics that kernels use (numba's `cuda` module): the thread's
 * position and the grid's shape. Kernels name it `cuda` (a bundler's
 * namespace object in front of it is fine); outside a kernel each member
 * throws, as it has no meaning on the CPU.
 */
export interface CudaIntrinsics {
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
  /** `a * b + c` with one rounding. */
  fma(a: number, b: number, c: number): number;
}

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
  fma: (): never => onlyInKernels('fma()'),
});
