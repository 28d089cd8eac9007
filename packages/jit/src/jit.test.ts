import { f32, i32 } from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { cuda } from './cuda.js';
import { KernelArgumentError } from './errors.js';
import { jit } from './jit.js';
import { array } from './typing/signature.js';

describe('JitKernel host-side pieces in the simulator', () => {
  const gridSum = (x: Float32Array, out: Float32Array) => {
    const i = cuda.grid(1);
    if (i < x.length) cuda.atomic.add(out, 0, x[i]!);
    cuda.cg.thisGrid().sync();
  };

  it('maxCooperativeGridBlocks gives the blocks one multiprocessor of any GPU keeps resident, and that grid runs its grid sync', () => {
    const kernel = jit(gridSum, { target: 'simulator' });
    kernel.compile([array(f32, 1), array(f32, 1)]);
    expect(kernel.maxCooperativeGridBlocks(256)).toBe(4);
    expect(kernel.maxCooperativeGridBlocks([16, 16])).toBe(4);
    expect(kernel.maxCooperativeGridBlocks({ x: 32, y: 2 })).toBe(16);
    const blocks = kernel.maxCooperativeGridBlocks(128);
    const x = new Float32Array(blocks * 128).fill(1);
    const out = new Float32Array(1);
    kernel.launch({ grid: blocks, block: 128 }, x, out);
    expect(out[0]).toBe(blocks * 128);
    // the simulator's specializations have no compiled kernel
    expect([...kernel.specializations.values()].every((s) => s.kernel === undefined)).toBe(true);
  });

  it('maxCooperativeGridBlocks needs a signature with no or several specializations, and a valid block', () => {
    const kernel = jit(gridSum, { target: 'simulator' });
    expect(() => kernel.maxCooperativeGridBlocks(64)).toThrow(/has 0 specializations; name one with \{ signature \}/);
    expect(kernel.maxCooperativeGridBlocks(64, { signature: [array(f32, 1), array(f32, 1)] })).toBe(16);
    kernel.compile([array(i32, 1), array(i32, 1)]);
    expect(() => kernel.maxCooperativeGridBlocks(64)).toThrow(KernelArgumentError);
    expect(() => kernel.maxCooperativeGridBlocks(0, { signature: [array(f32, 1), array(f32, 1)] })).toThrow(
      /the block must be a positive extent/,
    );
    expect(() =>
      kernel.maxCooperativeGridBlocks(32, { signature: [array(f32, 1), array(f32, 1)], sharedMemory: -1 }),
    ).toThrow(/sharedMemory/);
  });
});
