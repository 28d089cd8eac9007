// Issue 20's device-only findings: inputs that ended the process on the H200
// (a graph memcpy to a made-up address, a made-up stream handle) or that the
// driver took silently (a parameters table of the wrong sizes, freeing another
// definition's allocation, a buffer's IPC descriptor before its pool's
// handle). Each is now a named error before the driver is handed it, or works.
import { driver } from '@cuda-js/bindings';
import { describeGpu } from '@cuda-js/test-support';
import { Stream, UnknownStreamHandleError } from '@cuda-js/streams';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import {
  type Device,
  DeviceMemoryResource,
  GraphArgumentError,
  GraphDefinition,
  KernelParametersError,
  launch,
  LaunchPlan,
} from './index.js';
import { gpuTestKernels } from './test-kernels.test-support.js';

const SOURCE = String.raw`
extern "C" __global__ void store(unsigned long long* out, unsigned long long v) { *out = v; }
`;

const FUZZ = { seed: 20, numRuns: Number(process.env['CUDA_JS_FUZZ_RUNS'] ?? 50) } as const;

describeGpu('hostile input on a device (issue 20)', () => {
  const gpu = gpuTestKernels(SOURCE, ['store']);
  let device: Device;
  let store: { handle: bigint; name: string };

  beforeAll(() => {
    device = gpu.device;
    store = gpu.kernel('store');
  });

  it('refuses a graph copy or fill at an address the driver does not know, and takes a real one', () => {
    using def = new GraphDefinition({ device });
    using real = device.allocate(64);
    expect(() => def.memcpy(0x1000n, real, 16)).toThrow(GraphArgumentError);
    expect(() => def.memcpy(0x1000n, real, 16)).toThrow(
      /the destination address: 0x1000 is no memory that the driver knows/,
    );
    expect(() => def.memcpy(real, 0x1000n, 16)).toThrow(/the source address/);
    expect(() => def.memset(0x1000n, 0, { count: 4 })).toThrow(GraphArgumentError);
    // past the end of a real allocation
    expect(() => def.memcpy(real.ptr + 32n, real, 64)).toThrow(/reach past the end of its allocation/);
    // inside it, and inside the definition's own allocation node
    expect(def.memcpy(real.ptr + 16n, real.ptr, 16)).toBeDefined();
    const node = def.allocate(64);
    expect(def.memset(node.ptr + 8n, 7, { count: 8 })).toBeDefined();
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: (1n << 47n) - 1n }), fc.integer({ min: 1, max: 1 << 20 }), (ptr, size) => {
        const inside = ptr >= real.ptr && ptr + BigInt(size) <= real.ptr + 64n;
        if (inside) return;
        expect(() => def.memcpy(ptr, real, Math.min(size, 64))).toThrow(GraphArgumentError);
      }),
      FUZZ,
    );
  });

  it('refuses to free another definition’s allocation node', () => {
    using a = new GraphDefinition({ device });
    using b = new GraphDefinition({ device });
    const node = a.allocate(256);
    expect(() => b.deallocate(node)).toThrow(/the AllocNode belongs to another graph definition/);
    expect(a.deallocate(node)).toBeDefined();
  });

  it('takes a bigint stream only where cuda-js made or wrapped it', () => {
    using target = device.allocate(64);
    using def = new GraphDefinition({ device });
    def.memset(target, 0, { count: 64 }); // no allocation node: a graph that allocates cannot be relaunched before it frees
    using graph = def.instantiate();
    expect(() => graph.launch(5n)).toThrow(UnknownStreamHandleError);
    expect(() => graph.launch(5n)).toThrow(/0x5 is no stream that cuda-js made or wrapped; .*Stream\.from\(handle\)/);
    using stream = device.createStream();
    graph.launch(stream.handle); // the handle of a live Stream is known
    graph.launch(0n);
    stream.synchronize();
    const raw = stream.handle;
    stream.close();
    expect(() => graph.launch(raw)).toThrow(UnknownStreamHandleError); // destroyed: no longer a stream
    // a stream that cuda-js did not make is refused until it is wrapped once, on trust
    const foreign = driver.cuStreamCreate(0);
    expect(() => graph.launch(foreign)).toThrow(UnknownStreamHandleError);
    graph.launch(Stream.from(foreign));
    graph.launch(foreign);
    driver.cuStreamSynchronize(foreign);
    driver.cuStreamDestroy(foreign);
  });

  it('checks a kernel’s parameters table against the driver’s', () => {
    using out = device.allocate(8);
    // store(u64*, u64): two 8-byte parameters; a table that says 4 bytes for the value is refused
    expect(
      () =>
        new LaunchPlan({
          handle: store.handle,
          name: 'store',
          parameters: [
            { offset: 0, size: 8 },
            { offset: 8, size: 4 },
          ],
        }),
    ).toThrow(KernelParametersError);
    expect(() => new LaunchPlan({ handle: store.handle, name: 'store', parameters: [{ offset: 0, size: 8 }] })).toThrow(
      /is not the driver's \[0:8, 8:8\]/,
    );
    const plan = new LaunchPlan({
      handle: store.handle,
      name: 'store',
      parameters: [
        { offset: 0, size: 8 },
        { offset: 8, size: 8 },
      ],
    });
    expect(plan.parameters).toHaveLength(2);
    using stream = device.createStream();
    launch(stream, { grid: 1, block: 1 }, store, out, 0x1234_5678_9abc_def0n);
    const back = new BigUint64Array(1);
    out.copyTo(back, { stream });
    expect(back[0]).toBe(0x1234_5678_9abc_def0n);
  });

  it('exports a buffer’s IPC descriptor before its pool’s allocation handle was asked for', () => {
    using resource = new DeviceMemoryResource(device, { ipcEnabled: true });
    using buffer = resource.allocate(1024);
    const descriptor = buffer.ipcDescriptor(); // before allocationHandle(): the driver refused this with CUDA_ERROR_INVALID_VALUE
    expect(descriptor.size).toBe(1024);
    expect(resource.allocationHandle().kind).toBe('posix-fd');
  });
});
