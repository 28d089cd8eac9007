// Recursive device functions on a GPU (numba's recursion tests): fib with
// an inferred and a declared return type, mutual recursion, each checked
// against plain JS and against the same kernel in the simulator.
import { Device } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { cuda, type DeviceFunctionCallable, i64, jit } from '../index.js';

const fibRef = (n: number): number => (n < 2 ? n : fibRef(n - 1) + fibRef(n - 2));
const facRef = (n: number): number => (n < 1 ? 1 : n * facRef(n - 1));

const fib = jit.device(function fib(n: number): number {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
});
const fibDeclared: DeviceFunctionCallable<(n: number) => number> = jit.device(
  (n: number): number => (n < 2 ? n : fibDeclared(n - 1) + fibDeclared(n - 2)),
  {
    returns: i64,
    constants: () => ({ fibDeclared }),
  },
);
const innerFac: DeviceFunctionCallable<(n: number) => number> = jit.device(
  (n: number): number => (n < 1 ? 1 : n * outerFac(n - 1)),
  { constants: () => ({ outerFac }) },
);
const outerFac = jit.device((n: number): number => (n < 1 ? 1 : n * innerFac(n - 1)), { constants: { innerFac } });

const source = (n: Int32Array, fibs: Int32Array, declared: Float64Array, facs: Float64Array) => {
  const i = cuda.grid(1);
  if (i < n.length) {
    fibs[i] = fib(n[i]!);
    declared[i] = fibDeclared(n[i]!);
    facs[i] = outerFac(cuda.f64(n[i]!)); // f64: a transform may print `* 1.0` as `* 1`, an i32 product
  }
};

describeGpu('recursive device functions on a GPU', () => {
  beforeAll(() => {
    Device.get(0).setCurrent();
  });

  it('fib (inferred, declared i64) and mutual recursion agree with plain JS and the simulator', () => {
    const constants = { fib, fibDeclared, outerFac };
    const gpu = jit(source, { constants });
    const sim = jit(source, { target: 'simulator', constants });
    const count = 300;
    const n = Int32Array.from({ length: count }, (_, k) => k % 20);
    const run = (k: typeof gpu) => {
      const out = { fibs: new Int32Array(count), declared: new Float64Array(count), facs: new Float64Array(count) };
      k.launch({ grid: 3, block: 128 }, n, out.fibs, out.declared, out.facs);
      return out;
    };
    const onGpu = run(gpu);
    const inSim = run(sim);
    expect([...onGpu.fibs]).toEqual([...n].map(fibRef));
    expect([...onGpu.declared]).toEqual([...n].map(fibRef));
    expect([...onGpu.facs]).toEqual([...n].map(facRef));
    expect(inSim).toEqual(onGpu);
  });
});
