import { errorOf } from '@cuda-js/test-support/errors';
import {
  bool as boolScalar,
  f32 as f32Scalar,
  f64 as f64Scalar,
  i32 as i32Scalar,
  i64 as i64Scalar,
  u8 as u8Scalar,
  u64 as u64Scalar,
} from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { describe, expect, test } from 'vitest';
import { KernelArgumentError, SimulatorError } from '../errors.js';
import type { ScalarName } from '../typing/jit-types.js';
import { KernelBuilder, NO_POSITIONS, convert, expr, f64, get, i32, store } from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

/** A kernel that stores its one scalar parameter (as f64, or as itself for 64-bit integers) and gives back what it received. */
function received(paramType: ScalarName, argument: unknown): number | bigint | boolean {
  const b = new KernelBuilder();
  const s = b.scalar('s', paramType);
  const wide = paramType === 'i64' || paramType === 'u64';
  const out = b.array('out', wide ? paramType : 'f64');
  const value = get(s, paramType);
  const kernel = b.build([
    expr(store(out, wide ? paramType : 'f64', [i32(0)], wide || paramType === 'f64' ? value : convert('f64', value))),
  ]);
  const host =
    paramType === 'i64' ? new BigInt64Array(1) : paramType === 'u64' ? new BigUint64Array(1) : new Float64Array(1);
  new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [argument, host]);
  const v = host[0]!;
  return paramType === 'bool' ? v === 1 : v;
}

describe('scalar arguments', () => {
  test('numbers convert to the parameter type', () => {
    expect(received('f32', 0.1)).toBe(Math.fround(0.1));
    expect(received('f64', 0.1)).toBe(0.1);
    expect(received('i32', 2 ** 31)).toBe(-(2 ** 31));
    expect(received('u32', 2 ** 32 + 1)).toBe(1);
    expect(received('u32', -1)).toBe(2 ** 32 - 1);
    expect(received('i8', 300)).toBe(44);
    expect(received('u8', -1)).toBe(255);
    expect(received('i16', 32768)).toBe(-32768);
    expect(received('u16', 65536 + 7)).toBe(7);
    expect(Object.is(received('i32', -0), 0)).toBe(true);
    expect(received('i64', -5)).toBe(-5n);
    expect(received('u64', -1)).toBe(2n ** 64n - 1n);
    expect(received('i64', 2 ** 63)).toBe(-(2n ** 63n));
    expect(received('bool', 2)).toBe(true);
    expect(received('bool', NaN)).toBe(false);
  });

  test('bigints and booleans', () => {
    expect(received('i64', 2n ** 63n)).toBe(-(2n ** 63n));
    expect(received('u64', -1n)).toBe(2n ** 64n - 1n);
    expect(received('i32', 2n ** 32n + 3n)).toBe(3);
    expect(received('u8', 257n)).toBe(1);
    expect(received('f64', 2n ** 53n + 1n)).toBe(2 ** 53);
    expect(received('f32', 2n ** 53n + 2n ** 29n + 1n)).toBe(2 ** 53 + 2 ** 30);
    expect(received('bool', 0n)).toBe(false);
    expect(received('i32', true)).toBe(1);
    expect(received('f32', false)).toBe(0);
    expect(received('i64', true)).toBe(1n);
    expect(received('bool', true)).toBe(true);
  });

  test('typed scalars from core', () => {
    expect(received('f32', f32Scalar(2.1))).toBe(Math.fround(2.1));
    expect(received('f64', f64Scalar(2.1))).toBe(2.1);
    expect(received('i32', i32Scalar(-7))).toBe(-7);
    expect(received('u8', u8Scalar(255))).toBe(255);
    expect(received('i64', i64Scalar(-(2n ** 63n)))).toBe(-(2n ** 63n));
    expect(received('u64', u64Scalar(2n ** 64n - 1n))).toBe(2n ** 64n - 1n);
    expect(received('bool', boolScalar(true))).toBe(true);
    expect(received('bool', boolScalar(false))).toBe(false);
  });

  test('what no integer parameter can take', () => {
    expect(() => received('i32', 2.5)).toThrow(KernelArgumentError);
    expect(() => received('i32', 2.5)).toThrow("argument 1 ('s', i32) is 2.5, which is not an integer");
    expect(() => received('u64', NaN)).toThrow(/is NaN, which is not an integer/);
    expect(() => received('i8', Infinity)).toThrow(/is Infinity, which is not an integer/);
    expect(() => received('f32', '1')).toThrow(
      "argument 1 ('s', f32) takes a number, a bigint, a boolean or a typed scalar such as f32(…), got string",
    );
    expect(() => received('f32', null)).toThrow(/got null/);
    expect(() => received('f32', new Float32Array(1))).toThrow(/got \[object Float32Array\]/);
  });
});

