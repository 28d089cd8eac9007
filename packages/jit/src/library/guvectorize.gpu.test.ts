// guvectorize and reduce's size/res on the GPU: host, view and device-array
// inputs, out and streams, each checked against the simulator and plain JS.
import { Device, DeviceArray, f64 } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { deviceArray, toDevice } from './device-arrays.js';
import { guvectorize } from './guvectorize.js';
import { reduce } from './reduce.js';

const addScalar = (x: Float64Array, y: number, res: Float64Array): void => {
  for (let i = 0; i < x.length; i++) res[i] = x[i]! + y;
};

type Matrix = {
  get(i: number, j: number): number;
  set(i: number, j: number, v: number): void;
  readonly shape: readonly number[];
};
const matmul = (a: Matrix, b: Matrix, c: Matrix): void => {
  const m = a.shape[0]!;
  const n = a.shape[1]!;
  const p = b.shape[1]!;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < p; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += a.get(i, k) * b.get(k, j);
      c.set(i, j, s);
    }
  }
};

describeGpu('guvectorize on the GPU', () => {
  let device: Device;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
  });

  it("'(n),()->(n)' over host rows gives the simulator's answer and plain JS's", () => {
    const sig = ['void(float64[:], float64, float64[:])'];
    const gpu = guvectorize(sig, '(n),()->(n)', addScalar);
    const sim = guvectorize(sig, '(n),()->(n)', addScalar, { target: 'simulator' });
    const x = StridedMemoryView.fromBuffer(
      Float64Array.from({ length: 1000 * 16 }, (_, k) => Math.sin(k)),
      { dtype: 'float64', shape: [1000, 16] },
    );
    const r = gpu(x, f64(0.5)) as StridedMemoryView;
    expect(r.shape).toEqual([1000, 16]);
    expect([...r.toTypedArray()]).toEqual([...(sim(x, f64(0.5)) as StridedMemoryView).toTypedArray()]);
    expect(r.toTypedArray()[17]).toBe(Math.sin(17) + 0.5);
  });

  it('a batched matrix multiply of device arrays stays on the device; a given out on a stream', () => {
    using stream = device.createStream();
    const batch = 64;
    const a = Float32Array.from({ length: batch * 4 * 3 }, (_, k) => (k % 7) - 3);
    const b = Float32Array.from({ length: batch * 3 * 5 }, (_, k) => (k % 5) - 2);
    const da = toDevice(StridedMemoryView.fromBuffer(a, { dtype: 'float32', shape: [batch, 4, 3] }), { stream });
    const db = toDevice(StridedMemoryView.fromBuffer(b, { dtype: 'float32', shape: [batch, 3, 5] }), { stream });
    const mm = guvectorize(['void(float32[:,:], float32[:,:], float32[:,:])'], '(m,n),(n,p)->(m,p)', matmul);
    const out = deviceArray([batch, 4, 5], 'float32', { stream });
    expect(mm(da, db, { out, stream })).toBe(out);
    const got = out.copyToHost({ stream }) as Float32Array;
    stream.synchronize();
    const expected: number[] = [];
    for (let q = 0; q < batch; q++) {
      for (let i = 0; i < 4; i++) {
        for (let j = 0; j < 5; j++) {
          let s = 0;
          for (let k = 0; k < 3; k++) s += a[q * 12 + i * 3 + k]! * b[q * 15 + k * 5 + j]!;
          expected.push(s);
        }
      }
    }
    expect([...got]).toEqual(expected);
    const fresh = mm(da, db);
    expect(fresh).toBeInstanceOf(DeviceArray);
    expect([...((fresh as DeviceArray).copyToHost() as Float32Array)]).toEqual(expected);
  });

  it("reduce's size and res: the leading elements, the result left on the device", () => {
    using stream = device.createStream();
    const sum = reduce((x: number, y: number) => x + y);
    const values = Float64Array.from({ length: 1 << 16 }, (_, i) => i);
    expect(sum(values, { size: 1000 })).toBe((999 * 1000) / 2);
    const dv = toDevice(values, { stream });
    const res = deviceArray([1], 'float64', { stream });
    expect(sum(dv, { res, stream, init: 1 })).toBeUndefined();
    const back = res.copyToHost({ stream }) as Float64Array;
    stream.synchronize();
    expect(back[0]).toBe(((1 << 16) * ((1 << 16) - 1)) / 2 + 1);
  });
});
