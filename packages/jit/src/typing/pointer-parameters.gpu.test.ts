// Pointer parameters on a GPU (numba's CPointer): a raw device address from
// the CUDA array interface, an address inside an allocation, a device array
// passed for the pointer; and the addresses the driver does not know,
// refused before the kernel is given them (a made-up one would fault).
import { Device, u32, u8 } from '@cuda-js/core';
import { CUDA_ARRAY_INTERFACE } from '@cuda-js/memory-view';
import { describeGpu } from '@cuda-js/test-support';
import { errorOf } from '@cuda-js/test-support/errors';
import { beforeAll, expect, it } from 'vitest';
import { cuda, jit, KernelArgumentError, type KernelPointer, pointer, toDevice } from '../index.js';

const addOneSource = (x: KernelPointer<'u8'>, n: number) => {
  const i = cuda.grid(1);
  if (i < n) x[i] = x[i]! + 1;
};

describeGpu('pointer parameters on a GPU', () => {
  beforeAll(() => {
    Device.get(0).setCurrent();
  });

  it('takes a raw address, an address inside the allocation, and the device array itself', () => {
    const addOne = jit(addOneSource, { signatures: [[pointer(u8), u32]] });
    const x = toDevice(new Uint8Array(16));
    const address = BigInt(x[CUDA_ARRAY_INTERFACE]().data[0]);
    addOne.launch({ grid: 1, block: 32 }, address, 16);
    addOne.launch({ grid: 1, block: 32 }, address + 4n, 8);
    addOne.launch({ grid: 1, block: 32 }, x, 2);
    const want = Array.from({ length: 16 }, (_, i) => 1 + (i >= 4 && i < 12 ? 1 : 0) + (i < 2 ? 1 : 0));
    expect(Array.from(x.copyToHost() as Uint8Array)).toEqual(want);
    expect([...addOne.specializations.keys()]).toEqual(['pointer(u8), u32']);
  });

  it('refuses an address the driver does not know (made up, or far past an allocation), with the context intact', () => {
    const addOne = jit(addOneSource, { signatures: [[pointer(u8), u32]] });
    const madeUp = errorOf(() => addOne.launch({ grid: 1, block: 32 }, 0x1000n, 4));
    expect(madeUp).toBeInstanceOf(KernelArgumentError);
    expect(madeUp.message).toMatch(/0x1000 is no memory that the driver knows/);
    const x = toDevice(new Uint8Array(16));
    const far = BigInt(x[CUDA_ARRAY_INTERFACE]().data[0]) + (1n << 40n);
    const past = errorOf(() => addOne.launch({ grid: 1, block: 32 }, far, 4));
    expect(past).toBeInstanceOf(KernelArgumentError);
    expect(past.message).toMatch(new RegExp(`0x${far.toString(16)} is no memory that the driver knows`));
    // the context is intact: the next launch runs and is checked
    addOne.launch({ grid: 1, block: 32 }, x, 16);
    expect(Array.from(x.copyToHost() as Uint8Array)).toEqual(new Array(16).fill(1));
  });
});
