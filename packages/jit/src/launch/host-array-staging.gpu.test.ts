// Issue 20 on a GPU: a kernel's writes to a host array (copied to the device for the launch
// and back after it) were lost with no error when a callback of the launch detached the
// array's buffer. Here another argument's DLPack export detaches it once the array is staged.
import { DLPACK, DLPACK_DEVICE, type DLPackTensor } from '@cuda-js/memory-view';
import { describeGpu } from '@cuda-js/test-support';
import { expect, it } from 'vitest';
import { cuda, jit, KernelArgumentError } from '../index.js';

describeGpu('a host array detached during a GPU launch (issue 20)', () => {
  it('is a KernelArgumentError naming the array, and the same launch without the detach writes it', () => {
    const addOne = jit((out: Float32Array, inp: Float32Array) => {
      const i = cuda.grid(1);
      if (i < out.length) out[i] = inp[i]! + 1;
    });
    const source = new Float32Array(64).fill(2);
    const exporterDetaching = (target: Float32Array | undefined) => {
      let calls = 0;
      return {
        calls: () => calls,
        [DLPACK_DEVICE]: () => [1, 0] as const,
        [DLPACK]: (): DLPackTensor => {
          // the first export types the launch; the second is the staging's, after `out` was copied in
          if (++calls === 2 && target !== undefined)
            structuredClone(target.buffer, { transfer: [target.buffer as ArrayBuffer] });
          return {
            version: { major: 1, minor: 3 },
            flags: 0,
            device: { type: 1, id: 0 },
            data: source.buffer,
            byteOffset: 0,
            dtype: { code: 2, bits: 32, lanes: 1 },
            shape: [64],
            strides: null,
            deleter: () => undefined,
          } as never;
        },
      };
    };
    const kept = new Float32Array(64);
    addOne.launch({ grid: 1, block: 64 }, kept, exporterDetaching(undefined) as never);
    expect([...kept]).toEqual(new Array(64).fill(3));

    const out = new Float32Array(64);
    const detaching = exporterDetaching(out);
    expect(() => addOne.launch({ grid: 1, block: 64 }, out, detaching as never)).toThrow(KernelArgumentError);
    expect(detaching.calls()).toBeGreaterThanOrEqual(2);
    expect(out.byteLength).toBe(0);
  });
});
