// numba-cuda's documented examples (docs/source/user/examples.rst with the
// doc-example tests it includes, and the kernels of the other user-guide
// pages), ported as a numba user would write them from cuda-js's READMEs
// and docs/porting-from-numba.md. Each example runs its numba program and
// checks the result against a plain-JS reference; the simulator and the GPU
// test files run the same examples (`gpu: true` gives numba's own sizes).
// docs/numba-doc-examples.md lists them with their status.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DeviceArray, f32, f64, i32, i64, u32, u8 } from '@cuda-js/core';
import { CUDA_ARRAY_INTERFACE, DLPACK, DLPACK_DEVICE, StridedMemoryView } from '@cuda-js/memory-view';
import { errorOf } from '@cuda-js/test-support/errors';
import { expect } from 'vitest';
import { cuda } from '../cuda.js';
import type { DeviceFunctionCallable } from '../device-function.js';
import { RecursionTypeError } from '../errors.js';
import { declareDevice } from '../external-device-function.js';
import { jit, type JitTarget } from '../jit.js';
import type { KernelArray, KernelPointer } from '../kernel-array.js';
import { deviceArray, deviceArrayLike, toDevice } from '../library/device-arrays.js';
import { guvectorize } from '../library/guvectorize.js';
import { xoroshiro128p_uniform_float32 } from '../library/random.js';
import { reduce } from '../library/reduce.js';
import { vectorize } from '../library/vectorize.js';
import { event, stream } from '../library/stream-makers.js';
import { createXoroshiro128pStates } from '../library/xoroshiro128p-states.js';
import { array, pointer } from '../typing/signature.js';

/** Where an example runs: the target, and whether at numba's own sizes (the GPU) or smaller ones (the simulator). */
export interface ExampleEnv {
  readonly target: JitTarget;
  readonly gpu: boolean;
}

export interface DocExample {
  /** The test's name: the doc page, then numba's example name. */
  readonly name: string;
  /** Runs the example and checks it against its reference (throws on a wrong result). */
  readonly run?: (env: ExampleEnv) => void | Promise<void>;
  /** Why it cannot run yet: the cuda-js feature it needs. */
  readonly pending?: string;
}

/** A deterministic generator of numbers in [0, 1) (numpy's random.random stand-in), so that references repeat. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomArray(n: number, seed: number): Float64Array {
  const next = seeded(seed);
  return Float64Array.from({ length: n }, next);
}

/** C = A @ B of row-major matrices, in f64 (numba's reference `x_h @ y_h`). */
function matmulReference(a: Float64Array, b: Float64Array, m: number, n: number, p: number): Float64Array {
  const c = new Float64Array(m * p);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < p; j++) for (let k = 0; k < n; k++) c[i * p + j]! += a[i * n + k]! * b[k * p + j]!;
  return c;
}

// --- examples.rst: vector addition -----------------------------------------

const vecadd: DocExample = {
  name: 'examples.rst vecadd: forall(len(a)) then f[nblocks, nthreads] on to_device / device_array_like arrays',
  run({ target, gpu }) {
    const f = jit(
      (a: Float64Array, b: Float64Array, c: Float64Array) => {
        // Like threadIdx.x + (blockIdx.x * blockDim.x)
        const tid = cuda.grid(1);
        const size = c.length;
        if (tid < size) c[tid] = a[tid]! + b[tid]!;
      },
      { target },
    );
    const N = gpu ? 100_000 : 5000;
    const a = toDevice(randomArray(N, 1), { target });
    const b = toDevice(randomArray(N, 2), { target });
    const c = deviceArrayLike(a, { target });
    f.forall(a.size)(a, b, c);
    const ha = a.copyToHost() as Float64Array;
    const hb = b.copyToHost() as Float64Array;
    const expected = Array.from(ha, (x, i) => x + hb[i]!);
    expect(Array.from(c.copyToHost() as Float64Array)).toEqual(expected);
    // Enough threads per block for several warps per block
    const nthreads = 256;
    // Enough blocks to cover the entire vector depending on its length
    const nblocks = Math.floor(a.size / nthreads) + 1;
    c.copyFromHost(new Float64Array(N));
    f.launch({ grid: nblocks, block: nthreads }, a, b, c);
    expect(Array.from(c.copyToHost() as Float64Array)).toEqual(expected);
  },
};

// --- examples.rst: 1-D heat equation and sessionize ------------------------
// Ported in numba-examples-barriers.test-support.ts (laplace, sessionize):
// run by numba-examples-barriers{,.gpu}.test.ts.

// --- examples.rst: shared-memory reduction ---------------------------------

const sharedReduction: DocExample = {
  name: 'examples.rst reduction: array_sum over a shared int32 array, one block of 1024 threads',
  run({ target }) {
    const a = toDevice(
      BigInt64Array.from({ length: 1024 }, (_, i) => BigInt(i)),
      { target },
    );
    const nelem = a.size;
    const arraySum = jit(
      (data: BigInt64Array) => {
        const tid = cuda.threadIdx.x;
        const size = data.length;
        if (tid < size) {
          const i = cuda.grid(1);
          // Declare an array in shared memory
          const shr = cuda.shared.array(nelem, i32);
          shr[tid] = cuda.i32(data[i]!);
          // Ensure writes to shared memory are visible to all threads before reducing
          cuda.syncthreads();
          let s = 1;
          while (s < cuda.blockDim.x) {
            if (tid % (2 * s) === 0) {
              // Stride by `s` and add
              shr[tid]! += shr[tid + s]!;
            }
            s *= 2;
            cuda.syncthreads();
          }
          // After the loop, the zeroth element contains the sum
          if (tid === 0) data[tid] = cuda.i64(shr[tid]!);
        }
      },
      { target, constants: { nelem } },
    );
    arraySum.launch({ grid: 1, block: nelem }, a);
    expect((a.copyToHost() as BigInt64Array)[0]).toBe(523776n);
  },
};

// --- examples.rst: CPU / GPU compatible function ---------------------------

/** numba's business_logic: plain JS, called on the host and (through jit.device) in the kernel. */
function businessLogic(x: number, y: number, z: number): number {
  return 4 * z * (2 * x - ((4 * y) / 2) * Math.PI);
}

const cpuGpuCompat: DocExample = {
  name: 'examples.rst cpu_gpu_compat: one function called on the host and from a kernel (forall)',
  run({ target }) {
    const X = toDevice([1, 10, 234], { target });
    const Y = toDevice([2, 2, 4014], { target });
    const Z = toDevice([3, 14, 2211], { target });
    const results = toDevice([0.0, 0.0, 0.0], { target });
    expect(businessLogic(1, 2, 3)).toBeCloseTo(-126.79644737231007, 12);
    const f = jit(
      (res: Float64Array, xarr: Float64Array, yarr: Float64Array, zarr: Float64Array) => {
        const tid = cuda.grid(1);
        if (tid < xarr.length) {
          // The host function may be reused directly as a device function
          res[tid] = logic(xarr[tid]!, yarr[tid]!, zarr[tid]!);
        }
      },
      { target, constants: { logic: jit.device(businessLogic) } },
    );
    f.forall(X.size)(results, X, Y, Z);
    const hx = X.copyToHost() as Float64Array;
    const hy = Y.copyToHost() as Float64Array;
    const hz = Z.copyToHost() as Float64Array;
    const expected = Array.from(hx, (x, i) => businessLogic(x, hy[i]!, hz[i]!));
    const got = Array.from(results.copyToHost() as Float64Array);
    // numba asserts equality; the GPU may contract a*b+c into an FMA, so allow an ulp or two
    for (let i = 0; i < 3; i++)
      expect(Math.abs(got[i]! - expected[i]!)).toBeLessThanOrEqual(Math.abs(expected[i]!) * 1e-15);
  },
};
declare const logic: (x: number, y: number, z: number) => number;

