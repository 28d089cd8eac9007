// Host memory on a GPU: zero-copy views of pinned and managed Buffers (and of
// StridedMemoryViews of them) written by kernels, the driver's check behind
// every view, views that keep their memory alive, managed-memory advice,
// prefetch and discard, and JS host functions in stream order.
import { spawnSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CudaError, driver, hostArrayBuffer, HostViewError } from '@cuda-js/bindings';
import { DLDeviceType, StridedMemoryView, UnsupportedDeviceError } from '@cuda-js/memory-view';
import { HostFunctionDeadlockError, HostFunctionError, launchHostFunction } from '@cuda-js/streams';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import {
  type Device,
  discardBatch,
  discardPrefetchBatch,
  driverVersion,
  Host,
  launch,
  LegacyPinnedMemoryResource,
  ManagedBuffer,
  PinnedMemoryResource,
  prefetchBatch,
  u64,
} from '../index.js';
import { gpuTestKernels } from '../test-kernels.test-support.js';

const SOURCE = String.raw`
extern "C" __global__ void fill_index(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}
extern "C" __global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}
extern "C" __global__ void set_value(int* p, int v) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *p = v;
}
extern "C" __global__ void spin(unsigned long long cycles) {
  long long start = clock64();
  while ((unsigned long long)(clock64() - start) < cycles) {}
}
`;

// gc() without --expose-gc on the command line (memory-view's tests do the same).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const tick = (ms = 5): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Collects garbage and lets finalizers and the release thread run until `done()`, which runs in a job of its own. */
async function collectUntil(done: () => boolean, rounds = 200): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    gc();
    await tick();
    if (done()) return;
    await tick(10);
  }
}

/** Whether the driver still knows the allocation at `ptr` (freed memory is CUDA_ERROR_INVALID_VALUE). */
function isAllocated(ptr: bigint): boolean {
  try {
    driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr as never);
    return true;
  } catch (error) {
    if (error instanceof CudaError && error.codeName === 'CUDA_ERROR_INVALID_VALUE') return false;
    throw error;
  }
}

const ONE = { grid: 1, block: 1 } as const;
const threads = (n: number) => ({ grid: Math.ceil(n / 256), block: 256 });

