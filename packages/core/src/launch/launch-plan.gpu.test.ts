// On a GPU: LaunchPlan with argument layouts (the JIT's ABI: pointer, extents,
// strides), per-context checks, closed code, and stream ordering of views.
import { driver } from '@cuda-js/bindings';
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  DLPACK_DEVICE,
  StridedMemoryView,
  type DLPackRequest,
} from '@cuda-js/memory-view';
import { Program } from '@cuda-js/program';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { type Device, LaunchArgumentError, LaunchConfig, LaunchPlan, launch, u64 } from '../index.js';
import { gpuTestKernels, readInts as ints } from '../test-kernels.test-support.js';

const SOURCE = String.raw`
extern "C" __global__ void saxpy_strided(float a, const float* x, long long n, long long sx, float* y) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i * sx] + y[i];
}
extern "C" __global__ void fill2d(double v, bool flag, unsigned long long tag, double* out, long long rows, long long cols) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < rows * cols) out[i] = flag ? v + (double)tag + (double)(i / cols) : -1.0;
}
extern "C" __global__ void spin(unsigned long long cycles) {
  long long start = clock64();
  while ((unsigned long long)(clock64() - start) < cycles) {}
}
extern "C" __global__ void set_all(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
extern "C" __global__ void copy_int(const int* src, int* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}
extern "C" __global__ void big_shared(int* out) {
  extern __shared__ int s[];
  s[threadIdx.x] = threadIdx.x + 1;
  __syncthreads();
  if (out) out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
`;

const NAMES = ['saxpy_strided', 'fill2d', 'spin', 'set_all', 'copy_int', 'big_shared'] as const;