// --- examples.rst: Monte Carlo integration ---------------------------------

const monteCarlo: DocExample = {
  name: 'examples.rst montecarlo: xoroshiro draws through a device function, forall, then cuda.reduce',
  run({ target, gpu }) {
    const nsamps = gpu ? 1_000_000 : 100_000;
    // the function to integrate (numba's @numba.jit func)
    const func = jit.device((x: number) => 1.0 / x);
    const mcIntegratorKernel = jit(
      (out: Float32Array, rngStates: BigUint64Array, lowerLim: number, upperLim: number) => {
        const size = out.length;
        const gid = cuda.grid(1);
        if (gid < size) {
          // draw a sample between 0 and 1 on this thread
          let samp = xoroshiro128p_uniform_float32(rngStates, gid);
          // normalize this sample to the limit range
          samp = samp * (upperLim - lowerLim) + lowerLim;
          // evaluate the function to be integrated at the normalized value of the sample
          const y = func(samp);
          out[gid] = y;
        }
      },
      { target, constants: { func, xoroshiro128p_uniform_float32 } },
    );
    const sumReduce = reduce((a: number, b: number) => a + b, { target });
    const mcIntegrate = (lowerLim: number, upperLim: number, n: number): number => {
      const out = toDevice(new Float32Array(n), { target });
      const rngStates = createXoroshiro128pStates(n, 42);
      mcIntegratorKernel.forall(n)(out, rngStates, lowerLim, upperLim);
      // normalization factor to convert to the average: (b - a) / (N - 1)
      const factor = (upperLim - lowerLim) / (n - 1);
      return Number(sumReduce(out)) * factor;
    };
    // ln 2 and ln 1.5 (numba's values computed independently with maple: 0.69315, 0.4055)
    expect(Math.abs(mcIntegrate(1, 2, nsamps) - Math.LN2)).toBeLessThan(0.001);
    expect(Math.abs(mcIntegrate(2, 3, nsamps) - Math.log(1.5))).toBeLessThan(0.001);
  },
};

// --- examples.rst: matrix multiplication -----------------------------------

const matmulKernel = (target: JitTarget) =>
  jit(
    (A: KernelArray<'f64', 2>, B: KernelArray<'f64', 2>, C: KernelArray<'f64', 2>) => {
      // Perform square matrix multiplication of C = A * B
      const [i, j] = cuda.grid(2);
      if (i < C.shape[0] && j < C.shape[1]) {
        let tmp = 0.0;
        for (let k = 0; k < A.shape[1]; k++) tmp += A.get(i, k) * B.get(k, j);
        C.set(i, j, tmp);
      }
    },
    { target },
  );

// Controls threads per block and shared memory usage: the computation is
// done on blocks of TPB x TPB elements (TPB no larger than 32).
const TPB = 16;

const fastMatmulKernel = (target: JitTarget) =>
  jit(
    (A: KernelArray<'f64', 2>, B: KernelArray<'f64', 2>, C: KernelArray<'f64', 2>) => {
      // Arrays in shared memory: size and type known at compile time
      const sA = cuda.shared.array([TPB, TPB], f32);
      const sB = cuda.shared.array([TPB, TPB], f32);
      const [x, y] = cuda.grid(2);
      const tx = cuda.threadIdx.x;
      const ty = cuda.threadIdx.y;
      const bpg = cuda.gridDim.x; // blocks per grid
      // Each thread computes one element of the result, in TPB-long chunks of the dot product
      let tmp = cuda.f32(0.0);
      for (let i = 0; i < bpg; i++) {
        // Preload data into shared memory
        sA.set(ty, tx, 0);
        sB.set(ty, tx, 0);
        if (y < A.shape[0] && tx + i * TPB < A.shape[1]) sA.set(ty, tx, A.get(y, tx + i * TPB));
        if (x < B.shape[1] && ty + i * TPB < B.shape[0]) sB.set(ty, tx, B.get(ty + i * TPB, x));
        // Wait until all threads finish preloading
        cuda.syncthreads();
        // Computes partial product on the shared memory
        for (let j = 0; j < TPB; j++) tmp += sA.get(ty, j) * sB.get(j, tx);
        // Wait until all threads finish computing
        cuda.syncthreads();
      }
      if (y < C.shape[0] && x < C.shape[1]) C.set(y, x, tmp);
    },
    { target, constants: { TPB } },
  );

function matrices(target: JitTarget, m: number, n: number, p: number) {
  const xh = Float64Array.from({ length: m * n }, (_, i) => i); // np.arange(m * n).reshape([m, n])
  const yh = new Float64Array(n * p).fill(1);
  return {
    xh,
    yh,
    xd: toDevice(xh, { target }).reshape([m, n]),
    yd: toDevice(yh, { target }).reshape([n, p]),
    zd: toDevice(new Float64Array(m * p), { target }).reshape([m, p]),
    expected: Array.from(matmulReference(xh, yh, m, n, p)),
  };
}

const matmul: DocExample = {
  name: 'examples.rst matmul: the naive kernel on a 4x4 grid of 16x16 blocks',
  run({ target }) {
    const { xd, yd, zd, expected } = matrices(target, 4, 4, 4);
    const threadsPerBlock = [16, 16] as const;
    const blocksPerGrid = [Math.ceil(4 / threadsPerBlock[0]), Math.ceil(4 / threadsPerBlock[1])] as const;
    matmulKernel(target).launch({ grid: blocksPerGrid, block: threadsPerBlock }, xd, yd, zd);
    expect(Array.from(zd.copyToHost() as Float64Array)).toEqual(expected);
  },
};

const fastMatmulSquare: DocExample = {
  name: 'examples.rst matmul: fast_matmul with TPBxTPB shared tiles, square case (4x4)',
  run({ target }) {
    const { xd, yd, zd, expected } = matrices(target, 4, 4, 4);
    fastMatmulKernel(target).launch({ grid: [Math.ceil(4 / TPB), Math.ceil(4 / TPB)], block: [TPB, TPB] }, xd, yd, zd);
    expect(Array.from(zd.copyToHost() as Float64Array)).toEqual(expected);
    expect(expected.slice(0, 4)).toEqual([6, 6, 6, 6]); // numba's printed first row
  },
};