describeGpu('host memory on a GPU', () => {
  const gpu = gpuTestKernels(SOURCE, ['fill_index', 'add_one', 'set_value', 'spin']);
  let device: Device;
  let cyclesPerMs: bigint;
  const kernel = (name: 'fill_index' | 'add_one' | 'set_value' | 'spin') => gpu.kernel(name);
  beforeAll(() => {
    device = gpu.device;
    cyclesPerMs = BigInt(device.attributes.clockRate); // kHz
  });

  it('a kernel writes pinned memory, and JS reads and writes the same bytes through zero-copy views', () => {
    using stream = device.createStream();
    const n = 4096;
    for (const resource of [new PinnedMemoryResource(), new LegacyPinnedMemoryResource()]) {
      using pinned = resource.allocate(n * 4);
      launch(stream, threads(n), kernel('fill_index'), pinned, n);
      stream.synchronize();
      const ints = pinned.typedArray('int32') as Int32Array;
      expect(ints).toBeInstanceOf(Int32Array);
      expect(ints.length).toBe(n);
      expect(ints.buffer).toBe(pinned.asArrayBuffer());
      expect(ints.every((v, i) => v === i)).toBe(true);
      ints.fill(41);
      launch(stream, threads(n), kernel('add_one'), pinned, n);
      stream.synchronize();
      expect(ints.every((v) => v === 42)).toBe(true);
      const copy = new Int32Array(n);
      pinned.copyTo(copy, { stream });
      expect(copy[n - 1]).toBe(42);
      expect((pinned.typedArray('float64') as Float64Array).length).toBe(n / 2);
    }
  });

  it('StridedMemoryView.fromDLPack(pinned or managed).typedArray() views the memory; a bare address goes through the driver check', () => {
    using stream = device.createStream();
    using pinned = new PinnedMemoryResource().allocate(1024);
    using managed = device.allocateManaged(1024);
    for (const b of [pinned, managed]) {
      launch(stream, threads(256), kernel('fill_index'), b, 256);
      stream.synchronize();
      const view = StridedMemoryView.fromDLPack(b, { stream: stream.handle }).view({ dtype: 'int32' });
      expect(view.device.type).toBe(b === pinned ? DLDeviceType.CUDAHost : DLDeviceType.CUDAManaged);
      expect(view.isHostReadable).toBe(true);
      const ints = view.typedArray() as Int32Array;
      expect(ints.buffer).toBe(b.asArrayBuffer()); // the Buffer's own view, whose lifetime the Buffer manages
      expect(Array.from(ints.subarray(0, 4))).toEqual([0, 1, 2, 3]);
      expect(Array.from(view.slice([250, 256]).toTypedArray() as Int32Array)).toEqual([250, 251, 252, 253, 254, 255]);
    }
    // a view of the address alone (no Buffer): the driver vouches for the 16 bytes it asks for
    const bare = StridedMemoryView.fromPointer(pinned.ptr + 16n, {
      dtype: 'int32',
      shape: [4],
      device: { type: DLDeviceType.CUDAHost, id: 0 },
    });
    expect(Array.from(bare.typedArray() as Int32Array)).toEqual([4, 5, 6, 7]);
    // device memory stays device memory
    using onDevice = device.allocate(1024, { stream });
    stream.synchronize();
    expect(() => onDevice.asArrayBuffer()).toThrow(HostViewError);
    expect(() => StridedMemoryView.fromDLPack(onDevice, { stream: stream.handle }).typedArray()).toThrow(
      UnsupportedDeviceError,
    );
    // an address that claims to be pinned memory but is device memory: the driver says no
    const liar = StridedMemoryView.fromPointer(onDevice.ptr, {
      dtype: 'uint8',
      shape: [16],
      device: { type: DLDeviceType.CUDAHost, id: 0 },
    });
    expect(() => liar.typedArray()).toThrow(HostViewError);
    expect(() => liar.typedArray()).toThrow(/is device memory/);
  });

  it('the native check refuses ranges that leave their allocation, device memory, and addresses the driver does not know', () => {
    const size = 2 << 20;
    using pinned = new PinnedMemoryResource().allocate(size);
    const owner = {};
    expect(hostArrayBuffer(pinned.ptr, size, owner).byteLength).toBe(size);
    expect(hostArrayBuffer(pinned.ptr + 4096n, 4096, owner).byteLength).toBe(4096);
    expect(() => hostArrayBuffer(pinned.ptr, size + 1, owner)).toThrow(HostViewError);
    expect(() => hostArrayBuffer(pinned.ptr + BigInt(size) - 8n, 16, owner)).toThrow(/not inside one allocation/);
    using onDevice = device.allocate(4096);
    device.synchronize();
    expect(() => hostArrayBuffer(onDevice.ptr, 16, owner)).toThrow(/is device memory/);
    expect(() => hostArrayBuffer(0x1000n, 16, owner)).toThrow(
      /is not memory that the CUDA driver allocated, mapped or registered/,
    );
    const gone = new PinnedMemoryResource().allocate(4096);
    const freed = gone.ptr;
    gone.close();
    expect(() => hostArrayBuffer(freed, 16, owner)).toThrow(HostViewError);
    using managed = device.allocateManaged(4096);
    expect(hostArrayBuffer(managed.ptr, 4096, owner).byteLength).toBe(4096);
  });

  it('a view keeps its memory alive: close() while it lives closes the Buffer, and the memory goes back once the view is collected', async () => {
    using stream = device.createStream();
    const b = new PinnedMemoryResource().allocate(4096);
    const ptr = b.ptr;
    let ints: Int32Array | undefined = b.typedArray('int32') as Int32Array;
    launch(stream, threads(1024), kernel('fill_index'), b, 1024);
    stream.synchronize();
    b.close();
    expect(b.closed).toBe(true);
    expect(() => b.ptr).toThrow(/closed/);
    expect(isAllocated(ptr)).toBe(true);
    expect(ints[1023]).toBe(1023); // still the pinned memory, still readable and writable
    ints[0] = 5;
    ints = undefined;
    await collectUntil(() => !isAllocated(ptr));
    expect(isAllocated(ptr)).toBe(false);
  });

  it('a dropped Buffer whose view lives is not freed until the view is collected too', async () => {
    let ptr = 0n;
    let bytes: Uint8Array | undefined = (() => {
      const b = new PinnedMemoryResource().allocate(4096);
      ptr = b.ptr;
      return b.typedArray() as Uint8Array;
    })();
    await collectUntil(() => false, 10);
    expect(isAllocated(ptr)).toBe(true);
    bytes[0] = 1;
    bytes = undefined;
    await collectUntil(() => !isAllocated(ptr));
    expect(isAllocated(ptr)).toBe(false);
  });

  it('managed memory: advice read back from the driver, and a prefetch to the device and back', () => {
    using stream = device.createStream();
    const n = 1 << 16;
    using m = device.allocateManaged(n * 4);
    expect(m).toBeInstanceOf(ManagedBuffer);
    expect(m.readMostly).toBe(false);
    m.readMostly = true;
    expect(m.readMostly).toBe(true);
    m.readMostly = false;
    expect(m.readMostly).toBe(false);
    m.preferredLocation = device;
    expect(m.preferredLocation).toBe(device);
    m.preferredLocation = new Host();
    expect(Host.isHost(m.preferredLocation)).toBe(true);
    m.preferredLocation = undefined;
    expect(m.preferredLocation).toBeUndefined();
    m.accessedBy.add(device);
    expect(m.accessedBy.has(device)).toBe(true);
    expect([...m.accessedBy]).toContain(device);
    m.accessedBy.delete(device);
    expect(m.accessedBy.size).toBe(0);

    const ints = m.typedArray('int32') as Int32Array;
    ints.fill(1); // the device is idle: the host may touch managed memory on any platform
    m.prefetch(device, { stream });
    launch(stream, threads(n), kernel('add_one'), m, n);
    m.prefetch(new Host(), { stream });
    stream.synchronize();
    expect(ints.every((v) => v === 2)).toBe(true);
    expect(Host.isHost(m.lastPrefetchLocation)).toBe(true);
  });

  it('a batched prefetch of several managed buffers, and discard where the driver has it (CUDA 13)', () => {
    using stream = device.createStream();
    const n = (2 << 20) / 4; // 2 MiB each: whole pages for discard
    const buffers = [0, 1, 2].map(() => device.allocateManaged(n * 4));
    try {
      for (const b of buffers) (b.typedArray('int32') as Int32Array).fill(10);
      prefetchBatch(stream, buffers, device);
      for (const b of buffers) launch(stream, threads(n), kernel('add_one'), b, n);
      prefetchBatch(stream, buffers, [new Host(), new Host(), device]);
      stream.synchronize();
      for (const b of buffers) expect((b.typedArray('int32') as Int32Array).every((v) => v === 11)).toBe(true);
      if (driverVersion().major >= 13) {
        buffers[0]!.discard({ stream });
        discardBatch(stream, buffers.slice(1));
        buffers[2]!.discardPrefetch(device, { stream });
        discardPrefetchBatch(stream, buffers, device);
        stream.synchronize();
        // discarded memory holds undefined data, and stays usable
        launch(stream, threads(n), kernel('fill_index'), buffers[0]!, n);
        stream.synchronize();
        expect((buffers[0]!.typedArray('int32') as Int32Array)[n - 1]).toBe(n - 1);
      } else {
        expect(() => buffers[0]!.discard({ stream })).toThrow(/CUDA_ERROR_NOT_FOUND/);
      }
    } finally {
      for (const b of buffers) b.close();
    }
  });

  it('host functions run in stream order with kernels: after the work before them, and the work after them waits for them', async () => {
    using stream = device.createStream();
    using cell = new PinnedMemoryResource().allocate(4);
    const x = cell.typedArray('int32') as Int32Array;
    x[0] = 0;
    const seen: number[] = [];
    launch(stream, ONE, kernel('spin'), u64(cyclesPerMs * 50n)); // the first function must wait for this
    launch(stream, ONE, kernel('set_value'), cell, 1);
    const first = stream.launchHostFunction(() => {
      seen.push(x[0]!);
      x[0] = 10; // the next kernel must see this
      return 'first';
    });
    launch(stream, ONE, kernel('add_one'), cell, 1);
    const second = launchHostFunction(stream, () => {
      seen.push(x[0]!);
      return 'second';
    });
    launch(stream, ONE, kernel('add_one'), cell, 1);
    const order: number[] = [];
    const several = [1, 2, 3].map((i) => stream.launchHostFunction(() => order.push(i)));
    await stream.synchronized();
    await expect(first).resolves.toBe('first');
    await expect(second).resolves.toBe('second');
    await Promise.all(several);
    expect(seen).toEqual([1, 11]);
    expect(x[0]).toBe(12);
    expect(order).toEqual([1, 2, 3]);
  });

  it("an exception in a host function is reported as a HostFunctionError, and the stream's later work still runs", async () => {
    using stream = device.createStream();
    using cell = new PinnedMemoryResource().allocate(4);
    const x = cell.typedArray('int32') as Int32Array;
    x[0] = 0;
    const failed = stream.launchHostFunction(() => {
      throw new TypeError('bad host work');
    });
    launch(stream, ONE, kernel('add_one'), cell, 1);
    const after = stream.launchHostFunction(() => x[0]);
    const error = (await failed.catch((e: unknown) => e)) as HostFunctionError;
    expect(error).toBeInstanceOf(HostFunctionError);
    expect(error.cause).toBeInstanceOf(TypeError);
    expect((error.cause as Error).message).toBe('bad host work');
    expect(error.stream).toBe(stream.handle);
    await expect(after).resolves.toBe(1);
    await stream.synchronized();
    expect(x[0]).toBe(1);
  });

  it('a blocking wait for a stream whose host function is pending is refused, not a hang', async () => {
    using stream = device.createStream();
    launch(stream, ONE, kernel('spin'), u64(cyclesPerMs * 200n));
    const pending = stream.launchHostFunction(() => 'ran');
    const event = stream.record();
    using staging = device.allocate(16, { stream });
    expect(() => stream.synchronize()).toThrow(HostFunctionDeadlockError);
    expect(() => device.synchronize()).toThrow(HostFunctionDeadlockError);
    expect(() => event.synchronize()).toThrow(HostFunctionDeadlockError);
    expect(() => staging.copyTo(new Uint8Array(16), { stream })).toThrow(HostFunctionDeadlockError);
    await expect(pending).resolves.toBe('ran');
    stream.synchronize();
    event.synchronize();
    device.synchronize();
    event.close();
  });

  it('bindings: a throwing launchBlockingHostFunc callback is an uncaughtException; a Worker terminated while its function waits, and exit, leave no stream waiting', () => {
    // In child processes, with the built packages (Node 20 does not run TypeScript), as core.gpu.test.ts does.
    const script = `
      import { Worker } from 'node:worker_threads';
      import { driver, launchBlockingHostFunc } from '@cuda-js/bindings';
      import { Device, launch, u64 } from '@cuda-js/core';
      const device = Device.get(0).setCurrent();
      const stream = device.createStream();
      process.on('uncaughtException', (e) => console.log('uncaught', e.message));
      let later = false;
      launchBlockingHostFunc(stream.handle, () => { throw new Error('boom'); });
      launchBlockingHostFunc(stream.handle, () => { later = true; });
      await stream.synchronized();
      console.log('after throw, the stream went on:', later);
      // a Worker's function behind a long kernel; the Worker is terminated before it can run
      const { nvrtc } = await import('@cuda-js/bindings');
      const p = nvrtc.nvrtcCreateProgram('extern "C" __global__ void spin(unsigned long long c) { long long s = clock64(); while ((unsigned long long)(clock64() - s) < c) {} }', 'spin.cu', [], []);
      nvrtc.nvrtcCompileProgram(p, ['--gpu-architecture=' + device.arch]);
      const lib = driver.cuLibraryLoadData(nvrtc.nvrtcGetCUBIN(p));
      const spin = { handle: driver.cuLibraryGetKernel(lib, 'spin'), name: 'spin' };
      launch(stream, { grid: 1, block: 1 }, spin, u64(BigInt(device.attributes.clockRate) * 500n));
      const worker = new Worker(\`
        import('node:worker_threads').then(async ({ workerData, parentPort }) => {
          const { driver, launchBlockingHostFunc } = await import(workerData.url);
          driver.cuCtxSetCurrent(workerData.context);
          launchBlockingHostFunc(workerData.stream, () => console.log('worker function ran'));
          parentPort.postMessage('launched');
        });
      \`, { eval: true, workerData: { url: import.meta.resolve('@cuda-js/bindings'), stream: stream.handle, context: device.context } });
      await new Promise((resolve) => worker.once('message', resolve));
      await worker.terminate();
      await stream.synchronized();
      console.log('after terminate, the stream went on');
      // a function that cannot run before exit: exit does not wait for it
      launch(stream, { grid: 1, block: 1 }, spin, u64(BigInt(device.attributes.clockRate) * 100n));
      launchBlockingHostFunc(stream.handle, () => console.log('never'));
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      process.exit(0);
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: new URL('../..', import.meta.url).pathname,
      timeout: 60_000,
    });
    expect(child.signal, child.stderr).toBeNull();
    expect(child.status, child.stderr).toBe(0);
    expect(child.stdout).toContain('uncaught boom');
    expect(child.stdout).toContain('after throw, the stream went on: true');
    expect(child.stdout).toContain('after terminate, the stream went on');
    expect(child.stdout).not.toContain('never');
  });
});
