import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KernelArgumentError } from '../errors.js';
import { f32, u8 } from '../index.js';
import { jit } from '../jit.js';
import { pointer } from '../typing/signature.js';

function pointerKernel(target: 'gpu' | 'simulator') {
  return jit(
    (p: Uint8Array, n: number) => {
      if (n > 0) p[0] = 1;
    },
    { target, signatures: [[pointer(u8), f32]] },
  );
}

describe('a bigint for a pointer parameter', () => {
  it('outside [0, 2^64) is no device address, on either target, before any device is asked', () => {
    for (const target of ['gpu', 'simulator'] as const) {
      for (const address of [-1n, -(2n ** 63n), 2n ** 64n, 2n ** 70n]) {
        expect(() => pointerKernel(target).launch({ grid: 1, block: 1 }, address as never, 1)).toThrow(
          /for the pointer parameter, which is no device address/,
        );
      }
    }
  });

  it('property: the simulator names an address it cannot read, and a value that is no address, apart', () => {
    const k = pointerKernel('simulator');
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 66n), max: 2n ** 66n }), (address) => {
        let error: unknown;
        try {
          k.launch({ grid: 1, block: 1 }, address as never, 1);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(KernelArgumentError);
        const inRange = address >= 0n && address < 2n ** 64n;
        expect((error as Error).message).toMatch(
          inRange ? /which the simulator cannot read/ : /which is no device address/,
        );
      }),
      { seed: 31, numRuns: 200 },
    );
  });
});