const fastMatmulNonSquare: DocExample = {
  name: 'examples.rst matmul: fast_matmul, non-square case (5x23 by 23x7)',
  run({ target }) {
    const { xh, yh, xd, yd, zd, expected } = matrices(target, 5, 23, 7);
    expect(xh.length + yh.length).toBe(115 + 161);
    const gridYMax = Math.max(5, 23);
    const gridXMax = Math.max(23, 7);
    const grid = [Math.ceil(gridXMax / TPB), Math.ceil(gridYMax / TPB)] as const;
    fastMatmulKernel(target).launch({ grid, block: [TPB, TPB] }, xd, yd, zd);
    expect(Array.from(zd.copyToHost() as Float64Array)).toEqual(expected);
  },
};

// --- examples.rst: calling a ufunc in a kernel -----------------------------

const ufuncInKernel: DocExample = {
  name: 'examples.rst ufunc: np.sin(x, r) in a one-thread kernel (written as a loop over Math.sin)',
  run({ target }) {
    const f = jit(
      (r: Float32Array, x: Float32Array) => {
        for (let i = 0; i < x.length; i++) r[i] = Math.sin(x[i]!);
      },
      { target },
    );
    const x = Float32Array.from({ length: 10 }, (_, i) => i - 5);
    const r = new Float32Array(x.length);
    f.launch({ grid: 1, block: 1 }, r, x);
    for (let i = 0; i < x.length; i++) expect(Math.abs(r[i]! - Math.sin(x[i]!))).toBeLessThan(1e-6);
  },
};

// --- examples.rst: pointer arguments ---------------------------------------

const cpointer: DocExample = {
  name: 'examples.rst cpointer: add_one(x: CPointer(uint8), n: uint32) launched with a raw device address',
  run({ target }) {
    const addOne = jit(
      (x: KernelPointer<'u8'>, n: number) => {
        const i = cuda.grid(1);
        if (i < n) x[i] = x[i]! + 1;
      },
      { target, signatures: [[pointer(u8), u32]] },
    );
    const x = toDevice(
      Uint8Array.from({ length: 10 }, (_, i) => i),
      { target },
    );
    // numba: x_ptr = x.__cuda_array_interface__['data'][0]; the simulator has no device addresses, so there the array itself is passed
    const xPtr = target === 'gpu' ? BigInt(x[CUDA_ARRAY_INTERFACE]().data[0]) : x;
    const xLen = x.size;
    addOne.launch({ grid: 1, block: 32 }, xPtr, xLen);
    expect(Array.from(x.copyToHost() as Uint8Array)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  },
};

// --- examples.rst: linking CUDA C++ (test_ffi) -----------------------------

// functions.cu of numba's example, in cuda-js's calling convention: the
// linked function returns its value (numba's returns through a pointer).
const FUNCTIONS_CU = `
extern "C" __device__ float mul_f32_f32(float x, float y) { return x * y; }
extern "C" __device__ float sum_reduce(float* array, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += array[i];
  return (float)sum;
}
`;

const ffiLinkingCu: DocExample = {
  name: 'examples.rst ffi: declare_device("mul_f32_f32", link=functions.cu) called by multiply_vectors',
  run({ target }) {
    const mul = declareDevice(
      'mul_f32_f32',
      { args: [f32, f32], returns: f32 },
      { link: { cuda: FUNCTIONS_CU }, simulate: (x: number, y: number) => Math.fround(x * y) },
    );
    const multiplyVectors = jit(
      (r: Float32Array, x: Float32Array, y: Float32Array) => {
        const i = cuda.grid(1);
        if (i < r.length) r[i] = mul(x[i]!, y[i]!);
      },
      { target, constants: { mul } },
    );
    const N = 32;
    const x = Float32Array.from(randomArray(N, 3));
    const y = Float32Array.from(randomArray(N, 4));
    const r = new Float32Array(N);
    multiplyVectors.launch({ grid: 1, block: 32 }, r, x, y);
    expect(Array.from(r)).toEqual(Array.from(x, (v, i) => Math.fround(v * y[i]!)));
  },
};

const ffiFromBuffer: DocExample = {
  name: 'examples.rst ffi: an array passed to linked code as a pointer (ffi.from_buffer), a 0-d result',
  run({ target }) {
    const sumReduce = declareDevice(
      'sum_reduce',
      { args: [array(f32, 1), i32], returns: f32 },
      {
        link: { cuda: FUNCTIONS_CU },
        simulate: (a: Float32Array, n: number) => {
          let s = 0;
          for (let i = 0; i < n; i++) s += a[i]!;
          return Math.fround(s);
        },
      },
    );
    const reductionCaller = jit(
      (result: KernelArray<'f32', 1>, arr: Float32Array) => {
        const r = result.row(0); // numba's 0-d result: result[()] = ...
        r.set(sumReduce(arr, arr.length));
      },
      { target, constants: { sumReduce } },
    );
    const x = Float32Array.from({ length: 10 }, (_, i) => i);
    const r = new Float32Array(1);
    reductionCaller.launch({ grid: 1, block: 1 }, r, x);
    expect(r[0]).toBe(45);
  },
};

/** numba's saxpy.cu with the two headers it includes (add.cuh from numba's test data, mul.cuh from the example). */
export const SAXPY_CU = `
#include <add.cuh>
#include <mul.cuh>
extern "C" __device__ float saxpy(float a, float x, float y) { return myadd(mymul(a, x), y); }
`;
export const SAXPY_HEADERS = {
  'add.cuh': 'template <typename T> __device__ T myadd(T a, T b) { return a + b; }\n',
  'mul.cuh': 'template <typename T> __device__ T mymul(T a, T b) { return a * b; }\n',
};

/** Two folders, one header each (numba's ffi/include and tests/data/include): the extra search paths. */
function headerFolders(): string[] {
  const root = mkdtempSync(join(tmpdir(), 'cuda-js-saxpy-'));
  return Object.entries(SAXPY_HEADERS).map(([file, text]) => {
    const folder = join(root, file.replace('.cuh', ''));
    mkdirSync(folder);
    writeFileSync(join(folder, file), text);
    return folder;
  });
}

const ffiExtraIncludes: DocExample = {
  name: 'examples.rst ffi: linked CUDA C++ that includes headers from extra search paths (saxpy)',
  run({ target }) {
    const saxpy = declareDevice(
      'saxpy',
      { args: [f32, f32, f32], returns: f32 },
      {
        link: { cuda: SAXPY_CU, includePaths: headerFolders() },
        simulate: (a: number, x: number, y: number) => Math.fround(Math.fround(a * x) + y),
      },
    );
    const vectorSaxpy = jit(
      (a: number, x: Float32Array, y: Float32Array, res: Float32Array) => {
        const i = cuda.grid(1);
        if (i < res.length) res[i] = saxpy(a, x[i]!, y[i]!);
      },
      { target, constants: { saxpy } },
    );
    const size = 10_000;
    const X = new Float32Array(size).fill(1);
    const Y = new Float32Array(size).fill(1);
    const R = new Float32Array(size);
    const blockSize = 32;
    const numBlocks = Math.floor(size / blockSize) + 1;
    vectorSaxpy.launch({ grid: numBlocks, block: blockSize }, f32(3.0), X, Y, R);
    expect(R.every((v) => v === 4)).toBe(true);
  },
};

// --- examples.rst / globals.rst: captured globals --------------------------

const globalsConstantCapture: DocExample = {
  name: 'globals.rst: TAX_RATE and a host PRICES array captured as constants at compile time',
  run({ target }) {
    let TAX_RATE = 0.08;
    const PRICES = Float64Array.from([10.0, 25.0, 5.0, 15.0, 30.0]);
    const computeTotals = jit(
      (quantities: Float64Array, totals: KernelArray<'f64', 1>) => {
        const i = cuda.grid(1);
        if (i < totals.size) totals[i] = quantities[i]! * PRICES[i]! * (1 + TAX_RATE);
      },
      { target, constants: { TAX_RATE, PRICES } },
    );
    const dQuantities = toDevice(Float64Array.from([1, 2, 3, 4, 5]), { target });
    const dTotals = deviceArray(5, 'float64', { target });
    // First kernel call: compiles and captures the values
    computeTotals.launch({ grid: 1, block: 32 }, dQuantities, dTotals);
    const expected = [10.8, 54.0, 16.2, 64.8, 162.0];
    const close = (got: Float64Array) => got.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 12));
    close(dTotals.copyToHost() as Float64Array);
    // These modifications have no effect on later kernel calls
    TAX_RATE = 0.1;
    PRICES.set([20.0, 50.0, 10.0, 30.0, 60.0]);
    expect(TAX_RATE).toBe(0.1);
    computeTotals.launch({ grid: 1, block: 32 }, dQuantities, dTotals);
    close(dTotals.copyToHost() as Float64Array);
  },
};

