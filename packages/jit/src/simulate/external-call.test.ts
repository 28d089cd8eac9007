import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, test } from 'vitest';
import { SimulatorError } from '../errors.js';
import { arrayType, type JitType, type ScalarName } from '../typing/jit-types.js';
import type { Expr, ExternalCall } from '../typing/typed-ir.js';
import { externalResult } from './external-result.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  TextLocator,
  c,
  call,
  convert,
  expr,
  f32,
  get,
  globalIndexX,
  i32,
  i64,
  load,
  mload,
  pointerArg,
  set,
  special,
  store,
  syncthreads,
  valueArg,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

const external = (
  symbol: string,
  args: readonly JitType[],
  returns: ScalarName,
  simulate?: (...args: never[]) => unknown,
): ExternalCall => ({
  symbol,
  args,
  returns,
  link: [],
  ...(simulate ? { simulate } : {}),
});

describe('calls of linked code in the simulator', () => {
  test("call the declaration's simulate with the values, and round its result to the declared type", () => {
    // out[i] = mul_f32(x[i], 3)
    const b = new KernelBuilder();
    const x = b.array('x', 'f32');
    const out = b.array('out', 'f32');
    const MUL = external('mul_f32', ['f32', 'f32'], 'f32', (a: number, m: number) => a * m);
    const mul = b.external(MUL);
    const kernel = b.build([
      expr(
        store(
          out,
          'f32',
          [globalIndexX()],
          call(mul, MUL, [valueArg(load(x, 'f32', [globalIndexX()])), valueArg(f32(3))]),
        ),
      ),
    ]);
    const xs = Float32Array.from([0.1, 1 / 3, 1e30, 2]);
    const got = new Float32Array(4);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [4, 1, 1], [xs, got]);
    expect([...got]).toEqual([...xs].map((v) => Math.fround(v * 3)));
  });

  test('pass bool as a boolean, i64 and u64 as bigints (also where the simulator holds an i64 as a number), other scalars as numbers', () => {
    const seen: unknown[][] = [];
    const ALL = external('all', ['bool', 'i8', 'u16', 'i32', 'i64', 'u64', 'f64'], 'i32', (...args: unknown[]) => {
      seen.push(args);
      return 0;
    });
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const all = b.external(ALL);
    const args = [
      c('bool', true),
      c('i8', -5),
      c('u16', 65535),
      special('tid.x'),
      convert('i64', special('tid.x')),
      c('u64', 2n ** 64n - 1n),
      c('f64', 0.5),
    ];
    const kernel = b.build([expr(store(out, 'i32', [i32(0)], call(all, ALL, args.map(valueArg))))]);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [2, 1, 1], [new Int32Array(1)]);
    expect(seen).toEqual([
      [true, -5, 65535, 0, 0n, 2n ** 64n - 1n, 0.5],
      [true, -5, 65535, 1, 1n, 2n ** 64n - 1n, 0.5],
    ]);
  });

  test('round an f16 or bf16 result of a stand-in to its type, from a number or a bigint', () => {
    // out[i] = f32(half(i)) and f32(brain(i)), where the stand-ins give values that the types cannot hold
    const given = [1 + 2 ** -11, 1 + 3 * 2 ** -11, 70000, 2n ** 60n + 2n ** 52n + 1n, 2049n, true];
    const HALF = external('half', ['i32'], 'f16', (i: number) => given[i]);
    const BRAIN = external('brain', ['i32'], 'bf16', (i: number) => given[i]);
    const b = new KernelBuilder();
    const halves = b.array('halves', 'f32');
    const brains = b.array('brains', 'f32');
    const half = b.external(HALF);
    const brain = b.external(BRAIN);
    const i = globalIndexX();
    const kernel = b.build([
      expr(store(halves, 'f32', [i], convert('f32', call(half, HALF, [valueArg(i)])))),
      expr(store(brains, 'f32', [i], convert('f32', call(brain, BRAIN, [valueArg(i)])))),
    ]);
    const gotHalves = new Float32Array(given.length);
    const gotBrains = new Float32Array(given.length);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [given.length, 1, 1], [gotHalves, gotBrains]);
    expect([...gotHalves]).toEqual([1, 1 + 2 ** -9, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, 2048, 1]);
    expect([...gotBrains]).toEqual([1, 1, 70144, 2 ** 60 + 2 ** 53, 2048, 1]);
  });

  test('pass an array as its typed array from element 0, through which the stand-in reads and writes', () => {
    // fill(x, n): x[k] = x[k] * 10 + k for k < n; x is a view that starts at element 2 of its buffer
    const FILL = external('fill', [arrayType('f64', 1, 'C'), 'i32'], 'i32', (p: Float64Array, n: number) => {
      for (let k = 0; k < n; k++) p[k] = p[k]! * 10 + k;
      return p.length;
    });
    const b = new KernelBuilder();
    const x = b.array('x', 'f64');
    const out = b.array('out', 'i32');
    const fill = b.external(FILL);
    const kernel = b.build([expr(store(out, 'i32', [i32(0)], call(fill, FILL, [pointerArg(x), valueArg(i32(3))])))]);
    const buffer = new Float64Array([-1, -1, 1, 2, 3, -1]);
    const length = new Int32Array(1);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [buffer.subarray(2, 5), length]);
    expect([...buffer]).toEqual([-1, -1, 10, 21, 32, -1]);
    // the typed array runs from element 0 to the end of the buffer, as C's pointer does
    expect(length[0]).toBe(4);
  });

  test('pass shared arrays (in lockstep mode too), whose writes the block then reads', () => {
    // tile = shared f32[4]; if (tid == 0) setAll(tile, 7); syncthreads(); out[tid] = tile[tid]
    const SET = external('set_all', [arrayType('f32', 1, 'C'), 'f32'], 'bool', (p: Float32Array, v: number) => {
      p.fill(v);
      return true;
    });
    const b = new KernelBuilder();
    const out = b.array('out', 'f32');
    const tile = b.shared('tile', 'f32', 4);
    const done = b.local('done', 'bool');
    const setAll = b.external(SET);
    const tid = special('tid.x');
    const kernel = b.build([
      {
        op: 'if',
        test: { op: 'compare', type: 'bool', operator: 'eq', operandType: 'i32', left: tid, right: i32(0) },
        then: [expr(set(done, call(setAll, SET, [pointerArg(tile, 'shared'), valueArg(f32(7))])))],
        otherwise: [],
      },
      syncthreads(),
      expr(store(out, 'f32', [tid], mload('shared', tile, 'f32', [tid]))),
    ]);
    const got = new Float32Array(4);
    const simulated = new SimulatedKernel(kernel, NO_POSITIONS);
    expect(simulated.mode.lockstep).toBe(true);
    simulated.run([1, 1, 1], [4, 1, 1], [got]);
    expect([...got]).toEqual([7, 7, 7, 7]);
  });

  test('without a simulate function, fail at the call with its position and the thread', () => {
    const text = 'function k(x) {\n  x[0] = mul(x[0], 2);\n}';
    const locator = new TextLocator(text);
    const MUL = external('mul_f32', ['f32', 'f32'], 'f32');
    const b = new KernelBuilder();
    const x = b.array('x', 'f32');
    const mul = b.external(MUL);
    const kernel = b.build([
      expr(
        store(
          x,
          'f32',
          [i32(0)],
          call(mul, MUL, [valueArg(load(x, 'f32', [i32(0)])), valueArg(f32(2))], locator.loc('mul(')),
        ),
      ),
    ]);
    const simulated = new SimulatedKernel(kernel, locator);
    const error = errorOf<SimulatorError>(() => {
      simulated.run([1, 1, 1], [1, 1, 1], [new Float32Array(1)]);
    });
    expect(error).toBeInstanceOf(SimulatorError);
    expect(error!.detail).toBe(
      "'mul_f32' is linked device code; give declareDevice a { simulate } function to run it in the simulator, in thread (0, 0, 0) of block (0, 0, 0)",
    );
    expect({ file: error!.file, line: error!.line, column: error!.column }).toEqual({
      file: 'kernels/test-kernel.js',
      line: 2,
      column: 10,
    });
  });

  test('a kernel that never reaches the call runs; a stand-in that gives no number fails at the call', () => {
    const BAD = external('bad', [], 'i32', () => 'seven');
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const n = b.scalar('n', 'i32');
    const bad = b.external(BAD);
    const kernel = b.build([
      {
        op: 'if',
        test: { op: 'compare', type: 'bool', operator: 'gt', operandType: 'i32', left: get(n, 'i32'), right: i32(0) },
        then: [expr(store(out, 'i32', [i32(0)], call(bad, BAD, [])))],
        otherwise: [],
      },
    ]);
    const simulated = new SimulatedKernel(kernel, NO_POSITIONS);
    simulated.run([1, 1, 1], [1, 1, 1], [new Int32Array(1), 0]);
    expect(() => simulated.run([1, 1, 1], [1, 1, 1], [new Int32Array(1), 1])).toThrow(
      /the simulate function of 'bad' gave a string; it must give a number, a bigint or a boolean \(the i32 result\)/,
    );
  });

  test('name the call in the generated code by its fault site', () => {
    const MUL = external('mul_f32', ['f32', 'f32'], 'f32', (a: number) => a);
    const b = new KernelBuilder();
    const x = b.array('x', 'f32');
    const mul = b.external(MUL);
    const value: Expr = call(mul, MUL, [valueArg(load(x, 'f32', [i64(0)])), valueArg(f32(1))]);
    const source = new SimulatedKernel(b.build([expr(store(x, 'f32', [i64(0)], value))]), NO_POSITIONS).source;
    expect(source).toMatch(/callExternal\(\d+, \[/);
  });
});

