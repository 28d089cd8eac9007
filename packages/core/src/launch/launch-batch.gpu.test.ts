// On a GPU: launch batches. The launches of a batch run in the order recorded,
// each with the arguments it was recorded with, and stay ordered against what
// else reaches the stream while the batch is open: copies, events, host
// functions, launch(), and other streams (a foreign one among them) that
// wait on it. A launch that fails at submission is named by its index.
import { driver } from '@cuda-js/bindings';
import { Stream, STREAM_PROTOCOL } from '@cuda-js/streams';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { type Device, LaunchBatchError, LaunchConfig, launch, launchBatch, PinnedMemoryResource } from '../index.js';
import { gpuTestKernels, readInts as ints } from '../test-kernels.test-support.js';

const SOURCE = String.raw`
// appends step to a log: p[0] is the count, p[1 + k] the k-th step
extern "C" __global__ void log_step(int* p, int step) {
  if (blockIdx.x == 0 && threadIdx.x == 0) { p[1 + p[0]] = step; p[0] += 1; }
}
extern "C" __global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}
// a launch that takes a while: many blocks each adding one, so that a copy racing it would see a partial sum
extern "C" __global__ void add_slowly(int* p, int rounds) {
  for (int r = 0; r < rounds; r++) atomicAdd(p, 1);
}
`;
const NAMES = ['log_step', 'add_one', 'add_slowly'] as const;

describeGpu('launch batches on a GPU', () => {
  const gpu = gpuTestKernels(SOURCE, NAMES);
  const kernel = (name: (typeof NAMES)[number]) => gpu.kernel(name);
  const one = new LaunchConfig({ grid: 1, block: 1 });
  let device: Device;
  beforeAll(() => {
    device = gpu.device;
  });

  it('runs each launch in the order recorded, with the arguments it was recorded with', () => {
    using stream = device.createStream();
    using log = device.allocate(4 * 4097, { stream });
    using counts = device.allocate(256 * 4, { stream });
    log.fill(0, { stream });
    counts.fill(0, { stream });
    const n = 3000;
    launchBatch(stream, (batch) => {
      for (let i = 0; i < n; i++) {
        batch.launch(one, kernel('log_step'), log, i);
        if (i % 3 === 0) batch.launch({ grid: 2, block: 128 }, kernel('add_one'), counts, 256);
      }
      expect(batch.size).toBe(n + n / 3);
    });
    const logged = ints(log, 1 + n, stream);
    expect(logged[0]).toBe(n);
    expect(logged.slice(1)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(ints(counts, 256, stream)).toEqual(new Array<number>(256).fill(n / 3));
  });

  it('submits what it holds before a copy, launch() and a host function on its stream', async () => {
    using stream = device.createStream();
    using log = device.allocate(4 * 64, { stream });
    log.fill(0, { stream });
    const pinned = new PinnedMemoryResource();
    using mapped = pinned.allocate(4 * 64);
    const host = new Int32Array(mapped.asArrayBuffer());
    host.fill(0);
    const seen: number[][] = [];
    let hostFunction: Promise<void> | undefined;
    let copied: number[] = [];
    launchBatch(stream, (batch) => {
      batch.launch(one, kernel('log_step'), log, 1);
      batch.launch(one, kernel('log_step'), mapped, 2);
      // a copy on the stream: the two launches before it are submitted first
      const out = new Int32Array(64);
      log.copyTo(out, { stream });
      stream.synchronize();
      copied = [...out.subarray(0, 2)];
      batch.launch(one, kernel('log_step'), mapped, 3);
      // a host function: runs after the launch before it
      hostFunction = stream.launchHostFunction(() => {
        seen.push([...host.subarray(0, 3)]);
      });
      batch.launch(one, kernel('log_step'), mapped, 4);
      launch(stream, one, kernel('log_step'), mapped, 5); // launch(): after the batch's launch before it
      batch.launch(one, kernel('log_step'), mapped, 6);
      batch.launch(one, kernel('log_step'), mapped, 7);
    });
    await hostFunction;
    stream.synchronize();
    expect(copied).toEqual([1, 1]);
    expect(seen).toEqual([[2, 2, 3]]);
    expect([...host.subarray(0, 7)]).toEqual([6, 2, 3, 4, 5, 6, 7]);
  });

  it('keeps an event recorded inside the batch, and another (foreign) stream waiting on it, after the launches before', () => {
    using stream = device.createStream({ nonBlocking: true });
    using sum = device.allocate(4, { stream });
    sum.fill(0, { stream });
    stream.synchronize();
    const foreignHandle = driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING);
    try {
      const foreign = Stream.from({ [STREAM_PROTOCOL]: () => ({ version: 0, handle: foreignHandle }) }); // as a foreign library hands its stream over
      const other = device.createStream({ nonBlocking: true });
      const slow = new LaunchConfig({ grid: 512, block: 256 });
      const launches = 40;
      const out = new Int32Array(1);
      const viaEvent = new Int32Array(1);
      launchBatch(stream, (batch) => {
        for (let i = 0; i < launches; i++) batch.launch(slow, kernel('add_slowly'), sum, 4);
        const event = stream.record(); // after the launches above
        other.wait(event);
        sum.copyTo(viaEvent, { stream: other });
        foreign.wait(stream); // the foreign stream orders itself after everything on the batch's stream so far
        sum.copyTo(out, { stream: foreign });
      });
      other.synchronize();
      foreign.synchronize();
      const total = launches * 512 * 256 * 4;
      expect(viaEvent[0]).toBe(total);
      expect(out[0]).toBe(total);
      other.close();
    } finally {
      driver.cuStreamDestroy(foreignHandle);
    }
  });

  it('names the launch that fails at submission by its index in the batch; those before it ran, it and the rest did not', () => {
    using stream = device.createStream();
    using log = device.allocate(4 * 16, { stream });
    log.fill(0, { stream });
    stream.synchronize();
    let error: unknown;
    try {
      launchBatch(stream, (batch) => {
        batch.launch(one, kernel('log_step'), log, 0);
        batch.launch(one, kernel('log_step'), log, 1);
        batch.submit(); // launches 0 and 1
        batch.launch(one, kernel('add_one'), log, 0);
        batch.launch(one, kernel('log_step'), log, 3);
        driver.cuCtxCreate(null, 0, device.handle); // another context is current when the batch submits launches 2 and 3
      });
    } catch (e) {
      error = e;
    } finally {
      const other = driver.cuCtxGetCurrent();
      driver.cuCtxPopCurrent();
      driver.cuCtxDestroy(other);
      device.setCurrent();
    }
    expect(error).toBeInstanceOf(LaunchBatchError);
    const e = error as LaunchBatchError;
    expect([e.launchIndex, e.kernelName, e.enqueued]).toEqual([2, 'add_one', 2]);
    expect(e.message).toMatch(
      /^launchBatch: launch 2 \(add_one\) failed: .*expects CUDA context 0x[0-9a-f]+ to be current, but 0x[0-9a-f]+ is/,
    );
    expect(ints(log, 3, stream)).toEqual([2, 0, 1]);
  });

  it('refuses an argument at the launch that passes it, before anything of the batch is submitted, and submits what came before', () => {
    using stream = device.createStream();
    using log = device.allocate(4 * 16, { stream });
    log.fill(0, { stream });
    expect(() =>
      launchBatch(stream, (batch) => {
        batch.launch(one, kernel('log_step'), log, 7);
        batch.launch(one, kernel('log_step'), log, 1.5);
      }),
    ).toThrow(/log_step: argument 1: 1.5 is not an integer/);
    expect(ints(log, 2, stream)).toEqual([1, 7]);
  });
});