const globalsDeviceArrayCapture: DocExample = {
  name: 'globals.rst: a global device array captured by reference, its later contents seen by the kernel',
  run({ target }) {
    // Global device array: its address is captured, not its data
    const dPrices = toDevice(Float32Array.from([10.0, 25.0, 5.0, 15.0, 30.0]), { target });
    const PRICES = dPrices as unknown as KernelArray<'f32', 1>; // what the kernel sees
    const computeTotals = jit(
      (quantities: Float32Array, totals: KernelArray<'f32', 1>) => {
        const i = cuda.grid(1);
        if (i < totals.size) totals[i] = quantities[i]! * PRICES[i]!;
      },
      { target, constants: { PRICES: dPrices } },
    );
    const dQuantities = toDevice(new Float32Array(5).fill(1), { target });
    const dTotals = deviceArray(5, f32, { target });
    computeTotals.launch({ grid: 1, block: 32 }, dQuantities, dTotals);
    expect(Array.from(dTotals.copyToHost() as Float32Array)).toEqual([10, 25, 5, 15, 30]);
    // Mutate the device array in place: the second call sees it
    dPrices.copyFromHost(Float32Array.from([20.0, 50.0, 10.0, 30.0, 60.0]));
    computeTotals.launch({ grid: 1, block: 32 }, dQuantities, dTotals);
    expect(Array.from(dTotals.copyToHost() as Float32Array)).toEqual([20, 50, 10, 30, 60]);
  },
};

// --- cooperative_groups.rst: grid sync -------------------------------------

const cgGridSync: DocExample = {
  name: 'cooperative_groups.rst: sequential_rows with this_grid().sync(), sized by max_cooperative_grid_blocks',
  run({ target, gpu }) {
    const sequentialRows = jit(
      (M: KernelArray<'i32', 2>) => {
        const col = cuda.grid(1);
        const g = cuda.cg.thisGrid();
        const rows = M.shape[0];
        const cols = M.shape[1];
        for (let row = 1; row < rows; row++) {
          const opposite = cols - col - 1;
          // Each row's elements depend on the previous row's: sync the grid between rows
          M.set(row, col, M.get(row - 1, opposite) + 1);
          g.sync();
        }
      },
      { target },
    );
    const sig = [array(i32, 2, 'C')] as const;
    sequentialRows.compile(sig);
    const n = gpu ? 1024 : 64;
    const A = toDevice(new Int32Array(n * n), { target }).reshape([n, n]);
    const blockdim = 32;
    const griddim = Math.floor(n / blockdim);
    const mb = sequentialRows.maxCooperativeGridBlocks(blockdim, { signature: sig });
    expect(mb).toBeGreaterThanOrEqual(griddim);
    sequentialRows.launch({ grid: griddim, block: blockdim }, A);
    // row r of the reference is r everywhere (numba's np.tile(np.arange(n), (n, 1)).T)
    const got = A.copyToHost() as Int32Array;
    const expected = Int32Array.from({ length: n * n }, (_, i) => Math.floor(i / n));
    expect(Array.from(got)).toEqual(Array.from(expected));
  },
};

// --- random.rst -------------------------------------------------------------

const randomComputePi: DocExample = {
  name: 'random.rst: compute_pi from xoroshiro128p draws, 24 blocks of 64 threads',
  run({ target, gpu }) {
    const computePi = jit(
      (rngStates: BigUint64Array, iterations: number, out: Float32Array) => {
        const threadId = cuda.grid(1);
        // Compute pi by drawing random (x, y) points and finding what fraction lie inside a unit circle
        let inside = 0;
        for (let i = 0; i < iterations; i++) {
          const x = xoroshiro128p_uniform_float32(rngStates, threadId);
          const y = xoroshiro128p_uniform_float32(rngStates, threadId);
          if (x ** 2 + y ** 2 <= 1.0) inside += 1;
        }
        out[threadId] = (4.0 * inside) / iterations;
      },
      { target, constants: { xoroshiro128p_uniform_float32 } },
    );
    const threadsPerBlock = 64;
    const blocks = 24;
    const rngStates = createXoroshiro128pStates(threadsPerBlock * blocks, 1);
    const out = new Float32Array(threadsPerBlock * blocks);
    const iterations = gpu ? 10_000 : 200;
    computePi.launch({ grid: blocks, block: threadsPerBlock }, rngStates, i32(iterations), out);
    const mean = out.reduce((a, b) => a + b, 0) / out.length;
    expect(Math.abs(mean - Math.PI)).toBeLessThan(gpu ? 0.005 : 0.02);
  },
};