describe('array arguments', () => {
  function writer(dtype: ScalarName = 'f64', ndim: 1 | 2 | 3 = 1, layout: 'C' | 'F' | 'A' = 'C') {
    const b = new KernelBuilder();
    const out = b.array('out', dtype, ndim, layout);
    const zero = Array.from({ length: ndim }, () => i32(0));
    return new SimulatedKernel(b.build([expr(store(out, 'f64', zero, f64(1)))]), NO_POSITIONS);
  }
  const run = (sim: SimulatedKernel, arg: unknown) => sim.run([1, 1, 1], [1, 1, 1], [arg]);

  test('memory is used in place, whatever views it', () => {
    const data = new Float64Array(3);
    run(writer(), data);
    run(writer(), StridedMemoryView.fromBuffer(data, { dtype: 'float64' }).slice([1, 3]));
    expect([...data]).toEqual([1, 1, 0]);
    const shared = new Float64Array(new SharedArrayBuffer(16));
    run(writer(), shared);
    expect(shared[0]).toBe(1);
  });

  test('two parameters may share memory', () => {
    const b = new KernelBuilder();
    const x = b.array('x', 'f64', 1, 'C', { readonly: true });
    const y = b.array('y', 'f64');
    const t = { op: 'special', type: 'i32', register: 'tid.x' } as const;
    const load1 = { op: 'load', type: 'f64', ref: { array: x, indices: [convert('i64', t)] } } as const;
    const kernel = b.build([
      expr(store(y, 'f64', [{ op: 'binary', type: 'i32', operator: 'add', left: t, right: i32(1) }], load1)),
    ]);
    const data = new Float64Array([1, 2, 3, 4]);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [3, 1, 1], [data, data]);
    expect([...data]).toEqual([1, 1, 1, 1]); // threads run in order: each reads what the previous one wrote
  });

  test('refused: another dtype, ndim or layout than the kernel was specialized for', () => {
    expect(() => run(writer('f64'), new Float32Array(2))).toThrow(
      "argument 1 ('out', array(f64, 1, 'C')) holds float32; the kernel was specialized for float64",
    );
    expect(() => run(writer('f64', 2), new Float64Array(4))).toThrow(
      "argument 1 ('out', array(f64, 2, 'C')) has 1 dimension(s); the kernel was specialized for 2",
    );
    const strided = StridedMemoryView.fromBuffer(new Float64Array(4), { dtype: 'float64' }).slice([0, 4, 2]);
    expect(() => run(writer('f64', 1, 'C'), strided)).toThrow(
      "argument 1 ('out', array(f64, 1, 'C')) has strides [2] for shape [2], which are not layout 'C'",
    );
    const rowMajor = StridedMemoryView.fromBuffer(new Float64Array(6), { dtype: 'float64', shape: [2, 3] });
    expect(() => run(writer('f64', 2, 'F'), rowMajor)).toThrow(
      /has strides \[3, 1\] for shape \[2, 3\], which are not layout 'F'/,
    );
    expect(() => run(writer('f64', 2, 'C'), rowMajor)).not.toThrow();
    expect(() => run(writer('f64', 2, 'A'), rowMajor)).not.toThrow();
  });

  test('refused: read-only memory for an array the kernel writes', () => {
    const readonly = StridedMemoryView.fromBuffer(new Float64Array(2), { dtype: 'float64', readonly: true });
    expect(() => run(writer(), readonly)).toThrow(
      "argument 1 ('out', array(f64, 1, 'C')) is read-only, and the kernel writes it",
    );
  });

  test('refused: device memory, which the CPU cannot reach', () => {
    const device = StridedMemoryView.fromPointer(0x7f0000000000n, { dtype: 'float64', shape: [4] });
    const error = errorOf<unknown>(() => {
      run(writer(), device);
    });
    expect(error).toBeInstanceOf(KernelArgumentError);
    expect((error as KernelArgumentError).message).toMatch(
      /^argument 1 \('out', array\(f64, 1, 'C'\)\) is memory on CUDA:0, not in a JS buffer: the simulator .* needs host memory/,
    );
    expect((error as KernelArgumentError).file).toBeUndefined();
  });

  test('refused: what is no array, misaligned memory, extents of 2^31 and more', () => {
    expect(() => run(writer(), {})).toThrow(
      /^argument 1 \('out', array\(f64, 1, 'C'\)\) cannot be viewed as an array: /,
    );
    expect(() => run(writer(), 3)).toThrow(/cannot be viewed as an array/);
    const misaligned = StridedMemoryView.fromBuffer(new ArrayBuffer(20), {
      dtype: 'float64',
      byteOffset: 4,
      shape: [2],
    });
    expect(() => run(writer(), misaligned)).toThrow(
      "argument 1 ('out', array(f64, 1, 'C')) starts at byte 4, which is not aligned to its 8-byte elements",
    );
    const huge = StridedMemoryView.fromBuffer(new Float64Array(1), {
      dtype: 'float64',
      shape: [2 ** 31],
      strides: [0],
    });
    expect(() => run(writer('f64', 1, 'A'), huge)).toThrow(
      /has extent 2147483648 in dimension 0; kernels take extents below 2\^31/,
    );
  });
});

