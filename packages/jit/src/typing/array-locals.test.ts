// Arrays in local variables (array-locals.ts): ping-pong buffers swapped
// through a temporary, an array chosen by a conditional, arrays passed to
// device functions after a swap; typed, run in the simulator against plain
// JS, and compiled through libNVVM and ptxas.
import { f32, f64 as f64Scalar, i32 as i32Scalar } from '@cuda-js/core';
import { describe, expect, test } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { cuda } from '../cuda.js';
import { KernelTypeError } from '../errors.js';
import { jit } from '../jit.js';
import { compileAndAssemble, compileRequirements } from '../lower/compiled-kernel.test-support.js';
import { array } from './signature.js';

/** numba's heat-equation step written with ping-pong buffers: `steps` steps of one thread per point, in one block. */
const heat = jit(
  (a0: Float64Array, a1: Float64Array, steps: number, k: number) => {
    const i = cuda.threadIdx.x;
    let data = a0,
      next = a1;
    for (let step = 0; step < steps; step++) {
      const here = data[i]!;
      const left = i > 0 ? data[i - 1]! : 0;
      const right = i < data.length - 1 ? data[i + 1]! : 0;
      next[i] = here + k * (left - 2 * here + right);
      cuda.syncthreads();
      const t = data;
      data = next;
      next = t;
    }
  },
  { target: 'simulator' },
);

function heatReference(initial: Float64Array, steps: number, k: number): [Float64Array, Float64Array] {
  let data = Float64Array.from(initial);
  let next = new Float64Array(initial.length);
  const buffers = [data, next] as const;
  for (let step = 0; step < steps; step++) {
    for (let i = 0; i < data.length; i++) {
      const left = i > 0 ? data[i - 1]! : 0;
      const right = i < data.length - 1 ? data[i + 1]! : 0;
      next[i] = data[i]! + k * (left - 2 * data[i]! + right);
    }
    [data, next] = [next, data];
  }
  return [buffers[0], buffers[1]];
}

describe('arrays in local variables, in the simulator', () => {
  test('ping-pong buffers swapped through a temporary (numba heat equation)', () => {
    for (const steps of [1, 2, 7]) {
      const a0 = new Float64Array(64);
      a0[31] = 1000;
      const a1 = new Float64Array(64);
      const [e0, e1] = heatReference(a0, steps, 0.25);
      heat.launch({ grid: 1, block: 64 }, a0, a1, i32Scalar(steps), 0.25);
      expect([...a0]).toEqual([...e0]);
      expect([...a1]).toEqual([...e1]);
    }
    // the variables hold i32 selectors; the accesses name the parameters
    const spec = heat.compile([array('f64', 1), array('f64', 1), i32Scalar, f64Scalar]);
    expect(
      spec.typed.locals.filter((l) => l.name === 'data' || l.name === 'next' || l.name === 't').map((l) => l.type),
    ).toEqual(['i32', 'i32', 'i32']);
  });

  test('an array chosen by a conditional, written, measured and updated atomically', () => {
    const k = jit(
      (evens: Int32Array, odds: Int32Array, counts: Int32Array, more: Int32Array) => {
        const i = cuda.grid(1);
        const out = i % 2 === 0 ? evens : odds;
        const j = Math.trunc(i / 2);
        if (j < out.length) out[j] = i * 10;
        const tally = i % 2 === 0 ? counts : more;
        cuda.atomic.add(tally, 0, 1);
        let which = odds;
        if (i === 0) which = evens;
        cuda.atomic.add(counts, 1, which.length);
      },
      { target: 'simulator' },
    );
    const evens = new Int32Array(8);
    const odds = new Int32Array(5);
    const counts = new Int32Array(2);
    const more = new Int32Array(1);
    k.launch({ grid: 1, block: 16 }, evens, odds, counts, more);
    expect([...evens]).toEqual([0, 20, 40, 60, 80, 100, 120, 140]);
    expect([...odds]).toEqual([10, 30, 50, 70, 90]);
    expect([...counts]).toEqual([8, 8 + 15 * 5]);
    expect([...more]).toEqual([8]);
  });

  test('arrays passed on to device functions after a swap, and shared arrays swapped', () => {
    const axpy = jit.device((a: number, x: Float32Array, y: Float32Array, i: number) => {
      y[i] = a * x[i]! + y[i]!;
    });
    const k = jit(
      (x: Float32Array, y: Float32Array, out: Float32Array) => {
        const i = cuda.threadIdx.x;
        const s0 = cuda.shared.array(32, f32);
        const s1 = cuda.shared.array(32, f32);
        let p = x,
          q = y;
        const t = p;
        p = q;
        q = t;
        axpy(2, p, q, i); // x[i] = 2 * y[i] + x[i]
        let a = s0,
          b = s1;
        a[i] = x[i]!;
        cuda.syncthreads();
        const u = a;
        a = b;
        b = u;
        a[i] = b[31 - i]! + 1; // s1[i] = s0[31 - i] + 1
        cuda.syncthreads();
        out[i] = a[i]!;
      },
      { target: 'simulator', constants: { axpy } },
    );
    const x = Float32Array.from({ length: 32 }, (_, i) => i);
    const y = Float32Array.from({ length: 32 }, (_, i) => 100 - i);
    const out = new Float32Array(32);
    k.launch({ grid: 1, block: 32 }, x, y, out);
    const xs = Array.from({ length: 32 }, (_, i) => Math.fround(2 * (100 - i) + i));
    expect([...x]).toEqual(xs);
    expect([...out]).toEqual(Array.from({ length: 32 }, (_, i) => xs[31 - i]! + 1));
  });
});