const random3dGrid: DocExample = {
  name: 'random.rst: random_3d fills a 3-D array from a 3-D grid (grid-stride loops), mean 0.5',
  run({ target, gpu }) {
    const random3d = jit(
      (arr: KernelArray<'f32', 3>, rngStates: BigUint64Array) => {
        // Per-dimension thread indices and strides
        const [startx, starty, startz] = cuda.grid(3);
        const [stridex, stridey, stridez] = cuda.gridsize(3);
        // Linearized thread index
        const tid = startz * stridey * stridex + starty * stridex + startx;
        // Use strided loops over the array to assign a random value to each entry
        for (let i = startz; i < arr.shape[0]; i += stridez)
          for (let j = starty; j < arr.shape[1]; j += stridey)
            for (let k = startx; k < arr.shape[2]; k += stridex)
              arr.set(i, j, k, xoroshiro128p_uniform_float32(rngStates, tid));
      },
      { target, constants: { xoroshiro128p_uniform_float32 } },
    );
    // Array dimensions, block and grid dimensions (numba's 701x900x719 on the GPU)
    const [X, Y, Z] = gpu ? [701, 900, 719] : [30, 20, 25];
    const [bx, by, bz] = gpu ? [8, 8, 8] : [4, 4, 4];
    const [gx, gy, gz] = gpu ? [16, 16, 16] : [2, 2, 2];
    const nthreads = bx * by * bz * gx * gy * gz;
    const rngStates = createXoroshiro128pStates(nthreads, 1);
    const arr = deviceArray([X, Y, Z], f32, { target });
    random3d.launch({ grid: [gx, gy, gz], block: [bx, by, bz] }, arr, rngStates);
    const host = arr.copyToHost() as Float32Array;
    let sum = 0;
    for (const v of host) {
      if (!(v >= 0 && v <= 1)) throw new Error(`random_3d: ${v} is outside [0, 1]`);
      sum += v;
    }
    const mean = sum / host.length;
    expect(mean).toBeGreaterThan(gpu ? 0.49 : 0.48);
    expect(mean).toBeLessThan(gpu ? 0.51 : 0.52);
  },
};

// --- kernels.rst -------------------------------------------------------------

const incrementManual: DocExample = {
  name: 'kernels.rst: increment_by_one with the position computed from threadIdx, blockIdx and blockDim',
  run({ target, gpu }) {
    const incrementByOne = jit(
      (anArray: KernelArray<'f64', 1>) => {
        const tx = cuda.threadIdx.x; // thread id in a 1-D block
        const ty = cuda.blockIdx.x; // block id in a 1-D grid
        const bw = cuda.blockDim.x; // block width: threads per block
        const pos = tx + ty * bw; // flattened index inside the array
        if (pos < anArray.size) anArray[pos]! += 1; // check array boundaries
      },
      { target },
    );
    const anArray = Float64Array.from({ length: gpu ? 100_003 : 1003 }, (_, i) => i);
    const threadsPerBlock = 32;
    const blocksPerGrid = Math.floor((anArray.length + (threadsPerBlock - 1)) / threadsPerBlock);
    incrementByOne.launch({ grid: blocksPerGrid, block: threadsPerBlock }, anArray);
    expect(anArray.every((v, i) => v === i + 1)).toBe(true);
  },
};

const incrementGrid: DocExample = {
  name: 'kernels.rst: increment_by_one with cuda.grid(1)',
  run({ target }) {
    const incrementByOne = jit(
      (anArray: KernelArray<'f32', 1>) => {
        const pos = cuda.grid(1);
        if (pos < anArray.size) anArray[pos]! += 1;
      },
      { target },
    );
    const anArray = Float32Array.from({ length: 1000 }, (_, i) => i / 4);
    const threadsPerBlock = 32;
    const blocksPerGrid = Math.floor((anArray.length + (threadsPerBlock - 1)) / threadsPerBlock);
    incrementByOne.launch({ grid: blocksPerGrid, block: threadsPerBlock }, anArray);
    expect(anArray.every((v, i) => v === i / 4 + 1)).toBe(true);
  },
};

const increment2d: DocExample = {
  name: 'kernels.rst: increment_a_2D_array with cuda.grid(2), blocks per grid from math.ceil',
  run({ target }) {
    const increment2D = jit(
      (anArray: KernelArray<'f64', 2>) => {
        const [x, y] = cuda.grid(2);
        if (x < anArray.shape[0] && y < anArray.shape[1]) anArray.set(x, y, anArray.get(x, y) + 1);
      },
      { target },
    );
    const [m, n] = [37, 21];
    const anArray = toDevice(
      Float64Array.from({ length: m * n }, (_, i) => i),
      { target },
    ).reshape([m, n]);
    const threadsPerBlock = [16, 16] as const;
    const blocksPerGrid = [
      Math.ceil(anArray.shape[0]! / threadsPerBlock[0]),
      Math.ceil(anArray.shape[1]! / threadsPerBlock[1]),
    ] as const;
    increment2D.launch({ grid: blocksPerGrid, block: threadsPerBlock }, anArray);
    expect(Array.from(anArray.copyToHost() as Float64Array)).toEqual(Array.from({ length: m * n }, (_, i) => i + 1));
  },
};

// --- device-functions.rst ----------------------------------------------------

const deviceFunction: DocExample = {
  name: 'device-functions.rst: a_device_function(a, b) = a + b called from a kernel',
  run({ target }) {
    const aDeviceFunction = jit.device((a: number, b: number) => a + b);
    const k = jit(
      (x: Float32Array, y: Float32Array, out: Float32Array) => {
        const i = cuda.grid(1);
        if (i < out.length) out[i] = aDeviceFunction(x[i]!, y[i]!);
      },
      { target, constants: { aDeviceFunction } },
    );
    const x = Float32Array.from({ length: 100 }, (_, i) => i * 0.5);
    const y = Float32Array.from({ length: 100 }, (_, i) => 100 - i);
    const out = new Float32Array(100);
    k.forall(100)(x, y, out);
    expect(Array.from(out)).toEqual(Array.from(x, (v, i) => Math.fround(v + y[i]!)));
  },
};

// --- memory.rst: dynamic shared memory ---------------------------------------

const dynamicSharedAliasing: DocExample = {
  name: 'memory.rst: two dynamic shared arrays (f32 and i32) alias the same 4 bytes (f[1, 1, 0, 4])',
  run({ target }) {
    // numba prints the two values; the port writes them out so that they are checked
    const f = jit(
      (outF: Float32Array, outI: Int32Array) => {
        const f32Arr = cuda.shared.array(0, f32);
        const i32Arr = cuda.shared.array(0, i32);
        f32Arr[0] = 3.14;
        outF[0] = f32Arr[0]!;
        outI[0] = i32Arr[0]!;
      },
      { target },
    );
    const outF = new Float32Array(1);
    const outI = new Int32Array(1);
    f.launch({ grid: 1, block: 1, sharedMemory: 4 }, outF, outI);
    expect(outF[0]).toBe(Math.fround(3.14));
    expect(outI[0]).toBe(1078523331); // the bits of 3.14f
  },
};

const dynamicSharedView: DocExample = {
  name: 'memory.rst: a dynamic shared i32 array viewed from its second element (cuda.shared.array(0, int32)[1:])',
  run({ target }) {
    const fWithView = jit(
      (outF: Float32Array, outI: Int32Array) => {
        const f32Arr = cuda.shared.array(0, f32);
        const i32Arr = cuda.shared.array(0, i32).subarray(1); // 1 int32 = 4 bytes
        f32Arr[0] = 3.14;
        i32Arr[0] = 1;
        outF[0] = f32Arr[0]!;
        outI[0] = i32Arr[0]!;
      },
      { target },
    );
    const outF = new Float32Array(1);
    const outI = new Int32Array(1);
    fWithView.launch({ grid: 1, block: 1, sharedMemory: 8 }, outF, outI);
    expect(outF[0]).toBe(Math.fround(3.14));
    expect(outI[0]).toBe(1);
  },
};

