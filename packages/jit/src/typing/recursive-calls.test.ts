// Recursive device functions (numba's recursion tests: fib with a declared
// and an inferred type, mutual recursion, a type that cannot be inferred):
// the simulator against plain-JS references, the GPU path through libNVVM
// and ptxas, and the named errors.
import { errorOf } from '@cuda-js/test-support/errors';
import { i32, i64 } from '@cuda-js/core';
import { describe, expect, test } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { cuda } from '../cuda.js';
import { device, type DeviceFunctionCallable } from '../device-function.js';
import { KernelTypeError, RecursionTypeError, SimulatorError } from '../errors.js';
import { jit } from '../jit.js';
import { compileAndAssemble, compileRequirements } from '../lower/compiled-kernel.test-support.js';
import { isRecursive } from './recursive-calls.js';
import { array } from './signature.js';
import { deviceFunctionOf } from '../device-function.js';

const fibRef = (n: number): number => (n < 2 ? n : fibRef(n - 1) + fibRef(n - 2));

// numba's fib2: the type is inferred from the return that does not recurse
const fib = device(function fib(n: number): number {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
});

// the idiomatic arrow: the base case is one branch of a conditional
const fibArrow: DeviceFunctionCallable<(n: number) => number> = device(
  (n: number): number => (n < 2 ? n : fibArrow(n - 1) + fibArrow(n - 2)),
  {
    name: 'fibArrow',
  },
);

// numba's fib1: a declared return type
const fibDeclared: DeviceFunctionCallable<(n: number) => number> = device(
  (n: number): number => {
    if (n < 2) return n;
    return fibDeclared(n - 1) + fibDeclared(n - 2);
  },
  { returns: i64, constants: () => ({ fibDeclared }) },
);

// mutual recursion (numba's outer_fac / inner_fac)
const innerFac: DeviceFunctionCallable<(n: number) => number> = device(
  (n: number): number => {
    if (n < 1) return 1;
    return n * outerFac(n - 1);
  },
  { name: 'innerFac', constants: () => ({ outerFac }) },
);
const outerFac: DeviceFunctionCallable<(n: number) => number> = device(
  (n: number): number => {
    if (n < 1) return 1;
    return n * innerFac(n - 1);
  },
  { name: 'outerFac', constants: { innerFac } },
);

const fibKernel = jit(
  (n: Int32Array, out: Int32Array, outArrow: Int32Array, outDeclared: Float64Array) => {
    const i = cuda.grid(1);
    if (i < n.length) {
      out[i] = fib(n[i]!);
      outArrow[i] = fibArrow(n[i]!);
      outDeclared[i] = fibDeclared(n[i]!);
    }
  },
  { target: 'simulator', constants: { fib, fibArrow, fibDeclared } },
);

const facKernel = jit(
  (n: Int32Array, out: Float64Array) => {
    const i = cuda.grid(1);
    if (i < n.length) out[i] = outerFac(cuda.f64(n[i]!));
  },
  { target: 'simulator', constants: { outerFac } },
);

const facRef = (n: number): number => (n < 1 ? 1 : n * facRef(n - 1));

