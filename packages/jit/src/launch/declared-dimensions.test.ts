// An array of other dimensions than a declared signature's (a 1-D array for a
// declared 2-D parameter) is reported at the launch, naming the argument, not
// at the kernel line where typing the kernel for it stopped.
import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { array, cuda, f32, jit, KernelArgumentError, KernelTypeError } from '../index.js';

const fill = (a: { shape: readonly number[]; set(i: number, j: number, v: number): void }) => {
  const [i, j] = cuda.grid(2);
  if (i < a.shape[0]! && j < a.shape[1]!) a.set(i, j, 1);
};

describe('a launch with an array of other dimensions than the declared signatures', () => {
  it('names the argument and the declared type, the typing error its cause', () => {
    const k = jit(fill, { target: 'simulator', signatures: [[array(f32, 2)]] });
    const error = errorOf<KernelArgumentError>(() => {
      k.launch({ grid: [1, 1], block: [2, 2] }, new Float32Array(4) as never);
    });
    expect(error).toBeInstanceOf(KernelArgumentError);
    expect(error.message).toMatch(
      /^argument 'a' \(1 of 1\): a 1-D array \(.*\) where the declared signatures take a 2-D array \(.*\); typing the kernel for a 1-D one failed: /,
    );
    expect(error.cause).toBeInstanceOf(KernelTypeError);
  });

  it('still compiles for the arguments’ own types where they type (a kernel that only reads a.size)', () => {
    const count = jit(
      (a: Float32Array, out: Float32Array) => {
        if (cuda.grid(1) === 0) out[0] = a.length;
      },
      { target: 'simulator', signatures: [[array(f32, 1), array(f32, 1)]] },
    );
    const out = new Float32Array(1);
    count.launch({ grid: 1, block: 1 }, new Float64Array(3) as never, out);
    expect(out[0]).toBe(3);
  });

  it('leaves the error at the kernel line without declared signatures (the types come from the arguments)', () => {
    const k = jit(fill, { target: 'simulator' });
    const error = errorOf<KernelTypeError>(() =>
      k.launch({ grid: [1, 1], block: [2, 2] }, new Float32Array(4) as never),
    );
    expect(error).toBeInstanceOf(KernelTypeError);
    // and says which array is of how many dimensions
    expect(error.detail).toBe('shape[k] needs a constant k from 0 to 0 (a is 1-D here)');
  });
});