// --- intrinsics.rst: atomics -------------------------------------------------

const atomicMax: DocExample = {
  name: 'intrinsics.rst: max_example with cuda.atomic.max on result[0], 256 blocks of 64',
  run({ target }) {
    const maxExample = jit(
      (result: Float64Array, values: Float64Array) => {
        const tid = cuda.threadIdx.x;
        const bid = cuda.blockIdx.x;
        const bdim = cuda.blockDim.x;
        const i = bid * bdim + tid;
        cuda.atomic.max(result, 0, values[i]!);
      },
      { target },
    );
    const arr = randomArray(16384, 5);
    const result = new Float64Array(1);
    maxExample.launch({ grid: 256, block: 64 }, result, arr);
    expect(result[0]).toBe(Math.max(...arr));
  },
};

const atomicMax3d: DocExample = {
  name: 'intrinsics.rst: max_example_3d with cuda.atomic.max at the tuple index (0, 1, 2) of a 3-D array',
  run({ target }) {
    const maxExample3d = jit(
      (result: KernelArray<'f64', 3>, values: KernelArray<'f64', 3>) => {
        const [i, j, k] = cuda.grid(3);
        // Atomically store to result[0, 1, 2] from values[i, j, k]
        cuda.atomic.max(result, [0, 1, 2], values.get(i, j, k));
      },
      { target },
    );
    const values = randomArray(1000, 6);
    const arr = toDevice(values, { target }).reshape([10, 10, 10]);
    const result = toDevice(new Float64Array(27), { target }).reshape([3, 3, 3]);
    maxExample3d.launch({ grid: [2, 2, 2], block: [5, 5, 5] }, result, arr);
    const got = result.copyToHost() as Float64Array;
    const expected = new Float64Array(27);
    expected[0 * 9 + 1 * 3 + 2] = Math.max(...values);
    expect(Array.from(got)).toEqual(Array.from(expected));
  },
};

// --- reduction.rst -------------------------------------------------------------

const reductionDecorator: DocExample = {
  name: 'reduction.rst: @cuda.reduce sum_reduce of arange(1234) + 1, and the lambda form',
  run({ target }) {
    const sumReduce = reduce((a: number, b: number) => a + b, { target });
    const A = Float64Array.from({ length: 1234 }, (_, i) => i + 1);
    const expected = A.reduce((a, b) => a + b, 0);
    expect(sumReduce(A)).toBe(expected);
    const lambdaReduce = reduce((a: number, b: number) => a + b, { target });
    expect(lambdaReduce(A)).toBe(expected);
  },
};

// --- ufunc.rst -------------------------------------------------------------------

const ufuncDiscriminant: DocExample = {
  name: 'ufunc.rst: cu_discriminant, a CUDA vectorize with float32 and float64 signatures',
  run({ target, gpu }) {
    const cuDiscriminant = vectorize(
      ['float32(float32, float32, float32)', 'float64(float64, float64, float64)'],
      (a: number, b: number, c: number) => Math.sqrt(b ** 2 - 4 * a * c),
      { target },
    );
    const N = gpu ? 10_000 : 2000;
    const A = Float32Array.from(randomArray(N, 7));
    const B = Float32Array.from(randomArray(N, 8), (v) => v + 10);
    const C = Float32Array.from(randomArray(N, 9));
    const D = cuDiscriminant(A, B, C) as Float32Array;
    expect(D).toBeInstanceOf(Float32Array);
    for (let i = 0; i < N; i++) {
      const want = Math.sqrt(B[i]! ** 2 - 4 * A[i]! * C[i]!);
      expect(Math.abs(D[i]! - want)).toBeLessThanOrEqual(want * 2e-6);
    }
    const D64 = cuDiscriminant(Float64Array.from(A), Float64Array.from(B), Float64Array.from(C)) as Float64Array;
    expect(D64).toBeInstanceOf(Float64Array);
    for (let i = 0; i < N; i++)
      expect(Math.abs(D64[i]! - Math.sqrt(B[i]! ** 2 - 4 * A[i]! * C[i]!))).toBeLessThanOrEqual(1e-12);
  },
};

const ufuncDeviceFunction: DocExample = {
  name: 'ufunc.rst: a vectorize ufunc that calls a device function (x ** y / z)',
  run({ target }) {
    const cuDeviceFn = jit.device((x: number, y: number, z: number) => x ** y / z);
    const cuUfunc = vectorize(
      ['float32(float32, float32, float32)'],
      (x: number, y: number, z: number) => cuDeviceFn(x, y, z),
      { target, constants: { cuDeviceFn } },
    );
    const x = Float32Array.from({ length: 256 }, (_, i) => 1 + i / 64);
    const y = Float32Array.from({ length: 256 }, (_, i) => (i % 7) / 2);
    const z = Float32Array.from({ length: 256 }, (_, i) => 1 + (i % 5));
    const got = cuUfunc(x, y, z) as Float32Array;
    for (let i = 0; i < 256; i++) {
      const want = x[i]! ** y[i]! / z[i]!;
      expect(Math.abs(got[i]! - want)).toBeLessThanOrEqual(want * 4e-6);
    }
  },
};

const ufuncStreams: DocExample = {
  name: 'ufunc.rst: cu_discriminant over chunks on a stream (to_device, out=, stream=, copy_to_host on the stream)',
  async run({ target, gpu }) {
    const cuDiscriminant = vectorize(
      ['float32(float32, float32, float32)', 'float64(float64, float64, float64)'],
      (a: number, b: number, c: number) => Math.sqrt(b ** 2 - 4 * a * c),
      { target },
    );
    const N = gpu ? 10_000_000 : 20_000; // numba's 1e8 on the GPU
    const A = Float32Array.from(randomArray(N, 10));
    const B = Float32Array.from(randomArray(N, 11), (v) => v + 10);
    const C = Float32Array.from(randomArray(N, 12));
    const D = new Float32Array(N);
    // a CUDA stream: in the simulator, a stream whose work is done as each call returns
    const s = stream({ target });
    const chunksize = gpu ? 1_000_000 : 5000;
    const chunkcount = N / chunksize;
    // partition the arrays into chunks: subarrays, no copying
    const split = (x: Float32Array) =>
      Array.from({ length: chunkcount }, (_, k) => x.subarray(k * chunksize, (k + 1) * chunksize));
    const [sA, sB, sC, sD] = [split(A), split(B), split(C), split(D)];
    const devicePtrs = [];
    for (let k = 0; k < chunkcount; k++) {
      // transfer to the device, on the stream
      const dA = toDevice(sA[k], { target, stream: s });
      const dB = toDevice(sB[k], { target, stream: s });
      const dC = toDevice(sC[k], { target, stream: s });
      const dD = deviceArrayLike(sD[k], { target, stream: s }); // no copying
      // launch the ufunc, then get the result back, on the stream
      cuDiscriminant(dA, dB, dC, { out: dD, stream: s });
      dD.copyToHost(sD[k]!, { stream: s });
      // keep the device arrays alive until the work is done
      devicePtrs.push(dA, dB, dC, dD);
    }
    // numba's stream.auto_synchronize(): the data is ready after this
    await s.synchronized();
    for (let i = 0; i < N; i++) {
      const want = Math.sqrt(B[i]! ** 2 - 4 * A[i]! * C[i]!);
      if (!(Math.abs(D[i]! - want) <= want * 2e-6))
        throw new Error(`cu_discriminant on a stream: element ${i} is ${D[i]}, expected ${want}`);
    }
    for (const d of devicePtrs) d.close();
    s.close();
  },
};