describeGpu('LaunchPlan on a GPU', () => {
  const gpu = gpuTestKernels(SOURCE, NAMES);
  const kernel = (name: (typeof NAMES)[number]) => gpu.kernel(name);
  let device: Device;
  beforeAll(() => {
    device = gpu.device;
  });

  it('launches with a layout: a typed scalar, a strided array with its extent and stride, a contiguous array', () => {
    using stream = device.createStream();
    const n = 1000;
    using bx = device.allocate(2 * n * 4, { stream });
    using by = device.allocate(n * 4, { stream });
    bx.copyFrom(
      Float32Array.from({ length: 2 * n }, (_, i) => (i % 2 === 0 ? i / 2 : -1000)),
      { stream },
    );
    by.copyFrom(new Float32Array(n).fill(1), { stream });
    const x = StridedMemoryView.fromAny(bx, { stream: stream.handle })
      .view({ dtype: 'float32' })
      .slice([0, undefined, 2]);
    const y = StridedMemoryView.fromAny(by, { stream: stream.handle }).view({ dtype: 'float32' });
    expect(x.strides).toEqual([2]);
    const plan = new LaunchPlan(kernel('saxpy_strided'), [
      { kind: 'scalar', type: 'f32', name: 'a' },
      { kind: 'array', ndim: 1, shape: true, strides: true, dtype: 'f32', name: 'x' },
      { kind: 'array', ndim: 1, dtype: 'f32', layout: 'C', writable: true, name: 'y' },
    ]);
    // a plain options object, every launch: matched to one cached config, checked once
    for (let i = 0; i < 3; i++) plan.run({ grid: Math.ceil(n / 128), block: 128 }, stream.handle, [2, x, y]);
    expect(plan.device).toBe(device);
    const out = new Float32Array(n);
    by.copyTo(out, { stream });
    for (let i = 0; i < n; i++) expect(out[i]).toBe(1 + 3 * 2 * i);
    expect(() => plan.run({ grid: 1, block: 1 }, stream.handle, [2, y, y])).not.toThrow();
    expect(() => plan.run({ grid: 1, block: 1 }, stream.handle, [2.5, x, x])).toThrow(
      /argument 2 \('y'\): the kernel takes a C-contiguous array/,
    );
    stream.synchronize();
  });

  it('writes f64, bool (one byte) and u64 scalars and the extents of a 2-D array', () => {
    using stream = device.createStream();
    const rows = 7;
    const cols = 5;
    using b = device.allocate(rows * cols * 8, { stream });
    const out = StridedMemoryView.fromAny(b, { stream: stream.handle }).view({ dtype: 'float64', shape: [rows, cols] });
    const plan = new LaunchPlan(kernel('fill2d'), [
      { kind: 'scalar', type: 'f64' },
      { kind: 'scalar', type: 'bool' },
      { kind: 'scalar', type: 'u64' },
      { kind: 'array', ndim: 2, shape: true, dtype: 'float64', layout: 'C' },
    ]);
    plan.run({ grid: 1, block: 64 }, stream.handle, [0.5, true, 2n ** 40n, out]);
    const host = new Float64Array(rows * cols);
    b.copyTo(host, { stream });
    for (let i = 0; i < rows * cols; i++) expect(host[i]).toBe(0.5 + 2 ** 40 + Math.floor(i / cols));
    plan.run({ grid: 1, block: 64 }, stream.handle, [0.5, false, 0, out]);
    b.copyTo(host, { stream });
    expect(host.every((v) => v === -1)).toBe(true);
  });

  it('views CUDA array interface and DLPack objects implicitly, on the device they name', () => {
    using stream = device.createStream();
    const n = 256;
    using src = device.allocate(n * 4, { stream });
    using dst = device.allocate(n * 4, { stream });
    src.copyFrom(
      Int32Array.from({ length: n }, (_, i) => i * 3),
      { stream },
    );
    const srcView = StridedMemoryView.fromAny(src, { stream: stream.handle }).view({ dtype: 'int32' });
    const dstView = StridedMemoryView.fromAny(dst, { stream: stream.handle }).view({ dtype: 'int32' });
    const cai = { [CUDA_ARRAY_INTERFACE]: () => srcView[CUDA_ARRAY_INTERFACE]() }; // the device comes from the pointer
    const plan = new LaunchPlan(kernel('copy_int'), [
      { kind: 'array', ndim: 1, dtype: 'int32' },
      { kind: 'array', ndim: 1, dtype: 'int32', writable: true },
      { kind: 'scalar', type: 'i32' },
    ]);
    plan.run({ grid: 2, block: 128 }, stream.handle, [cai, dstView, n]);
    expect(ints(dst, n, stream)).toEqual(Array.from({ length: n }, (_, i) => i * 3));
    dst.fill(0, { stream });
    const dlpackOnly = {
      [DLPACK]: (r?: DLPackRequest) => dstView[DLPACK](r),
      [DLPACK_DEVICE]: () => dstView[DLPACK_DEVICE](),
    };
    plan.run({ grid: 2, block: 128 }, stream.handle, [srcView, dlpackOnly, n]);
    expect(ints(dst, n, stream)).toEqual(Array.from({ length: n }, (_, i) => i * 3));
  });

  it('refuses an array of another device before launching', () => {
    using stream = device.createStream();
    using b = device.allocate(64, { stream });
    const elsewhere = StridedMemoryView.fromPointer(b.ptr, {
      dtype: 'int32',
      shape: [16],
      device: { type: 2, id: device.ordinal + 1 },
    });
    const plan = new LaunchPlan(kernel('copy_int'), [
      { kind: 'array', ndim: 1 },
      { kind: 'array', ndim: 1 },
      { kind: 'scalar', type: 'i32' },
    ]);
    const mine = StridedMemoryView.fromAny(b, { stream: stream.handle }).view({ dtype: 'int32' });
    expect(() => plan.run({ grid: 1, block: 16 }, stream.handle, [elsewhere, mine, 16])).toThrow(LaunchArgumentError);
    expect(() => plan.run({ grid: 1, block: 16 }, stream.handle, [elsewhere, mine, 16])).toThrow(
      `the array lives on CUDA device ${device.ordinal + 1}, but the launch is on device ${device.ordinal}`,
    );
    // the plain path checks it too
    expect(() => launch(stream, { grid: 1, block: 16 }, kernel('copy_int'), elsewhere, mine, 16)).toThrow(
      /lives on CUDA device/,
    );
  });

  it('orders the launch stream after the stream a view was made for (plain launch and layouts), also when the view is reused', () => {
    using s = device.createStream({ nonBlocking: true });
    using t = device.createStream({ nonBlocking: true });
    const n = 1024;
    using src = device.allocate(n * 4, { stream: s });
    using out = device.allocate(n * 4, { stream: t });
    src.fill(0xff, { stream: s }); // -1 everywhere
    s.synchronize();
    const cycles = u64(BigInt(device.attributes.clockRate) * 200n); // ~200 ms
    const viewOnS = StridedMemoryView.fromAny(src, { stream: s.handle }).view({ dtype: 'int32' });
    const config = new LaunchConfig({ grid: n / 256, block: 256 });
    const plan = new LaunchPlan(kernel('copy_int'), [
      { kind: 'array', ndim: 1, dtype: 'int32' },
      { kind: 'array', ndim: 1, dtype: 'int32' },
      { kind: 'scalar', type: 'i32' },
    ]);
    const outView = StridedMemoryView.fromAny(out, { stream: t.handle }).view({ dtype: 'int32' });
    const runs: [string, (value: number) => void][] = [
      ['plain launch', () => launch(t, config, kernel('copy_int'), viewOnS, out, n)],
      ['layout plan', () => plan.run(config, t.handle, [viewOnS, outView, n])],
    ];
    let value = 1;
    for (const [, run] of runs) {
      for (let round = 0; round < 2; round++, value++) {
        // s: a long wait, then the values; t must not read src before they are written
        launch(s, { grid: 1, block: 1 }, kernel('spin'), cycles);
        launch(s, config, kernel('set_all'), src, value, n);
        run(value);
        expect(ints(out, n, t)).toEqual(new Array<number>(n).fill(value));
      }
    }
  });

  it('checks configs per context: the shared-memory opt-in is made again in a second context', () => {
    const fn = kernel('big_shared');
    const config = new LaunchConfig({ grid: 1, block: 32, sharedMemory: 64 * 1024 });
    using out = device.allocate(32 * 4);
    launch(0n, config, fn, out);
    device.synchronize();
    expect(ints(out, 32)).toEqual(Array.from({ length: 32 }, (_, i) => 32 - i));
    const other = driver.cuCtxCreate(null, 0, device.handle); // current now
    try {
      launch(0n, config, fn, 0n); // a new CUfunction for this context: it must opt in again
      driver.cuCtxSynchronize();
    } finally {
      driver.cuCtxPopCurrent();
      driver.cuCtxDestroy(other);
    }
    device.setCurrent();
    launch(0n, config, fn, out);
    device.synchronize();
  });

  it('refuses to launch a kernel whose ObjectCode was closed, clearly', () => {
    const code = new Program('extern "C" __global__ void touch(int* p) { if (p) p[0] = 42; }', 'c++', {
      arch: device.arch,
    }).compile('cubin');
    const touch = code.getKernel('touch');
    using b = device.allocate(4);
    launch(0n, { grid: 1, block: 1 }, touch, b);
    device.synchronize();
    expect(ints(b, 1)).toEqual([42]);
    const plan = new LaunchPlan(touch, [{ kind: 'array', ndim: 1 }]);
    code.close();
    expect(() => launch(0n, { grid: 1, block: 1 }, touch, b)).toThrow(/kernel 'touch' \(its ObjectCode .*\) is closed/);
    expect(() => plan.run({ grid: 1, block: 1 }, 0n, [b])).toThrow(/is closed/);
  });
});
