// Issue 20: a kernel nested thousands deep overflowed the parser, typer or simulator source generator with the engine's RangeError.
import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { UnsupportedSyntaxError } from './errors.js';
import { parseKernel } from './parse/parse-kernel.js';
import { typeKernel } from './typing/type-kernel.js';
import { array } from './typing/signature.js';

/** `(a) => { a[0] = x + x + ... + x; }` of `depth` terms: a left-nested tree `depth` deep, which V8 itself compiles (made at run time: the source is the hostile input). */
function nested(depth: number): (a: Float32Array) => void {
  return new Function('a', `a[0] = ${Array.from({ length: depth }, () => 'a[1]').join(' + ')};`) as (
    a: Float32Array,
  ) => void;
}

describe('deeply nested kernels', () => {
  it('are an UnsupportedSyntaxError saying they nest too deeply, at whichever stage runs out of stack', () => {
    const failure = errorOf<unknown>(() => {
      typeKernel(parseKernel(nested(50_000), undefined), [array('f32', 1)], { symbol: 'k' });
    });
    expect(failure).toBeInstanceOf(UnsupportedSyntaxError);
    expect((failure as Error).message).toMatch(/nests expressions or blocks too deeply \(the call stack ran out\)/);
  });

  it('leaves shallow nesting alone', () => {
    expect(() => typeKernel(parseKernel(nested(50), undefined), [array('f32', 1)], { symbol: 'k' })).not.toThrow();
  });
});