describe('externalResult', () => {
  test('converts numbers as from f64: rounded to f32, truncated and saturated for integers, NaN 0', () => {
    expect(externalResult(0.1, 'f32')).toBe(Math.fround(0.1));
    expect(externalResult(0.1, 'f64')).toBe(0.1);
    expect(externalResult(3.7, 'i32')).toBe(3);
    expect(externalResult(-3.7, 'i32')).toBe(-3);
    expect(externalResult(300, 'u8')).toBe(255);
    expect(externalResult(-1, 'u32')).toBe(0);
    expect(externalResult(Number.NaN, 'i16')).toBe(0);
    expect(externalResult(2 ** 40, 'i64')).toBe(2n ** 40n);
    expect(externalResult(-5, 'u64')).toBe(0n);
    expect(externalResult(0, 'bool')).toBe(false);
    expect(externalResult(Number.NaN, 'bool')).toBe(false);
    expect(externalResult(-2, 'bool')).toBe(true);
  });

  test('converts bigints as integers (wrapping) and booleans as 0 or 1; refuses anything else', () => {
    expect(externalResult(-1n, 'u64')).toBe(2n ** 64n - 1n);
    expect(externalResult(2n ** 63n, 'i64')).toBe(-(2n ** 63n));
    expect(externalResult(257n, 'u8')).toBe(1);
    expect(externalResult(-1n, 'u16')).toBe(65535);
    expect(externalResult(2n ** 31n, 'i32')).toBe(-(2 ** 31));
    expect(externalResult(2n ** 60n + 1n, 'f32')).toBe(Math.fround(2 ** 60));
    expect(externalResult(3n, 'f64')).toBe(3);
    expect(externalResult(0n, 'bool')).toBe(false);
    expect(externalResult(true, 'i32')).toBe(1);
    expect(externalResult(true, 'u64')).toBe(1n);
    expect(externalResult(false, 'bool')).toBe(false);
    expect(externalResult(undefined, 'i32')).toBeUndefined();
    expect(externalResult('1', 'i32')).toBeUndefined();
  });

  test('rounds numbers to f16 and bf16 once, to nearest even, with overflow to infinity', () => {
    expect(externalResult(1 + 2 ** -11, 'f16')).toBe(1); // a tie: the even neighbour
    expect(externalResult(1 + 3 * 2 ** -11, 'f16')).toBe(1 + 2 ** -9);
    expect(externalResult(65519, 'f16')).toBe(65504);
    expect(externalResult(65520, 'f16')).toBe(Number.POSITIVE_INFINITY);
    expect(externalResult(2 ** -25, 'f16')).toBe(0); // half the least subnormal: a tie, to zero
    expect(externalResult(1 + 2 ** -8, 'bf16')).toBe(1);
    expect(externalResult(1 + 3 * 2 ** -8, 'bf16')).toBe(1 + 2 ** -6);
    expect(externalResult(-0.1, 'bf16')).toBe(-0.10009765625);
    expect(Number.isNaN(externalResult(Number.NaN, 'f16'))).toBe(true);
  });

  test('rounds bigints and booleans to f16 and bf16 once, not through a double', () => {
    expect(externalResult(2049n, 'f16')).toBe(2048); // a tie
    expect(externalResult(2051n, 'f16')).toBe(2052);
    expect(externalResult(65520n, 'f16')).toBe(Number.POSITIVE_INFINITY);
    expect(externalResult(-(2n ** 63n), 'f16')).toBe(Number.NEGATIVE_INFINITY);
    // just above a bf16 tie, by less than a double keeps: Number() would land on the tie, then round down to 2^60
    expect(externalResult(2n ** 60n + 2n ** 52n + 1n, 'bf16')).toBe(2 ** 60 + 2 ** 53);
    expect(externalResult(2n ** 60n + 2n ** 52n, 'bf16')).toBe(2 ** 60);
    expect(externalResult(true, 'f16')).toBe(1);
    expect(externalResult(false, 'bf16')).toBe(0);
  });
});
