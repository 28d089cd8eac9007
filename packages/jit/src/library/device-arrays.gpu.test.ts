// numba's array makers on the GPU: kernels take the DeviceArrays directly,
// mapped (pinned) memory is read and written by a kernel through its address.
import { Device, DeviceArray, f32 } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { jit } from '../jit.js';
import { deviceArray, deviceArrayLike, mappedArray, pinnedArray, toDevice } from './device-arrays.js';

describeGpu("numba's array makers on the GPU", () => {
  let device: Device;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
  });
  const axpy = jit((a: number, x: Float32Array, y: Float32Array) => {
    const i = cuda.grid(1);
    if (i < y.length) y[i] = a * x[i]! + y[i]!;
  });

  it('toDevice and deviceArrayLike arrays launch with no host copy, and copy back on a stream into a pinned array', () => {
    using stream = device.createStream();
    const n = 100_000;
    using x = toDevice(
      Float32Array.from({ length: n }, (_, i) => i),
      { stream },
    );
    using y = deviceArrayLike(x, { stream });
    y.copyFromHost(new Float32Array(n).fill(1), { stream });
    axpy.launch({ grid: Math.ceil(n / 256), block: 256, stream }, f32(2), x, y);
    using host = pinnedArray(n, f32);
    y.copyToHost(host, { stream });
    stream.synchronize();
    const out = host.typedArray() as Float32Array;
    for (let i = 0; i < n; i += 1009) expect(out[i]).toBe(2 * i + 1);
  });

  it('a mapped array is written by a kernel and read by JS without a copy', () => {
    using x = toDevice(Float32Array.from([1, 2, 3, 4]));
    using y = mappedArray(4, 'float32');
    (y.typedArray() as Float32Array).fill(10);
    axpy.launch({ grid: 1, block: 32 }, f32(3), x, y);
    device.synchronize();
    expect(Array.from(y.typedArray() as Float32Array)).toEqual([13, 16, 19, 22]);
    using empty = deviceArray([2, 3], 'int32');
    expect(empty).toBeInstanceOf(DeviceArray);
    expect(empty.shape).toEqual([2, 3]);
  });
});
