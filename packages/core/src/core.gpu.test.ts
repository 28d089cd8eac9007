import { spawnSync } from 'node:child_process';
import { driver } from '@cuda-js/bindings';
import { describeGpu } from '@cuda-js/test-support';
import { ClosedResourceError, Stream, STREAM_PROTOCOL } from '@cuda-js/streams';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { beforeAll, expect, it } from 'vitest';
import {
  Device,
  LaunchArgumentError,
  LaunchConfig,
  LaunchConfigError,
  ManagedMemoryResource,
  PinnedMemoryResource,
  LegacyPinnedMemoryResource,
  deviceCount,
  driverVersion,
  f32,
  i32,
  launch,
  u64,
} from './index.js';
import { gpuTestKernels } from './test-kernels.test-support.js';

const SOURCE = String.raw`
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void spin(unsigned long long cycles) {
  long long start = clock64();
  while ((unsigned long long)(clock64() - start) < cycles) {}
}
extern "C" __global__ void fill_index(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}
extern "C" __global__ void cluster_rank(int* out) {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  if (threadIdx.x == 0) out[blockIdx.x] = (int)r;
}
extern "C" __global__ void bad_store(int* p) { p[threadIdx.x] = 1; }
`;

describeGpu('core on a GPU', () => {
  const gpu = gpuTestKernels(SOURCE, ['axpy', 'spin', 'fill_index', 'cluster_rank']);
  let device: Device;
  beforeAll(() => {
    device = gpu.device;
  });

  it('reports the system and the device', () => {
    expect(deviceCount()).toBeGreaterThanOrEqual(1);
    expect(driverVersion().major).toBeGreaterThanOrEqual(12);
    expect(device.name).toMatch(/NVIDIA/);
    expect(device.uuid).toMatch(/^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(device.pciBusId).toMatch(/^[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9]$/);
    const cc = device.computeCapability;
    expect(device.arch).toBe(`sm_${cc.major}${cc.minor}`);
    expect(device.attributes.maxThreadsPerBlock).toBe(1024);
    expect(device.attributes.multiprocessorCount).toBeGreaterThan(0);
    expect(typeof device.attributes.managedMemory).toBe('boolean');
    expect(device.totalMemory).toBeGreaterThan(1n << 30n);
    expect(Device.get(0)).toBe(device);
    expect(Device.current()).toBe(device);
  });

  it('allocates, copies and fills with checked data', () => {
    using stream = device.createStream();
    const n = 1000;
    const host = Float32Array.from({ length: n }, (_, i) => i * 0.5);
    using a = device.allocate(n * 4, { stream });
    using b = device.allocate(n * 4, { stream });
    a.copyFrom(host, { stream });
    a.copyTo(b, { stream });
    const back = new Float32Array(n);
    b.copyTo(back, { stream });
    expect(back).toEqual(host);
    b.fill(0x3f800000, { stream, width: 4 });
    b.copyTo(back, { stream });
    expect(back.every((v) => v === 1)).toBe(true);
    b.fill(0, { stream });
    b.copyTo(back, { stream });
    expect(back.every((v) => v === 0)).toBe(true);
  });

  it('launches with Buffers, views, protocol objects and typed scalars', () => {
    using stream = device.createStream({ nonBlocking: true });
    const n = 4096;
    const x = Float32Array.from({ length: n }, (_, i) => i);
    const y = Float32Array.from({ length: n }, () => 1);
    using dx = device.allocate(n * 4, { stream });
    using dy = device.allocate(n * 4, { stream });
    dx.copyFrom(x, { stream });
    dy.copyFrom(y, { stream });
    const config = new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 });
    launch(stream, config, gpu.kernel('axpy'), f32(2), dx, dy, n);
    const viewOfY = StridedMemoryView.fromAny(dy, { stream: stream.handle });
    launch(stream, { grid: n / 128, block: 128 }, gpu.kernel('axpy'), f32(1), dx, viewOfY, i32(n));
    // a foreign array: any object implementing the CUDA array interface
    const foreign = {
      [Symbol.for('cuda.array_interface')]: () => ({
        shape: [n],
        typestr: '<f4',
        data: [dy.ptr, false],
        strides: null,
        version: 3,
        stream: null,
      }),
    };
    launch(stream, config, gpu.kernel('axpy'), f32(1), dx, foreign, n);
    const out = new Float32Array(n);
    dy.copyTo(out, { stream });
    for (let i = 0; i < n; i++) expect(out[i]).toBe(1 + 4 * i);
  });

  it('accepts a foreign object implementing the stream protocol, and awaits without blocking the event loop', async () => {
    const owner = device.createStream();
    const foreign = { [STREAM_PROTOCOL]: () => ({ version: 0 as const, handle: owner.handle }) };
    const clockRate = device.attributes.clockRate; // kHz
    launch(foreign, { grid: 1, block: 1 }, gpu.kernel('spin'), u64(BigInt(clockRate) * 300n)); // ~300 ms
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    await Stream.from(foreign).synchronized();
    clearInterval(timer);
    expect(ticks).toBeGreaterThanOrEqual(10);
    expect(owner.isDone).toBe(true);
    owner.close();
  });

  it('orders streams with events and measures time between timing events', async () => {
    using s1 = device.createStream();
    using s2 = device.createStream({ priority: -1 });
    expect(s2.priority).toBeLessThanOrEqual(0);
    using start = device.createEvent({ timing: true });
    using end = device.createEvent({ timing: true });
    start.record(s1);
    launch(s1, { grid: 1, block: 1 }, gpu.kernel('spin'), u64(BigInt(device.attributes.clockRate) * 20n));
    end.record(s1);
    s2.wait(end);
    s2.wait(s1);
    await end.completed();
    expect(end.isDone).toBe(true);
    expect(end.elapsedTimeSince(start)).toBeGreaterThan(5);
    s2.synchronize();
  });

  it('launches thread-block clusters on compute capability 9.0', () => {
    using stream = device.createStream();
    using out = device.allocate(8 * 4, { stream });
    launch(stream, { grid: 8, block: 32, cluster: 2 }, gpu.kernel('cluster_rank'), out);
    const ranks = new Int32Array(8);
    out.copyTo(ranks, { stream });
    expect([...ranks]).toEqual([0, 1, 0, 1, 0, 1, 0, 1]);
  });

  it('validates configs against the device and the kernel', () => {
    using stream = device.createStream();
    using out = device.allocate(4, { stream });
    const fill = gpu.kernel('fill_index');
    expect(() => launch(stream, { grid: 1, block: 2048 }, fill, out, 1)).toThrow(LaunchConfigError);
    expect(() => launch(stream, { grid: 1, block: [1, 1, 128] }, fill, out, 1)).toThrow(/block 1x1x128 exceeds/);
    expect(() => launch(stream, { grid: 1, block: 1, sharedMemory: 1 << 30 }, fill, out, 1)).toThrow(
      /shared memory exceed/,
    );
    expect(() => launch(stream, { grid: 1_000_000, block: 1024, cooperative: true }, fill, out, 1)).toThrow(
      /co-resident/,
    );
    launch(stream, { grid: 1, block: 1, cooperative: true }, fill, out, 1);
    stream.synchronize();
  });

  it('names bad arguments', () => {
    using stream = device.createStream();
    const buf = device.allocate(16, { stream });
    const fill = gpu.kernel('fill_index');
    expect(() => launch(stream, { grid: 1, block: 1 }, fill, buf)).toThrow(/takes 2 argument\(s\), 1 were given/);
    expect(() => launch(stream, { grid: 1, block: 1 }, fill, 12345, 1)).toThrow(LaunchArgumentError);
    expect(() => launch(stream, { grid: 1, block: 1 }, fill, buf, 1.5)).toThrow(/say f32\(1\.5\)/);
    expect(() => launch(stream, { grid: 1, block: 1 }, fill, new Float32Array(4), 1)).toThrow(
      /host memory the GPU cannot address/,
    );
    buf.close();
    buf.close();
    expect(() => launch(stream, { grid: 1, block: 1 }, fill, buf, 1)).toThrow(/closed/);
    expect(() => buf.ptr).toThrow(ClosedResourceError);
    const closed = device.createStream();
    closed.close();
    expect(() => launch(closed, { grid: 1, block: 1 }, fill, 0n, 1)).toThrow(ClosedResourceError);
  });

  it('refuses a stream of another context, by name', () => {
    const other = driver.cuCtxCreate(null, 0, device.handle);
    let foreignStream: bigint;
    try {
      foreignStream = driver.cuStreamCreate(0) as bigint;
      Stream.from(foreignStream); // a stream cuda-js did not make is taken as a bigint once wrapped
    } finally {
      driver.cuCtxPopCurrent();
    }
    device.setCurrent();
    try {
      using out = device.allocate(4);
      expect(() => launch(foreignStream, { grid: 1, block: 1 }, gpu.kernel('fill_index'), out, 1)).toThrow(
        /belongs to context .* not to the current context/,
      );
    } finally {
      driver.cuCtxDestroy(other);
    }
  });

  it('allocates pinned, legacy pinned and managed memory', () => {
    for (const resource of [
      new PinnedMemoryResource(),
      new LegacyPinnedMemoryResource(),
      new ManagedMemoryResource(device),
    ]) {
      using b = resource.allocate(256);
      expect(b.isHostAccessible).toBe(true);
      const data = Uint8Array.from({ length: 256 }, (_, i) => i);
      b.copyFrom(data);
      const back = new Uint8Array(256);
      b.copyTo(back);
      expect(back).toEqual(data);
    }
  });

  it('returns device memory to the baseline after 10^6 allocate/close cycles', () => {
    using stream = device.createStream();
    const CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7;
    const pool = device.memoryResource.pool;
    stream.synchronize();
    const used = (): bigint => {
      const out = new BigUint64Array(1);
      driver.cuMemPoolGetAttribute(pool as never, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, out);
      return out[0]!;
    };
    const before = used();
    const free = (): bigint => driver.cuMemGetInfo().free as bigint;
    const freeBefore = free();
    for (let i = 0; i < 1_000_000; i++) device.allocate(1024, { stream }).close();
    stream.synchronize();
    expect(used()).toBe(before);
    // the pool may keep some memory reserved, but not a million allocations' worth
    expect(freeBefore - free()).toBeLessThan(64n << 20n);
  }, 300_000);

  it('reports an illegal-address kernel as a CudaError, and the process survives', () => {
    // In a child process: the sticky error would poison this process's context.
    // Built outputs (dist) are used there, as Node 20 does not run TypeScript.
    const script = `
      import { Device, launch } from '@cuda-js/core';
      import { driver, nvrtc } from '@cuda-js/bindings';
      const d = Device.get(0).setCurrent();
      const p = nvrtc.nvrtcCreateProgram('extern "C" __global__ void bad_store(int* p) { p[threadIdx.x] = 1; }', 'bad.cu', [], []);
      nvrtc.nvrtcCompileProgram(p, ['--gpu-architecture=' + d.arch]);
      const lib = driver.cuLibraryLoadData(nvrtc.nvrtcGetCUBIN(p));
      const kernel = driver.cuLibraryGetKernel(lib, 'bad_store');
      launch(0n, { grid: 1, block: 32 }, kernel, 16n);
      try { d.synchronize(); console.log('no error'); } catch (e) { console.log('caught', e.name, e.codeName); }
      try { d.synchronize(); } catch (e) { console.log('still', e.codeName); }
      console.log('alive');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: new URL('..', import.meta.url).pathname,
      timeout: 60_000,
    });
    expect(child.stderr).toBe('');
    expect(child.stdout).toContain('caught CudaError CUDA_ERROR_ILLEGAL_ADDRESS');
    expect(child.stdout).toContain('still CUDA_ERROR_ILLEGAL_ADDRESS');
    expect(child.stdout).toContain('alive');
  });
});