describe('recursive device functions in the simulator', () => {
  test('self-recursion: fib inferred, fib as a conditional, fib with a declared i64 return, against plain JS', () => {
    const ns = Int32Array.from({ length: 16 }, (_, k) => k);
    const out = new Int32Array(16);
    const outArrow = new Int32Array(16);
    const outDeclared = new Float64Array(16);
    fibKernel.launch({ grid: 1, block: 16 }, ns, out, outArrow, outDeclared);
    const expected = [...ns].map(fibRef);
    expect([...out]).toEqual(expected);
    expect([...outArrow]).toEqual(expected);
    expect([...outDeclared]).toEqual(expected);
    const typed = fibKernel.compile([array('i32', 1), array('i32', 1), array('i32', 1), array('f64', 1)]).typed;
    expect(typed.functions?.map((f) => [f.name, f.returns])).toEqual([
      ['fib', 'i32'],
      ['fibArrow', 'i32'],
      ['fibDeclared', 'i64'],
    ]);
  });

  test('in a kernel with barriers (lockstep mode), with the thread position read in the function', () => {
    const depthSum: DeviceFunctionCallable<(n: number) => number> = device(
      (n: number): number => (n <= 0 ? cuda.threadIdx.x : n + depthSum(n - 1)),
      {
        constants: () => ({ depthSum }),
      },
    );
    const k = jit(
      (out: Int32Array) => {
        const sm = cuda.shared.array(64, cuda.i32);
        const t = cuda.threadIdx.x;
        sm[t] = depthSum(t % 8);
        cuda.syncthreads();
        out[t] = sm[63 - t]!;
      },
      { target: 'simulator', constants: { depthSum } },
    );
    const out = new Int32Array(64);
    k.launch({ grid: 1, block: 64 }, out);
    const ref = (t: number): number => ((t % 8) * ((t % 8) + 1)) / 2 + t;
    expect([...out]).toEqual(Array.from({ length: 64 }, (_, t) => ref(63 - t)));
  });

  test('mutual recursion: outerFac and innerFac, against plain JS', () => {
    const ns = Int32Array.from({ length: 12 }, (_, k) => k);
    const out = new Float64Array(12);
    facKernel.launch({ grid: 1, block: 12 }, ns, out);
    expect([...out]).toEqual([...ns].map(facRef));
    expect(isRecursive(deviceFunctionOf(outerFac)!)).toBe(true);
    expect(isRecursive(deviceFunctionOf(innerFac)!)).toBe(true);
  });

  test('one specialization per list of argument types', () => {
    const k = jit(
      (out: Float64Array) => {
        out[0] = fib(10);
        out[1] = fib(10.5);
      },
      { target: 'simulator', constants: { fib } },
    );
    const out = new Float64Array(2);
    k.launch({ grid: 1, block: 1 }, out);
    const fibF = (n: number): number => (n < 2 ? n : fibF(n - 1) + fibF(n - 2));
    expect([...out]).toEqual([55, fibF(10.5)]);
    expect(k.compile([array('f64', 1)]).typed.functions?.map((f) => f.returns)).toEqual(['i32', 'f64']);
  });

  test('each call has its own locals; a recursion that does not end is a SimulatorError at the bound, not a stack overflow', () => {
    const sumTo: DeviceFunctionCallable<(n: number) => number> = device(
      (n: number): number => {
        const here = n;
        if (n <= 0) return 0;
        const rest = sumTo(n - 1);
        return here + rest;
      },
      { name: 'sumTo', constants: () => ({ sumTo }) },
    );
    const forever: DeviceFunctionCallable<(n: number) => number> = device(
      (n: number): number => (n < -1 ? 0 : forever(n + 1)),
      {
        name: 'forever',
        constants: () => ({ forever }),
      },
    );
    const k = jit(
      (n: number, out: Int32Array) => {
        out[0] = sumTo(cuda.i32(n));
      },
      { target: 'simulator', constants: { sumTo } },
    );
    const out = new Int32Array(1);
    k.launch({ grid: 1, block: 1 }, i32(100), out);
    expect(out[0]).toBe(5050);
    const bad = jit(
      (out: Int32Array) => {
        out[0] = forever(0);
      },
      { target: 'simulator', constants: { forever } },
    );
    const error = errorOf<unknown>(() => {
      bad.launch({ grid: 1, block: 1 }, out);
    });
    expect(error).toBeInstanceOf(SimulatorError);
    expect((error as Error).message).toMatch(/the calls of 'forever' nest deeper than the simulator's bound of 1000/);
    expect((error as Error).message).toMatch(/recursive-calls\.test\.ts:\d+/);
  });

  test('a recursion whose return type cannot be inferred is a RecursionTypeError at the recursive call', () => {
    const loop: DeviceFunctionCallable<(n: number) => number> = device((n: number): number => loop(n - 1) + 1, {
      name: 'loop',
      constants: () => ({ loop }),
    });
    const k = jit(
      (out: Int32Array) => {
        out[0] = loop(3);
      },
      { target: 'simulator', constants: { loop } },
    );
    const error = errorOf<unknown>(() => {
      k.launch({ grid: 1, block: 1 }, new Int32Array(1));
    });
    expect(error).toBeInstanceOf(RecursionTypeError);
    expect(error).toBeInstanceOf(KernelTypeError);
    expect((error as Error).message).toMatch(
      /the return type of the recursive device function 'loop' cannot be inferred/,
    );
    expect((error as Error).message).toMatch(/returns: f64/);
    expect((error as Error).message).toMatch(/recursive-calls\.test\.ts:\d+:\d+/);
    // declared, the same function types (and recurses without end)
    const declared: DeviceFunctionCallable<(n: number) => number> = device((n: number): number => declared(n - 1) + 1, {
      name: 'declared',
      returns: 'i32',
      constants: () => ({ declared }),
    });
    const typed = jit(
      (out: Int32Array) => {
        out[0] = declared(3);
      },
      { target: 'simulator', constants: { declared } },
    ).compile([array('i32', 1)]).typed;
    expect(typed.functions?.[0]?.returns).toBe('i32');
  });

  test('arrays and collectives in a recursive function are refused, naming the function', () => {
    const withArray: DeviceFunctionCallable<(a: Int32Array, n: number) => number> = device(
      (a: Int32Array, n: number): number => (n <= 0 ? 0 : a[n]! + withArray(a, n - 1)),
      {
        name: 'withArray',
        constants: () => ({ withArray }),
      },
    );
    const k = jit(
      (a: Int32Array) => {
        a[0] = withArray(a, 3);
      },
      { target: 'simulator', constants: { withArray } },
    );
    expect(() => k.compile([array('i32', 1)])).toThrow(
      /'withArray' is a recursive device function: it takes scalar arguments only/,
    );
    const syncing: DeviceFunctionCallable<(n: number) => number> = device(
      (n: number): number => {
        cuda.syncthreads();
        return n <= 0 ? 0 : syncing(n - 1);
      },
      { name: 'syncing', constants: () => ({ syncing }) },
    );
    const s = jit(
      (a: Int32Array) => {
        a[0] = syncing(3);
      },
      { target: 'simulator', constants: { syncing } },
    );
    expect(() => s.compile([array('i32', 1)])).toThrow(
      /a block barrier or vote in the recursive device function 'syncing'/,
    );
  });
});

describeWhen(compileRequirements, 'recursive device functions through libNVVM and ptxas', () => {
  test('fib, mutual recursion and a void recursion compile to PTX functions that call themselves', () => {
    const { ir, ptx } = compileAndAssemble(
      fibKernel.compile([array('i32', 1), array('i32', 1), array('i32', 1), array('f64', 1)]).typed,
    );
    expect(ir).toMatch(/define internal i32 @\S+\$fib\$0\(i32 %a0\)/);
    expect(ir).toMatch(/define internal i64 @\S+\$fibDeclared\$2\(i32 %a0\)/);
    expect(ptx).toMatch(/\.func\s+\(\.param\s+\.b32\s+\S+\)\s+\S*\$fib\$0/);
    expect(ptx).toMatch(/call\.uni[^;]*\$fib\$0/);
    const fac = compileAndAssemble(facKernel.compile([array('i32', 1), array('f64', 1)]).typed);
    expect(fac.ptx).toMatch(/\$outerFac\$0/);
    expect(fac.ptx).toMatch(/\$innerFac\$1/);
    const countDown: DeviceFunctionCallable<(n: number, out: number) => void> = device(
      (n: number, out: number): void => {
        if (n > 0) countDown(n - 1, out);
      },
      { name: 'countDown', constants: () => ({ countDown }) },
    );
    const v = jit(
      (a: Int32Array) => {
        countDown(a.length, 0);
        a[0] = 1;
      },
      { target: 'simulator', constants: { countDown } },
    ).compile([array('i32', 1)]).typed;
    expect(v.functions?.[0]?.returns).toBeUndefined();
    expect(compileAndAssemble(v).ir).toMatch(/define internal void @\S+\$countDown\$0\(i32 %a0, i32 %a1\)/);
  });
});

describe("the README's recursion example", () => {
  test('fib and isEven/isOdd in the simulator, against plain JS', () => {
    const fib = device(function fib(n: number): number {
      if (n < 2) return n;
      return fib(n - 1) + fib(n - 2);
    });
    const isEven: DeviceFunctionCallable<(n: number) => boolean> = device(
      (n: number): boolean => (n === 0 ? true : isOdd(n - 1)),
      { constants: () => ({ isOdd }) },
    );
    const isOdd = device((n: number): boolean => (n === 0 ? false : isEven(n - 1)), { constants: { isEven } });
    const fibs = jit(
      (out: Int32Array, parity: Uint8Array) => {
        const i = cuda.grid(1);
        if (i < out.length) {
          out[i] = fib(i);
          parity[i] = isEven(i) ? 1 : 0;
        }
      },
      { target: 'simulator', constants: { fib, isEven } },
    );
    const out = new Int32Array(20);
    const parity = new Uint8Array(20);
    fibs.launch({ grid: 1, block: 32 }, out, parity);
    expect([...out]).toEqual(Array.from({ length: 20 }, (_, k) => fibRef(k)));
    expect([...parity]).toEqual(Array.from({ length: 20 }, (_, k) => (k % 2 === 0 ? 1 : 0)));
  });
});
