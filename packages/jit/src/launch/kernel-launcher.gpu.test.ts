// On a GPU: KernelLauncher with CUDA C++ kernels written to the JIT's ABI
// (TypedKernel: a scalar is its value, bool one byte; an array is its data
// pointer, then ndim i64 extents if use.shape, then ndim i64 strides in
// elements if use.strides), with hand-written KernelParam lists.
import { Device, f32, u8, type Buffer } from '@cuda-js/core';
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  DLPACK_DEVICE,
  StridedMemoryView,
  type DLPackRequest,
  type DLPackTensor,
} from '@cuda-js/memory-view';
// The scijs ndarray below is viewed through the host adapters, which their subpath registers.
import '@cuda-js/memory-view/adapters';
import { Program, type Kernel, type ObjectCode } from '@cuda-js/program';
import type { Stream } from '@cuda-js/streams';
import { describeGpu } from '@cuda-js/test-support';
import { afterAll, afterEach, beforeAll, expect, it, vi, type MockInstance } from 'vitest';
import { KernelArgumentError } from '../errors.js';
import { arrayType, typeName, type Layout, type ScalarName } from '../typing/jit-types.js';
import type { ArrayUse, KernelParam } from '../typing/typed-ir.js';
import { argumentTypes } from './argument-types.js';
import { KernelLauncher } from './kernel-launcher.js';

const SOURCE = String.raw`
extern "C" __global__ void axpy(float a, const float* x, long long n0, float* y) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n0) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void scale2d(double s, double* a, long long n0, long long n1, long long s0, long long s1) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n0 * n1) { long long r = i / n1, c = i % n1; a[r * s0 + c * s1] *= s; }
}
extern "C" __global__ void fill_f(int* out, long long n0, long long n1) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n0 * n1) { long long i0 = i % n0, i1 = i / n0; out[i0 + n0 * i1] = (int)(i0 * 10 + i1); }
}
extern "C" __global__ void scalars(bool f, long long k, unsigned char c, double d, int* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) { out[0] = f ? 1 : 0; out[1] = (int)k; out[2] = c; out[3] = (int)(d * 2.0); }
}
`;

const scalar = (name: string, type: ScalarName): KernelParam => ({ kind: 'scalar', name, type, local: 0 });
const array = (
  name: string,
  dtype: ScalarName,
  ndim: 1 | 2 | 3,
  layout: Layout,
  use: Partial<ArrayUse>,
): KernelParam => ({
  kind: 'array',
  name,
  type: arrayType(dtype, ndim, layout),
  use: { shape: false, strides: false, written: false, ...use },
});

const AXPY_PARAMS = [
  scalar('a', 'f32'),
  array('x', 'f32', 1, 'C', { shape: true }),
  array('y', 'f32', 1, 'C', { written: true }),
];
const SCALE2D_PARAMS = [scalar('s', 'f64'), array('a', 'f64', 2, 'A', { shape: true, strides: true, written: true })];
const FILL_F_PARAMS = [array('out', 'i32', 2, 'F', { shape: true, written: true })];
const SCALARS_PARAMS = [
  scalar('f', 'bool'),
  scalar('k', 'i64'),
  scalar('c', 'u8'),
  scalar('d', 'f64'),
  array('out', 'i32', 1, 'C', { written: true }),
];

