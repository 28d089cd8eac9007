// A device function or linked function imported from another module is
// called, after a compiler's rewrite, as `(0, ns.f)(...)` or `ns.f(...)`
// (vitest/vite, esbuild, tsc's CommonJS output): the kernel still calls
// the constant `f`.
import { f32 } from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { device } from '../device-function.js';
import { declareDevice } from '../external-device-function.js';
import { jit } from '../jit.js';

const square = device((v: number) => v * v);
const triple = declareDevice(
  'triple_f32',
  { args: [f32], returns: f32 },
  {
    link: { cuda: 'extern "C" __device__ float triple_f32(float v) { return 3 * v; }' },
    simulate: (v: number) => 3 * v,
  },
);

/** A kernel from its text, as a compiler leaves it (no binding for the namespace object, as in the compiled module). */
function kernelOf(body: string): (x: Float32Array) => void {
  return new Function('x', body) as (x: Float32Array) => void;
}

describe('calls of imported constants, in the forms compilers write', () => {
  it('(0, ns.f)(...) and ns.f(...) call the constant f, a device function or linked code', () => {
    const x = Float32Array.from([2, 5]);
    jit(kernelOf('x[0] = (0, __vite_ssr_import_1__.square)(x[0]); x[1] = random_1.triple(x[1]);'), {
      target: 'simulator',
      constants: { square, triple },
    }).launch({ grid: 1, block: 1 }, x);
    expect(Array.from(x)).toEqual([4, 15]);
  });

  it('a namespace member that is no constant is still refused', () => {
    const k = jit(kernelOf('x[0] = (0, ns_1.cube)(x[0]);'), { target: 'simulator', constants: { square } });
    expect(() => k.launch({ grid: 1, block: 1 }, new Float32Array(1))).toThrow(
      /the call \(?0, ?ns_1\.cube\)?\(\.\.\.\) is not supported/,
    );
  });
});