describe('arrays in local variables: what is refused', () => {
  const refused = (fn: (...args: never[]) => unknown, args: unknown[]): KernelTypeError => {
    try {
      jit(fn, { target: 'simulator' }).launch({ grid: 1, block: 1 }, ...args);
    } catch (e) {
      if (e instanceof KernelTypeError) return e;
      throw e;
    }
    throw new Error('the kernel was accepted');
  };

  test('arrays of different element types or ranks, numbers and arrays in one variable', () => {
    const mixed = refused(
      (x: Float32Array, y: Int32Array) => {
        let a = x;
        // @ts-expect-error: the kernel mixes element types on purpose
        if (cuda.threadIdx.x === 0) a = y;
        a[0] = 1;
      },
      [new Float32Array(1), new Int32Array(1)],
    );
    expect(mixed.detail).toBe(
      "'a' holds arrays of array(f32, 1, 'C'); 'y' is array(i32, 1, 'C'): an array variable holds arrays of one element type and rank",
    );
    expect(mixed.line).toBeGreaterThan(0);
    const both = refused(
      (x: Float32Array) => {
        let a = 0;
        // @ts-expect-error: the kernel puts an array in a number's variable on purpose
        a = x;
        x[0] = a;
      },
      [new Float32Array(1)],
    );
    expect(both.detail).toBe("'a' holds a i32; it cannot hold an array too");
    const back = refused(
      (x: Float32Array) => {
        let a = x;
        // @ts-expect-error: the kernel puts a number in an array's variable on purpose
        a = 1;
        x[0] = a[0]!;
      },
      [new Float32Array(1)],
    );
    expect(back.detail).toBe("'a' holds an array: assign it another array (a = other), or assign its elements");
  });

  test('a read-only array among the candidates cannot be written through the variable', () => {
    const k = jit(
      (x: Float32Array, y: Float32Array) => {
        const a = cuda.threadIdx.x === 0 ? x : y;
        a[0] = 1;
      },
      { target: 'simulator' },
    );
    expect(() => k.compile([array('f32', 1), array('f32', 1, 'C', { readonly: true })])).toThrow(/'y' is read-only/);
  });
});

describeWhen(compileRequirements, 'arrays in local variables through libNVVM and ptxas', () => {
  test('the ping-pong kernel, a conditional choice and swapped shared arrays compile for sm_90', () => {
    const { ptx } = compileAndAssemble(heat.compile([array('f64', 1), array('f64', 1), i32Scalar, f64Scalar]).typed);
    // both buffers are read and written through the selector's branches
    expect((ptx.match(/ld\.global\.f64/g) ?? []).length).toBeGreaterThanOrEqual(2);
    expect((ptx.match(/st\.global\.f64/g) ?? []).length).toBeGreaterThanOrEqual(2);
    const choose = jit(
      (x: Float64Array, y: Float64Array, n: number) => {
        const i = cuda.grid(1);
        const a = n > 0 ? x : y;
        if (i < a.length) a[i] = a[i]! * n;
      },
      { target: 'simulator' },
    );
    compileAndAssemble(choose.compile([array('f64', 1), array('f64', 1), f64Scalar]).typed);
    const x = new Float64Array([1, 2, 3]);
    const y = new Float64Array([4, 5]);
    choose.launch({ grid: 1, block: 4 }, x, y, f64Scalar(-2));
    expect([...x, ...y]).toEqual([1, 2, 3, -8, -10]);
  });
});
