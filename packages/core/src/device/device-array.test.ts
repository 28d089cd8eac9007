import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  DLPACK_DEVICE,
  StridedMemoryView,
  UnsupportedDeviceError,
} from '@cuda-js/memory-view';
import { describe, expect, it } from 'vitest';
import { CopyError } from '../errors.js';
import { DeviceArray } from './device-array.js';

// Without a GPU, a DeviceArray over host memory (what the JIT's simulator makes) has the same
// layout, copies and protocols; device memory is covered by device-array.gpu.test.ts.
describe('DeviceArray over host memory', () => {
  const host = () =>
    new DeviceArray(
      StridedMemoryView.fromBuffer(
        Float32Array.from({ length: 12 }, (_, i) => i),
        { dtype: 'float32', shape: [3, 4] },
      ),
    );

  it("has the view's shape, strides, dtype and sizes, and reshapes and slices share the memory", () => {
    const a = host();
    expect(a.shape).toEqual([3, 4]);
    expect(a.strides).toEqual([4, 1]);
    expect(a.dtype.name).toBe('float32');
    expect([a.ndim, a.size, a.nbytes]).toEqual([2, 12, 48]);
    const rows = a.slice([1]);
    expect(rows.shape).toEqual([2, 4]);
    expect(Array.from(rows.copyToHost() as Float32Array)).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
    const flat = a.reshape([12]);
    flat.copyFromHost(new Float32Array(12).fill(7));
    expect(Array.from(a.copyToHost() as Float32Array)).toEqual(new Array(12).fill(7));
    expect(a.slice(null, [0, 4, 2]).strides).toEqual([4, 2]);
    expect(String(a)).toBe('DeviceArray(float32 [3, 4] strides [4, 1])');
  });

  it('copies into a given typed array or strided host view, and refuses a wrong size', () => {
    const a = host();
    const into = new Float32Array(12);
    expect(a.copyToHost(into)).toBe(into);
    expect(into[11]).toBe(11);
    const wide = new Float32Array(24);
    const strided = StridedMemoryView.fromTypedArray(wide)
      .view({ shape: [3, 8] })
      .slice(null, [0, 8, 2]);
    a.copyToHost(strided);
    expect(wide[2]).toBe(1);
    expect(() => a.copyFromHost(new Float32Array(5))).toThrow(CopyError);
    expect(() => a.copyToHost(new Float32Array(5))).toThrow(/the target has 5 elements/);
  });

  it('exports the view through DLPack (CPU) and refuses the CUDA array interface for host memory', () => {
    const a = host();
    expect(a[DLPACK_DEVICE]()).toEqual([1, 0]);
    const tensor = a[DLPACK]();
    expect(tensor.shape).toEqual([3, 4]);
    tensor.deleter?.();
    expect(() => a[CUDA_ARRAY_INTERFACE]()).toThrow(UnsupportedDeviceError);
  });

  it("close gives the memory back once; a slice's close leaves its parent open", () => {
    const a = host();
    const s = a.slice([1]);
    s.close();
    expect(a.closed).toBe(false);
    a.close();
    a.close();
    expect(a.closed).toBe(true);
    expect(() => new DeviceArray({} as never)).toThrow(TypeError);
    expect(CopyError).toBeDefined();
  });
});