describe('run', () => {
  const kernel = (() => {
    const b = new KernelBuilder();
    b.scalar('a', 'f32');
    b.array('x', 'f32');
    return new SimulatedKernel(b.build([], 'two'), NO_POSITIONS);
  })();

  test('refuses a wrong argument count', () => {
    expect(() => kernel.run([1, 1, 1], [1, 1, 1], [1])).toThrow(
      new KernelArgumentError('two takes 2 argument(s) (a, x), got 1'),
    );
  });

  test('refuses grids and blocks that are not three positive integers', () => {
    const args = [1, new Float32Array(1)];
    expect(() => kernel.run([0, 1, 1], [1, 1, 1], args)).toThrow(
      'the grid must be three positive integers [x, y, z], got [0,1,1]',
    );
    expect(() => kernel.run([1, 1, 1], [1.5, 1, 1], args)).toThrow(/the block must be three positive integers/);
    expect(() => kernel.run([1, 1] as unknown as [number, number, number], [1, 1, 1], args)).toThrow(
      /the grid must be/,
    );
    expect(() => kernel.run([2 ** 31, 1, 1], [1, 1, 1], args)).toThrow(/the grid must be/);
    expect(() => kernel.run([1, 1, 1], [1, 1, 1], args)).not.toThrow();
  });
});

// Issue 20: `while (true) {}` never returned; a launch now has a budget of loop iterations and says where it stopped.
describe('the simulator budget', () => {
  const forever = (): SimulatedKernel => {
    const b = new KernelBuilder();
    const out = b.array('out', 'f64');
    const loop = {
      op: 'loop',
      id: 0,
      test: undefined,
      body: [expr(store(out, 'f64', [i32(0)], f64(1)))],
      update: [],
      postTest: undefined,
    } as const;
    return new SimulatedKernel(b.build([loop]), NO_POSITIONS);
  };

  test('stops a loop that never ends with a SimulatorError naming the budget, and runs again with a fresh one', () => {
    const kernel = forever();
    const out = new Float64Array(1);
    expect(() => kernel.run([1, 1, 1], [2, 1, 1], [out], { simulatorBudget: 1000 })).toThrow(SimulatorError);
    expect(() => kernel.run([1, 1, 1], [2, 1, 1], [out], { simulatorBudget: 1000 })).toThrow(
      /ran out of its simulator budget of 1000 loop iterations/,
    );
    expect(out[0]).toBe(1); // the iterations before the budget ran
  });

  test('takes the budget from CUDA_JS_SIMULATOR_BUDGET, and refuses one that is no positive integer', () => {
    const kernel = forever();
    const previous = process.env['CUDA_JS_SIMULATOR_BUDGET'];
    try {
      process.env['CUDA_JS_SIMULATOR_BUDGET'] = '500';
      expect(() => kernel.run([1, 1, 1], [1, 1, 1], [new Float64Array(1)])).toThrow(/budget of 500 loop iterations/);
      process.env['CUDA_JS_SIMULATOR_BUDGET'] = 'lots';
      expect(() => kernel.run([1, 1, 1], [1, 1, 1], [new Float64Array(1)])).toThrow(KernelArgumentError);
    } finally {
      if (previous === undefined) delete process.env['CUDA_JS_SIMULATOR_BUDGET'];
      else process.env['CUDA_JS_SIMULATOR_BUDGET'] = previous;
    }
    expect(() => kernel.run([1, 1, 1], [1, 1, 1], [new Float64Array(1)], { simulatorBudget: 0 })).toThrow(
      /simulatorBudget must be a positive whole number/,
    );
  });
});
