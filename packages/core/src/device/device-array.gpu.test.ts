// DeviceArray on the GPU: device, pinned and managed memory, copies both
// ways (stream-ordered into pinned memory), slices, and the protocols.
import { CUDA_ARRAY_INTERFACE, DLDeviceType, DLPACK_DEVICE, StridedMemoryView } from '@cuda-js/memory-view';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { Device } from './device.js';
import { CopyError } from '../errors.js';
import { DeviceArray } from './device-array.js';

describeGpu('DeviceArray on the GPU', () => {
  let device: Device;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
  });

  it('copies a host array to the device and back, n-D, on a stream', () => {
    using stream = device.createStream();
    const host = StridedMemoryView.fromBuffer(
      Float64Array.from({ length: 24 }, (_, i) => i * 1.5),
      { dtype: 'float64', shape: [2, 3, 4] },
    );
    using d = DeviceArray.fromHost(host, { stream });
    expect(d.shape).toEqual([2, 3, 4]);
    expect(d.strides).toEqual([12, 4, 1]);
    expect(d.view.buffer).toBeUndefined();
    expect(d[DLPACK_DEVICE]()).toEqual([DLDeviceType.CUDA, device.ordinal]);
    const cai = d[CUDA_ARRAY_INTERFACE]();
    expect(cai.shape).toEqual([2, 3, 4]);
    expect(cai.typestr).toBe('<f8');
    expect(cai.data[0]).toBe(d.buffer!.ptr);
    const back = d.copyToHost({ stream }) as Float64Array;
    expect(Array.from(back)).toEqual(Array.from({ length: 24 }, (_, i) => i * 1.5));
    // a strided host source is made compact on the way
    const strided = StridedMemoryView.fromBuffer(
      Int32Array.from({ length: 8 }, (_, i) => i),
      { dtype: 'int32', shape: [8] },
    ).slice([0, 8, 2]);
    using e = DeviceArray.fromHost(strided);
    expect(Array.from(e.copyToHost() as Int32Array)).toEqual([0, 2, 4, 6]);
  });

  it('copies into pinned memory in stream order, and pinned and managed arrays are host-readable', () => {
    using stream = device.createStream();
    using d = DeviceArray.fromHost(
      Float32Array.from({ length: 1 << 16 }, (_, i) => i),
      { stream },
    );
    using pinned = DeviceArray.allocateLike(d.view, { memory: 'pinned' });
    expect(pinned.isHostAccessible).toBe(true);
    expect(d.copyToHost(pinned, { stream })).toBe(pinned);
    stream.synchronize();
    const view = pinned.typedArray() as Float32Array;
    expect(view[12345]).toBe(12345);
    using managed = DeviceArray.allocate([4], 'int32', { memory: 'managed' });
    managed.copyFromHost(Int32Array.from([9, 8, 7, 6]));
    expect(Array.from(managed.typedArray() as Int32Array)).toEqual([9, 8, 7, 6]);
  });

  it('a slice shares the memory and is refused by the Buffer copies; a wrong size is a CopyError', () => {
    using d = DeviceArray.allocate([4, 4], 'float32');
    const row = d.slice([1, 2]);
    expect(row.shape).toEqual([1, 4]);
    expect(row.view.ptr).toBe(d.view.ptr! + 16n);
    expect(() => row.copyToHost()).toThrow(CopyError);
    expect(() => d.copyFromHost(new Float32Array(3))).toThrow(CopyError);
    row.close();
    expect(d.closed).toBe(false);
  });
});
