// vectorize on the GPU: host, device-array and view inputs, broadcasting,
// out and streams, each checked against the simulator's answer and plain JS.
import { Device, DeviceArray, f32 } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { toDevice } from './device-arrays.js';
import { vectorize } from './vectorize.js';

describeGpu('vectorize on the GPU', () => {
  let device: Device;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
  });

  const axpb = (a: number, x: number, b: number) => a * x + b;

  it('gives what the simulator gives for host Float32Arrays, bit for bit without FMA contraction', () => {
    const gpu = vectorize(['float32(float32, float32, float32)'], axpb, { fma: false });
    const sim = vectorize(['float32(float32, float32, float32)'], axpb, { target: 'simulator' });
    const x = Float32Array.from({ length: 100_000 }, (_, i) => Math.sin(i));
    const b = Float32Array.from({ length: 100_000 }, (_, i) => Math.cos(i));
    const r = gpu(f32(1.5), x, b);
    expect(r).toBeInstanceOf(Float32Array);
    expect(r).toEqual(sim(f32(1.5), x, b));
    expect((r as Float32Array)[7]).toBe(Math.fround(Math.fround(Math.fround(1.5) * x[7]!) + b[7]!));
  });

  it('keeps device inputs on the device (the result is a device view) and writes a given out on a stream', () => {
    using stream = device.createStream();
    const n = 1 << 20;
    using bx = device.allocate(n * 4, { stream });
    bx.copyFrom(
      Float32Array.from({ length: n }, (_, i) => i % 1000),
      { stream },
    );
    const x = StridedMemoryView.fromAny(bx, { stream: stream.handle }).view({ dtype: 'float32' });
    const twice = vectorize(['float32(float32)'], (v: number) => v * 2);
    const r = twice(x, { stream }) as DeviceArray;
    expect(r).toBeInstanceOf(DeviceArray);
    expect(r.view.buffer).toBeUndefined();
    expect(r.shape).toEqual([n]);
    using bo = device.allocate(n * 4, { stream });
    const out = StridedMemoryView.fromAny(bo, { stream: stream.handle }).view({ dtype: 'float32' });
    expect(twice(r, { out, stream })).toBe(out);
    const host = new Float32Array(n);
    bo.copyTo(host, { stream });
    for (let i = 0; i < n; i += 997) expect(host[i]).toBe((i % 1000) * 4);
  });

  it('broadcasts a device row over a host matrix, and a 4-D host array with a vector, as the simulator does', () => {
    const f = (a: number, b: number) => a * 10 - b;
    const gpu = vectorize(['float64(float64, float64)'], f);
    const sim = vectorize(['float64(float64, float64)'], f, { target: 'simulator' });
    const matrix = StridedMemoryView.fromBuffer(
      Float64Array.from({ length: 300 * 7 }, (_, i) => i),
      { dtype: 'float64', shape: [300, 7] },
    );
    const rowValues = Float64Array.from([1, 2, 3, 4, 5, 6, 7]);
    using rowBuffer = device.allocate(7 * 8);
    rowBuffer.copyFrom(rowValues);
    const row = StridedMemoryView.fromAny(rowBuffer, { stream: 0n }).view({ dtype: 'float64' });
    const onDevice = gpu(matrix, row) as DeviceArray;
    expect(onDevice.shape).toEqual([300, 7]);
    const back = onDevice.copyToHost() as Float64Array;
    const expected = (sim(matrix, rowValues) as StridedMemoryView).typedArray('read');
    expect(back).toEqual(expected);
    const big = StridedMemoryView.fromBuffer(
      Float64Array.from({ length: 2 * 3 * 4 * 5 }, (_, i) => i),
      { dtype: 'float64', shape: [2, 3, 4, 5] },
    );
    const vector = Float64Array.from([5, 4, 3, 2, 1]);
    expect((gpu(big, vector) as StridedMemoryView).typedArray('read')).toEqual(
      (sim(big, vector) as StridedMemoryView).typedArray('read'),
    );
  });

  it('takes DeviceArrays (toDevice) and gives one back, as numba does with device arrays', () => {
    const add = vectorize(['float32(float32, float32)'], (a: number, b: number) => a + b);
    using a = toDevice(Float32Array.from({ length: 5000 }, (_, i) => i));
    using b = toDevice(Float32Array.from({ length: 5000 }, (_, i) => 2 * i));
    const sum = add(a, b) as DeviceArray;
    expect(sum).toBeInstanceOf(DeviceArray);
    const host = sum.copyToHost() as Float32Array;
    expect(host[4999]).toBe(3 * 4999);
    sum.close();
  });

  it('types lazily on the GPU too, and reduces through ufunc.reduce', () => {
    const hyp = vectorize((a: number, b: number) => Math.sqrt(a * a + b * b));
    expect(hyp(Float64Array.from([3, 5]), Float64Array.from([4, 12]))).toEqual(Float64Array.from([5, 13]));
    const add = vectorize(['int32(int32, int32)'], (a: number, b: number) => a + b);
    expect(add.reduce(Int32Array.from({ length: 100_000 }, (_, i) => i % 7))).toBe(
      Array.from({ length: 100_000 }, (_, i) => i % 7).reduce((a, b) => a + b, 0),
    );
  });
});