// --- simulator.rst -------------------------------------------------------------

const simulatorVecAdd: DocExample = {
  name: 'simulator.rst: vec_add, the kernel numba stops in the debugger at thread <<<(3,0,0), (1,0,0)>>> (run without the debugger)',
  run({ target }) {
    const vecAdd = jit(
      (A: Float32Array, B: Float32Array, out: Float32Array) => {
        const x = cuda.threadIdx.x;
        const bx = cuda.blockIdx.x;
        const bdx = cuda.blockDim.x;
        if (x === 1 && bx === 3) console.log('thread <<<(3, 0, 0), (1, 0, 0)>>> here'); // numba's pdb.set_trace() stop
        const i = bx * bdx + x;
        out[i] = A[i]! + B[i]!;
      },
      { target },
    );
    const A = Float32Array.from({ length: 16 }, (_, i) => i);
    const B = Float32Array.from({ length: 16 }, (_, i) => 100 * i);
    const out = new Float32Array(16);
    vecAdd.launch({ grid: 4, block: 4 }, A, B, out);
    expect(Array.from(out)).toEqual(Array.from(A, (a, i) => a + B[i]!));
  },
};

// --- cuda_array_interface.rst ---------------------------------------------------

/** Another library's array, seen through one protocol only: the CUDA array interface on the GPU, DLPack for host memory (the simulator's). */
function foreignArray(array: DeviceArray, target: JitTarget): object {
  if (target === 'gpu') return { [CUDA_ARRAY_INTERFACE]: () => array[CUDA_ARRAY_INTERFACE]() };
  return { [DLPACK]: (request?: never) => array[DLPACK](request), [DLPACK_DEVICE]: () => array[DLPACK_DEVICE]() };
}

const caiAdd: DocExample = {
  name: "cuda_array_interface.rst: add(x, y, out) with a grid-stride loop on another library's arrays (CuPy's in numba's)",
  run({ target }) {
    const add = jit(
      (x: KernelArray<'i64', 1>, y: BigInt64Array, out: BigInt64Array) => {
        const start = cuda.grid(1);
        const stride = cuda.gridsize(1);
        for (let i = start; i < x.shape[0]; i += stride) out[i] = x[i]! + y[i]!;
      },
      { target },
    );
    const a = toDevice(
      BigInt64Array.from({ length: 10 }, (_, i) => BigInt(i)),
      { target },
    ); // cupy.arange(10)
    const b = toDevice(
      BigInt64Array.from({ length: 10 }, (_, i) => BigInt(2 * i)),
      { target },
    ); // a * 2
    const out = deviceArrayLike(a, { target });
    add.launch(
      { grid: 1, block: 32 },
      foreignArray(a, target) as never,
      foreignArray(b, target) as never,
      foreignArray(out, target) as never,
    );
    expect(Array.from(out.copyToHost() as BigInt64Array)).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(3 * i)));
  },
};

const caiStreams: DocExample = {
  name: 'cuda_array_interface.rst: initialize_array on a kernel stream, an event makes the array stream wait before a consumer reads',
  async run({ target }) {
    const initializeArray = jit(
      (x: Int32Array) => {
        const i = cuda.grid(1);
        if (i < x.length) x[i] = i;
      },
      { target },
    );
    initializeArray.compile([array(i32, 1, 'C')]); // numba's eager void(int32[::1])
    const arrayStream = stream({ target });
    const kernelStream = stream({ target });
    const N = 16384;
    const x = deviceArray(N, i32, { target, stream: arrayStream });
    const nthreads = 256;
    const nblocks = Math.floor(N / nthreads);
    // cuda-js's device memory is allocated in stream order (on array_stream here): the kernel's stream waits for it
    kernelStream.wait(arrayStream);
    // numba's initialize_array[nthreads, nblocks, kernel_stream]: grid 256, block 64
    initializeArray.launch({ grid: nthreads, block: nblocks, stream: kernelStream }, x);
    // record an event after the launch in kernel_stream, and make array_stream wait for it
    const evt = event({ target });
    evt.record(kernelStream);
    arrayStream.wait(evt);
    // the consumer: a copy ordered on array_stream
    const host = x.copyToHost({ stream: arrayStream }) as Int32Array;
    await arrayStream.synchronized();
    expect(host.every((v, i) => v === i)).toBe(true);
  },
};

// --- cudapysupported.rst: recursion ------------------------------------------------

const fibReference = (n: bigint): bigint => (n < 2n ? n : fibReference(n - 1n) + fibReference(n - 2n));

const recursionFib: DocExample = {
  name: 'cudapysupported.rst: recursive device function fib(n) with the signature int64(int64)',
  run({ target, gpu }) {
    // numba's @cuda.jit("int64(int64)", device=True): the return type declared, the argument an int64 by the caller's type
    const fib: DeviceFunctionCallable<(n: bigint) => bigint> = jit.device(
      function fib(n: bigint): bigint {
        if (n < 2n) return n;
        return fib(n - 1n) + fib(n - 2n);
      },
      { returns: i64 },
    );
    const kernel = jit(
      (r: BigInt64Array, x: BigInt64Array) => {
        const i = cuda.grid(1);
        if (i < x.length) r[i] = fib(x[i]!);
      },
      { target, constants: { fib } },
    );
    const count = gpu ? 25 : 16;
    const x = BigInt64Array.from({ length: count }, (_, i) => BigInt(i));
    const r = new BigInt64Array(count);
    kernel.launch({ grid: 1, block: 32 }, r, x);
    expect(Array.from(r)).toEqual(Array.from(x, fibReference));
    // numba's own check: fib(10) is 55
    expect(r[10]).toBe(55n);
    const typed = kernel.compile([array(i64, 1), array(i64, 1)]).typed;
    expect(typed.functions?.map((f) => f.returns)).toEqual(['i64']);
  },
};

