import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeGpu } from '@cuda-js/test-support';
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  DLPACK_DEVICE,
  setDriverHooks,
  StridedMemoryView,
  type DLPackRequest,
} from './index.js';
import { fromExchangeApi, nativeHelperStatus, toManagedTensor } from './native/index.js';
import { cudaLibraryBuild, deviceTensorClass, loadCudaLibrary, type CudaLibrary } from '../test/cuda-library.js';
import { collectUntil } from '../test/gc.js';

const N = 1024;
const iotaSum = (from: number, to: number) => ((to - 1 + from) * (to - from)) / 2;

/** Polls until `done()` or `ms` have passed: never blocks the thread that must open a gate. */
async function eventually(done: () => boolean, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (done()) return true;
    await sleep(5);
  }
  return done();
}

describeGpu('memory-view with device memory of a real GPU', () => {
  let lib: CudaLibrary;
  let device: number;
  let consumer: bigint;
  let producer: bigint;
  const allocations: bigint[] = [];

  const deviceIota = (): bigint => {
    const ptr = lib.alloc(N * 4);
    allocations.push(ptr);
    lib.upload(
      ptr,
      Float32Array.from({ length: N }, (_, i) => i),
    );
    return ptr;
  };

  beforeAll(() => {
    // On a GPU host these must be there (built with the unit tests and carried): fail, do not skip.
    if (cudaLibraryBuild.path === undefined)
      throw new Error(`the CUDA library fixture is not built: ${cudaLibraryBuild.reason}`);
    const helper = nativeHelperStatus();
    if (!helper.available) throw new Error(helper.reason);
    lib = loadCudaLibrary();
    device = lib.init();
    consumer = lib.streamCreate();
    producer = lib.streamCreate();
    setDriverHooks({
      waitStream: (p, c) => lib.waitStream(p, c),
      pointerDevice: (ptr) => ({ type: 2, id: lib.pointerDevice(ptr) }),
    });
  });

  afterAll(() => {
    setDriverHooks({});
    if (lib === undefined) return;
    lib.streamSynchronize(consumer);
    lib.streamSynchronize(producer);
    for (const ptr of allocations) lib.free(ptr);
    lib.streamDestroy(consumer);
    lib.streamDestroy(producer);
  });

  it('views device memory from a DLPack producer: same pointer, device and stream, and native code reads the same bytes', async () => {
    const ptr = deviceIota();
    const requests: (DLPackRequest | undefined)[] = [];
    let deleted = 0;
    const array = {
      [DLPACK_DEVICE]: (): [number, number] => [2, device],
      [DLPACK]: (request?: DLPackRequest) => {
        requests.push(request);
        return {
          version: { major: 1, minor: 3 },
          device: { type: 2, id: device },
          data: ptr,
          dtype: { code: 2, bits: 32, lanes: 1 },
          shape: [N],
          strides: [1],
          deleter: () => deleted++,
        };
      },
    };
    let view: StridedMemoryView | undefined = StridedMemoryView.fromAny(array, { stream: consumer });
    expect([view.ptr, view.device, view.stream, requests[0]?.stream]).toEqual([
      ptr,
      { type: 2, id: device },
      consumer,
      consumer,
    ]);
    expect(lib.pointerDevice(view.ptr!)).toBe(device); // a real allocation of that device
    // memory-view's exported DLManagedTensorVersioned, read by the library with cuMemcpyDtoH
    expect(lib.sumSlot(toManagedTensor(view))).toBe(iotaSum(0, N));
    expect(lib.sumSlot(toManagedTensor(view.slice([256, 512])))).toBe(iotaSum(256, 512));
    view.close();
    view = undefined;
    // the exports were given back by the library's deleter calls; the producer's deleter then runs once
    await collectUntil(() => deleted > 0);
    expect(deleted).toBe(1);
  });

  it('orders the consumer stream after a CUDA array interface producer’s stream (and not with stream -1)', async () => {
    const ptr = deviceIota();
    const cai = {
      [CUDA_ARRAY_INTERFACE]: () =>
        Object.freeze({ shape: [N], typestr: '<f4', data: [ptr, false] as const, version: 3, stream: producer }),
    };
    const gate = lib.blockStream(producer); // the producer's stream is busy until the gate opens
    try {
      const view = StridedMemoryView.fromCudaArrayInterface(cai, { stream: consumer });
      expect(view.device).toEqual({ type: 2, id: device }); // through the pointerDevice hook
      lib.memsetAsync(ptr, 0x3f800000, N, consumer); // consumer work submitted after the view
      await sleep(100);
      expect(lib.streamDone(consumer)).toBe(false); // it waits for the producer
    } finally {
      lib.openGate(gate);
    }
    expect(await eventually(() => lib.streamDone(consumer))).toBe(true);
    expect(new Float32Array(lib.download(ptr, 8))[1]).toBe(1);

    const gate2 = lib.blockStream(producer);
    try {
      StridedMemoryView.fromCudaArrayInterface(cai, { stream: -1 }); // the caller opts out of ordering
      lib.memsetAsync(ptr, 0, N, consumer);
      expect(await eventually(() => lib.streamDone(consumer))).toBe(true); // it did not wait
      expect(lib.streamDone(producer)).toBe(false);
    } finally {
      lib.openGate(gate2);
    }
    lib.streamSynchronize(producer);
  });

  it('views a CUDA library’s tensor through its C exchange API, ordered after the library’s current work stream', async () => {
    const ptr = deviceIota();
    const Tensor = deviceTensorClass(lib);
    const tensor = new Tensor(lib.deviceTensor(ptr, N));
    lib.setCurrentStream(producer);
    const before = lib.exchangeCounts();
    const gate = lib.blockStream(producer);
    let view: StridedMemoryView;
    try {
      view = StridedMemoryView.fromAny(tensor, { stream: consumer }); // fromAny reads the exchange API once the native entry is loaded
      expect([view.ptr, view.device, view.shape, view.stream]).toEqual([ptr, { type: 2, id: device }, [N], consumer]);
      lib.memsetAsync(ptr, 0, N, consumer);
      await sleep(100);
      expect(lib.streamDone(consumer)).toBe(false);
    } finally {
      lib.openGate(gate);
    }
    expect(await eventually(() => lib.streamDone(consumer))).toBe(true);
    // the same stream as the library's: nothing to order
    lib.setCurrentStream(consumer);
    fromExchangeApi(tensor, { stream: consumer }).close();
    view.close();
    const after = lib.exchangeCounts();
    expect(after.exported - before.exported).toBe(2);
    expect(after.deleted - before.deleted).toBe(2); // each tensor's deleter, once
    lib.setCurrentStream(0n);
  });

  it('exports a device view through the CUDA array interface that another consumer reads back', () => {
    const ptr = deviceIota();
    const view = StridedMemoryView.fromPointer(ptr, {
      dtype: 'float32',
      shape: [32, 32],
      device: { type: 2, id: device },
      stream: consumer,
    }).slice([0, 32, 2]);
    const cai = view[CUDA_ARRAY_INTERFACE]();
    expect([cai.data[0], cai.strides, cai.stream]).toEqual([ptr, [256, 4], consumer]);
    const again = StridedMemoryView.fromCudaArrayInterface(view, { stream: consumer });
    expect([again.ptr, again.shape, again.strides, again.device]).toEqual([
      ptr,
      [16, 32],
      [64, 1],
      { type: 2, id: device },
    ]);
  });
});
