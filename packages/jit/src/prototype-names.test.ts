import { describe, expect, it } from 'vitest';
import { JitError, KernelTypeError } from './errors.js';
import { jit } from './jit.js';
import { vectorize } from './library/vectorize.js';

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

function kernelOf(body: string): (a: Float32Array) => void {
  return new Function(`return (a) => { ${body} }`)() as (a: Float32Array) => void;
}

describe('names that an object inherits (constructor, __proto__, toString) in user text', () => {
  it.each(PROTOTYPE_NAMES)(
    'are no member of cuda or Math in a kernel: cuda.%s is a KernelTypeError, not a silent value',
    (name) => {
      for (const body of [`a[0] = cuda.${name};`, `a[0] = Math.${name}(1);`]) {
        const k = jit(kernelOf(body), { target: 'simulator' });
        expect(() => k.launch({ grid: 1, block: 1 }, new Float32Array(1))).toThrow(KernelTypeError);
      }
    },
  );

  it.each(PROTOTYPE_NAMES)("are no type of a ufunc signature: '%s(float64)' is a JitError naming the type", (name) => {
    expect(() => vectorize([`${name}(float64)`], (x: number) => x, { target: 'simulator' })).toThrow(JitError);
    expect(() => vectorize([`float64(${name})`], (x: number) => x, { target: 'simulator' })).toThrow(
      new RegExp(`unknown type '${name}'`),
    );
  });
});