// numba's type_change_self, called with (an integer, float64): the inner call's x - y
// is a float64, so the recursion changes its argument types. numba-cuda refuses it
// (its doc: "this function is unsupported"; its test is skipped, "Needs
// insert_unresolved_ref support in target"), numba's CPU target runs it. cuda-js
// types one function per list of argument types, as numba's CPU target does:
// (i32, f64) calls (f64, f64), which calls itself, and both return f64 (the
// base case's y). The port checks the result against plain JS (numba's CPU
// test: pfunc(13, 0.125) == cfunc(13, 0.125)); a recursion cuda-js cannot type,
// numba's runaway_self, is refused with the named error at the user's line.
const typeChangeReference = (x: number, y: number): number => (x > 1 && y > 0 ? x + typeChangeReference(x - y, y) : y);

const recursionTypeChange: DocExample = {
  name: 'cudapysupported.rst: type_change_self, a recursion whose argument types change (numba-cuda refuses it)',
  run({ target }) {
    const typeChangeSelf: DeviceFunctionCallable<(x: number, y: number) => number> = jit.device(
      (x: number, y: number): number => {
        if (x > 1 && y > 0) return x + typeChangeSelf(x - y, y);
        else return y;
      },
      { name: 'typeChangeSelf', constants: () => ({ typeChangeSelf }) },
    );
    const kernel = jit(
      (r: Float64Array, x: Int32Array, y: Float64Array) => {
        r[0] = typeChangeSelf(x[0]!, y[0]!); // (integer, float): the inner call's x - y is a float
      },
      { target, constants: { typeChangeSelf } },
    );
    const r = new Float64Array(1);
    // numba's (13, 0.125) recurses 104 calls deep, past a GPU thread's default stack (cuda-js sets no
    // stack limit yet): the GPU twin takes a step of 1.5 (9 calls), the simulator numba's own arguments
    const step = target === 'gpu' ? 1.5 : 0.125;
    kernel.launch({ grid: 1, block: 1 }, r, Int32Array.of(13), Float64Array.of(step));
    expect(r[0]).toBe(typeChangeReference(13, step));
    const typed = kernel.compile([array(f64, 1), array(i32, 1), array(f64, 1)]).typed;
    expect(typed.functions?.map((f) => f.returns)).toEqual(['f64', 'f64']);
    // numba's runaway_self (cannot type infer runaway recursion): a RecursionTypeError at the call
    const runawaySelf: DeviceFunctionCallable<(x: number) => number> = jit.device(
      (x: number): number => runawaySelf(x),
      {
        name: 'runawaySelf',
        constants: () => ({ runawaySelf }),
      },
    );
    const runaway = jit(
      (r: Float64Array) => {
        r[0] = runawaySelf(1);
      },
      { target, constants: { runawaySelf } },
    );
    const error = errorOf(() => runaway.launch({ grid: 1, block: 1 }, r));
    expect(error).toBeInstanceOf(RecursionTypeError);
    expect(error?.message).toMatch(/the return type of the recursive device function 'runawaySelf' cannot be inferred/);
    expect(error?.message).toMatch(/numba-doc-examples\.test-support\.ts:\d+:\d+/);
  },
};

// --- ufunc.rst: generalized CUDA ufuncs ---------------------------------------------

const guvectorizeMatmul: DocExample = {
  name: 'ufunc.rst: guvectorize matmulcore (m,n),(n,p)->(m,p) for the GPU',
  run({ target, gpu }) {
    const matmulcore = guvectorize(
      ['void(float32[:,:], float32[:,:], float32[:,:])', 'void(float64[:,:], float64[:,:], float64[:,:])'],
      '(m,n),(n,p)->(m,p)',
      (A: KernelArray<'f32', 2>, B: KernelArray<'f32', 2>, C: KernelArray<'f32', 2>) => {
        // numba's `m, n = A.shape`: destructuring a shape is not in the kernel language, so one extent at a time
        const m = A.shape[0];
        const n = A.shape[1];
        const p = B.shape[1];
        for (let i = 0; i < m; i++) {
          for (let j = 0; j < p; j++) {
            C.set(i, j, 0);
            for (let k = 0; k < n; k++) C.set(i, j, C.get(i, j) + A.get(i, k) * B.get(k, j));
          }
        }
      },
      { target },
    );
    // numba's test_gufunc: matrix_ct stacked 2x4 and 4x5 matrices of arange
    const matrixCt = gpu ? 1001 : 101;
    const a = Float32Array.from({ length: matrixCt * 2 * 4 }, (_, k) => k);
    const b = Float32Array.from({ length: matrixCt * 4 * 5 }, (_, k) => k);
    const A = StridedMemoryView.fromBuffer(a, { dtype: 'float32', shape: [matrixCt, 2, 4] });
    const B = StridedMemoryView.fromBuffer(b, { dtype: 'float32', shape: [matrixCt, 4, 5] });
    const C = matmulcore(A, B) as StridedMemoryView;
    expect(C.shape).toEqual([matrixCt, 2, 5]);
    const got = C.toTypedArray() as Float32Array;
    expect(got).toBeInstanceOf(Float32Array);
    // each stacked product once, in f64: the reference of both signatures
    const wants = Array.from({ length: matrixCt }, (_, q) =>
      matmulReference(
        Float64Array.from(a.subarray(q * 8, q * 8 + 8)),
        Float64Array.from(b.subarray(q * 20, q * 20 + 20)),
        2,
        4,
        5,
      ),
    );
    for (let q = 0; q < matrixCt; q++) {
      const want = wants[q]!;
      for (let e = 0; e < 10; e++) expect(Math.abs(got[q * 10 + e]! - want[e]!)).toBeLessThanOrEqual(want[e]! * 1e-6);
    }
    // the float64 signature: exact for these integers
    const C64 = matmulcore(
      StridedMemoryView.fromBuffer(Float64Array.from(a), { dtype: 'float64', shape: [matrixCt, 2, 4] }),
      StridedMemoryView.fromBuffer(Float64Array.from(b), { dtype: 'float64', shape: [matrixCt, 4, 5] }),
    ) as StridedMemoryView;
    const got64 = C64.toTypedArray() as Float64Array;
    for (let q = 0; q < matrixCt; q++) {
      expect(Array.from(got64.subarray(q * 10, q * 10 + 10))).toEqual(Array.from(wants[q]!));
    }
  },
};

export const DOC_EXAMPLES: readonly DocExample[] = [
  vecadd,
  sharedReduction,
  cpuGpuCompat,
  monteCarlo,
  matmul,
  fastMatmulSquare,
  fastMatmulNonSquare,
  ufuncInKernel,
  ffiLinkingCu,
  ffiFromBuffer,
  ffiExtraIncludes,
  globalsConstantCapture,
  globalsDeviceArrayCapture,
  cgGridSync,
  randomComputePi,
  random3dGrid,
  incrementManual,
  incrementGrid,
  increment2d,
  deviceFunction,
  dynamicSharedAliasing,
  dynamicSharedView,
  atomicMax,
  atomicMax3d,
  reductionDecorator,
  ufuncDiscriminant,
  ufuncDeviceFunction,
  ufuncStreams,
  simulatorVecAdd,
  caiAdd,
  caiStreams,
  cpointer,
  guvectorizeMatmul,
  recursionFib,
  recursionTypeChange,
];