describeGpu('KernelLauncher on a GPU', () => {
  let device: Device;
  let code: ObjectCode;
  const kernel = (name: string): Kernel => code.getKernel(name);
  let warnings: MockInstance<typeof process.emitWarning>;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
    code = new Program(SOURCE, 'c++', { arch: device.arch }).compile('cubin');
    warnings = vi.spyOn(process, 'emitWarning');
  });
  afterAll(() => {
    code?.close();
    warnings?.mockRestore();
  });
  afterEach(() => warnings.mockClear());

  function floats(buffer: Buffer, stream: Stream): Float32Array {
    const out = new Float32Array(buffer.size / 4);
    buffer.copyTo(out, { stream });
    return out;
  }
  function hostWarnings(): string[] {
    return warnings.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('is a host array'));
  }

  it('launches with device arrays (views of Buffers), reusing a plain config and the views', () => {
    using stream = device.createStream();
    const n = 5000;
    using bx = device.allocate(n * 4, { stream });
    using by = device.allocate(n * 4, { stream });
    bx.copyFrom(
      Float32Array.from({ length: n }, (_, i) => i),
      { stream },
    );
    by.copyFrom(new Float32Array(n).fill(1), { stream });
    const x = StridedMemoryView.fromAny(bx, { stream: stream.handle }).view({ dtype: 'float32' });
    const y = StridedMemoryView.fromAny(by, { stream: stream.handle }).view({ dtype: 'float32' });
    expect(argumentTypes([f32(2), x, y], ['a', 'x', 'y'], 'gpu').map(typeName)).toEqual([
      'f32',
      "array(f32, 1, 'C')",
      "array(f32, 1, 'C')",
    ]);
    const launcher = new KernelLauncher(kernel('axpy'), AXPY_PARAMS, 'axpy');
    for (let i = 0; i < 3; i++) launcher.launch({ grid: Math.ceil(n / 256), block: 256 }, stream, [f32(2), x, y]);
    const out = floats(by, stream);
    for (let i = 0; i < n; i++) expect(out[i]).toBe(1 + 6 * i);
    expect(hostWarnings()).toEqual([]);
  });

  it('copies host typed arrays to the device and back (only those written), warning once per argument', () => {
    const n = 1000;
    const x = Float32Array.from({ length: n }, (_, i) => i);
    const y = new Float32Array(n).fill(1);
    const launcher = new KernelLauncher(kernel('axpy'), AXPY_PARAMS, 'axpy');
    launcher.launch({ grid: 4, block: 256 }, undefined, [2, x, y]);
    for (let i = 0; i < n; i++) expect(y[i]).toBe(1 + 2 * i);
    const first = hostWarnings();
    expect(first).toHaveLength(2);
    expect(first[0]).toMatch(
      /kernel 'axpy': argument 'x' is a host array; it is copied to the device before each launch\. Pass device memory/,
    );
    expect(first[1]).toMatch(
      /argument 'y' is a host array; it is copied to the device before each launch and back after it \(with a stream synchronize\)/,
    );
    const call = warnings.mock.calls.find((c) => String(c[0]).includes("argument 'x' is a host array"));
    expect(call?.[1]).toMatchObject({ type: 'CudaJsPerformanceWarning', code: 'CUDA_JS_HOST_ARRAY_COPY' });
    warnings.mockClear();
    launcher.launch({ grid: 4, block: 256 }, undefined, [2, x, y]);
    for (let i = 0; i < n; i++) expect(y[i]).toBe(1 + 4 * i);
    expect(x[10]).toBe(10);
    expect(hostWarnings()).toEqual([]);
  });

  it('shares one device copy when the same host array is passed twice', () => {
    const y = Float32Array.from({ length: 300 }, (_, i) => i);
    new KernelLauncher(kernel('axpy'), AXPY_PARAMS, 'axpy').launch({ grid: 2, block: 256 }, undefined, [2, y, y]);
    for (let i = 0; i < 300; i++) expect(y[i]).toBe(3 * i);
  });

  it("copies host views of any layout with their gaps: a strided 'A' view, and negative strides", () => {
    const data = Float64Array.from({ length: 24 }, (_, i) => i + 1);
    const whole = StridedMemoryView.fromBuffer(data, { dtype: 'float64', shape: [4, 6] });
    const everyOther = whole.slice(null, [0, undefined, 2]); // 4x3, strides [6, 2]
    const launcher = new KernelLauncher(kernel('scale2d'), SCALE2D_PARAMS, 'scale2d');
    expect(argumentTypes([10, everyOther], ['s', 'a'], 'gpu').map(typeName)).toEqual(['f64', "array(f64, 2, 'A')"]);
    launcher.launch({ grid: 1, block: 32 }, undefined, [10, everyOther]);
    for (let i = 0; i < 24; i++) expect(data[i]).toBe((i + 1) * (i % 2 === 0 ? 10 : 1));
    const reversed = whole.slice([undefined, undefined, -1], [1, 3]); // rows 3..0, columns 1..2: strides [-6, 1]
    expect(reversed.strides).toEqual([-6, 1]);
    const before = Float64Array.from(data);
    launcher.launch({ grid: 1, block: 32 }, undefined, [0.5, reversed]);
    for (let i = 0; i < 24; i++) expect(data[i]).toBe(i % 6 === 1 || i % 6 === 2 ? before[i]! * 0.5 : before[i]);
  });

  it("writes an 'F' host view in its own layout", () => {
    const out = new Int32Array(12);
    const f = StridedMemoryView.fromBuffer(out, { dtype: 'int32', shape: [3, 4], strides: [1, 3] });
    new KernelLauncher(kernel('fill_f'), FILL_F_PARAMS, 'fill_f').launch({ grid: 1, block: 32 }, undefined, [f]);
    for (let i0 = 0; i0 < 3; i0++) for (let i1 = 0; i1 < 4; i1++) expect(out[i0 + 3 * i1]).toBe(i0 * 10 + i1);
  });

  it('passes bool (one byte), i64, u8 and f64 scalars from booleans, bigints, Scalars and numbers', () => {
    const out = new Int32Array(4);
    const launcher = new KernelLauncher(kernel('scalars'), SCALARS_PARAMS, 'scalars');
    launcher.launch({ grid: 1, block: 1 }, undefined, [true, -123456789n, u8(200), 2.25, out]);
    expect([...out]).toEqual([1, -123456789, 200, 4]);
    launcher.launch({ grid: 1, block: 1 }, undefined, [false, 5, 7, 1, out]); // numbers written as i64 and u8 where they fit
    expect([...out]).toEqual([0, 5, 7, 2]);
    expect(() => launcher.launch({ grid: 1, block: 1 }, undefined, [true, 1n, 300, 1, out])).toThrow(
      KernelArgumentError,
    );
    expect(() => launcher.launch({ grid: 1, block: 1 }, undefined, [true, 1n, 300, 1, out])).toThrow(
      /argument 2 \('c'\): 300 cannot be passed as u8/,
    );
    expect(() => launcher.launch({ grid: 1, block: 1 }, undefined, ['yes', 1n, 3, 1, out])).toThrow(
      /argument 0 \('f'\): a string cannot be passed as bool/,
    );
  });

  it('passes CUDA array interface and DLPack device objects through without copies', () => {
    using stream = device.createStream();
    const n = 256;
    using bx = device.allocate(n * 4, { stream });
    using by = device.allocate(n * 4, { stream });
    bx.copyFrom(new Float32Array(n).fill(3), { stream });
    by.fill(0, { stream });
    const xView = StridedMemoryView.fromAny(bx, { stream: stream.handle }).view({ dtype: 'float32' });
    const yView = StridedMemoryView.fromAny(by, { stream: stream.handle }).view({ dtype: 'float32' });
    const cai = { [CUDA_ARRAY_INTERFACE]: () => xView[CUDA_ARRAY_INTERFACE]() };
    const dlpack = { [DLPACK]: (r?: DLPackRequest) => yView[DLPACK](r), [DLPACK_DEVICE]: () => yView[DLPACK_DEVICE]() };
    new KernelLauncher(kernel('axpy'), AXPY_PARAMS, 'axpy').launch({ grid: 1, block: 256 }, stream, [2, cai, dlpack]);
    expect([...floats(by, stream)]).toEqual(new Array<number>(n).fill(6));
    expect(hostWarnings()).toEqual([]);
  });

  it('copies host DLPack exporters and ndarrays in and back, and gives a DLPack export back once', () => {
    const n = 64;
    const ydata = new Float32Array(n).fill(1);
    let deleted = 0;
    const exporter = {
      [DLPACK_DEVICE]: () => [1, 0] as const,
      [DLPACK]: (): DLPackTensor => ({
        version: { major: 1, minor: 3 },
        device: { type: 1, id: 0 },
        data: ydata.buffer,
        dtype: { code: 2, bits: 32, lanes: 1 },
        shape: [n],
        strides: [1],
        deleter: () => void deleted++,
      }),
    };
    const x = { data: new Float32Array(n).fill(2), shape: [n], stride: [1], offset: 0, dtype: 'float32' }; // a scijs ndarray
    new KernelLauncher(kernel('axpy'), AXPY_PARAMS, 'axpy').launch({ grid: 1, block: 64 }, undefined, [3, x, exporter]);
    expect([...ydata]).toEqual(new Array<number>(n).fill(7));
    expect(deleted).toBe(1);
  });

  it('refuses an array of another device and a wrong argument count, as KernelArgumentErrors', () => {
    using stream = device.createStream();
    using b = device.allocate(64, { stream });
    const elsewhere = StridedMemoryView.fromPointer(b.ptr, {
      dtype: 'float32',
      shape: [16],
      device: { type: 2, id: device.ordinal + 1 },
    });
    const mine = StridedMemoryView.fromAny(b, { stream: stream.handle }).view({ dtype: 'float32' });
    const launcher = new KernelLauncher(kernel('axpy'), AXPY_PARAMS, 'axpy');
    expect(() => launcher.launch({ grid: 1, block: 16 }, stream, [1, elsewhere, mine])).toThrow(KernelArgumentError);
    expect(() => launcher.launch({ grid: 1, block: 16 }, stream, [1, elsewhere, mine])).toThrow(
      `the array lives on CUDA device ${device.ordinal + 1}, but the launch is on device ${device.ordinal}`,
    );
    expect(() => launcher.launch({ grid: 1, block: 16 }, stream, [1, mine])).toThrow(
      'the kernel takes 3 argument(s) (a, x, y), 2 were given',
    );
    const host = new Float32Array(16);
    expect(() => launcher.launch({ grid: 1, block: 16 }, stream, [1, host, elsewhere])).toThrow(/lives on CUDA device/); // staged copies are given back
  });

  it('finds the block size of highest occupancy, and a forall config that covers n threads', () => {
    using stream = device.createStream();
    const launcher = new KernelLauncher(kernel('axpy'), AXPY_PARAMS, 'axpy');
    const block = launcher.occupancyBlockSize();
    expect(block).toBeGreaterThanOrEqual(32);
    expect(block).toBeLessThanOrEqual(1024);
    expect(block % 32).toBe(0);
    expect(launcher.occupancyBlockSize()).toBe(block);
    const n = 100_003;
    const config = launcher.forall(n);
    expect(config.block[0]).toBe(block);
    expect(config.grid[0] * block).toBeGreaterThanOrEqual(n);
    expect((config.grid[0] - 1) * block).toBeLessThan(n);
    expect(launcher.forall(n, { block: 128 }).grid[0]).toBe(Math.ceil(n / 128));
    using bx = device.allocate(n * 4, { stream });
    using by = device.allocate(n * 4, { stream });
    bx.fill(0, { stream });
    by.copyFrom(new Float32Array(n).fill(5), { stream });
    const x = StridedMemoryView.fromAny(bx, { stream: stream.handle }).view({ dtype: 'float32' });
    const y = StridedMemoryView.fromAny(by, { stream: stream.handle }).view({ dtype: 'float32' });
    launcher.launch(config, stream, [1, x, y]);
    expect(floats(by, stream).every((v) => v === 5)).toBe(true);
  });

  it('takes JIT launch options with a stream key as the config', () => {
    using stream = device.createStream();
    const y = new Float32Array(32).fill(1);
    new KernelLauncher(kernel('axpy'), AXPY_PARAMS, 'axpy').launch({ grid: 1, block: 32, stream } as never, stream, [
      1,
      new Float32Array(32).fill(1),
      y,
    ]);
    expect(y.every((v) => v === 2)).toBe(true);
  });

  it('refuses to launch once the ObjectCode is closed', () => {
    const own = new Program(SOURCE, 'c++', { arch: device.arch }).compile('cubin');
    const launcher = new KernelLauncher(own.getKernel('axpy'), AXPY_PARAMS, 'axpy');
    const y = new Float32Array(8).fill(1);
    launcher.launch({ grid: 1, block: 8 }, undefined, [1, new Float32Array(8), y]);
    own.close();
    expect(() => launcher.launch({ grid: 1, block: 8 }, undefined, [1, new Float32Array(8), y])).toThrow(
      /kernel 'axpy' \(its ObjectCode .*\) is closed/,
    );
  });
});
