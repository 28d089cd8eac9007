// A kernels module for the ahead-of-time tests: kernels with declared
// signatures, and one without (which is not built).
import { cuda } from '../cuda.js';
import { f32, f64, i32, jit } from '../index.js';
import { array } from '../typing/signature.js';

export const fixtureAxpy = jit(
  (a: number, x: Float32Array, y: Float32Array) => {
    const i = cuda.grid(1);
    if (i < y.length) y[i] = a * x[i]! + y[i]!;
  },
  {
    name: 'fixtureAxpy',
    signatures: [
      [f32, array(f32, 1), array(f32, 1)],
      [f64, array(f64, 1), array(f64, 1)],
    ],
  },
);

export const fixtureScale = jit(
  (x: Int32Array, k: number) => {
    const i = cuda.grid(1);
    if (i < x.length) x[i] = x[i]! * k;
  },
  { name: 'fixtureScale', signatures: [[array(i32, 1), i32]] },
);

export const fixtureNotDeclared = jit((x: Int32Array) => {
  x[0] = 1;
});
