// The kernels module of the benchmark's app (what `cuda-js build-kernels`
// imports): the axpy of ../jit/cold-body.mjs, with its signature declared.
// `makeAxpy()` makes another kernel of the same definition (the same text,
// name and signature), which the load benchmark loads afresh each time.
import { array, cuda, f32, jit } from 'cuda-js';

export function makeAxpy() {
  return jit(
    (a, x, y) => {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i] + y[i];
    },
    { name: 'axpy', signatures: [[f32, array(f32, 1), array(f32, 1)]] },
  );
}

export const axpy = makeAxpy();
