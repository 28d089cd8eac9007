import { describe, expect, test } from 'vitest';
import {
  KernelBuilder,
  NO_POSITIONS,
  binary,
  bool,
  compare,
  convert,
  evaluate,
  expr,
  f32,
  f64,
  get,
  i32,
  i64,
  load,
  logical,
  select,
  sequence,
  set,
  store,
  u64,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

describe("logical and select are lazy and keep JavaScript's values", () => {
  test('and / or on bools', () => {
    for (const a of [false, true]) {
      for (const c of [false, true]) {
        expect(evaluate('bool', () => logical('and', bool(a), bool(c)))).toBe(a && c);
        expect(evaluate('bool', () => logical('or', bool(a), bool(c)))).toBe(a || c);
      }
    }
  });

  test('and / or on numbers give an operand: truthy is x != 0, NaN is false', () => {
    expect(evaluate('f64', () => logical('and', f64(2), f64(3)))).toBe(3);
    expect(evaluate('f64', () => logical('and', f64(0), f64(3)))).toBe(0);
    expect(evaluate('f64', () => logical('or', f64(NaN), f64(3)))).toBe(3);
    expect(
      Object.is(
        evaluate('f64', () => logical('or', f64(0), f64(-0))),
        -0,
      ),
    ).toBe(true);
    expect(evaluate('f32', () => logical('or', f32(1.5), f32(3)))).toBe(1.5);
    expect(evaluate('i32', () => logical('and', i32(-1), i32(7)))).toBe(7);
    expect(evaluate('i64', () => logical('or', i64(0n), i64(2n ** 62n)))).toBe(2n ** 62n);
    expect(evaluate('i64', () => logical('and', convert('i64', i32(4)), i64(2n ** 62n)))).toBe(2n ** 62n);
    expect(evaluate('i64', () => logical('or', convert('i64', i32(4)), convert('i64', i32(5))))).toBe(4n);
    expect(evaluate('u64', () => logical('and', u64(1n), u64(0n)))).toBe(0n);
  });

  test('the right side and the branch not taken are not evaluated', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const t = b.local('t', 'i32');
    const bump = (v: number) => compare('eq', set(t, binary('add', get(t, 'i32'), i32(v))), i32(-1)); // false, with an effect
    const kernel = b.build([
      expr(logical('and', bool(false), bump(1))),
      expr(logical('or', bool(true), bump(10))),
      expr(logical('and', bool(true), bump(100))),
      expr(select(bool(true), bump(1000), bump(10000))),
      expr(store(out, 'i32', [i32(0)], get(t, 'i32'))),
    ]);
    const host = new Int32Array(1);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [host]);
    expect(host[0]).toBe(1100);
  });

  test('select of every representation', () => {
    expect(evaluate('f64', () => select(bool(false), f64(1), f64(2)))).toBe(2);
    expect(evaluate('i64', () => select(bool(true), convert('i64', i32(-3)), i64(2n ** 62n)))).toBe(-3n);
    expect(evaluate('i64', () => select(bool(false), convert('i64', i32(-3)), convert('i64', i32(9))))).toBe(9n);
    expect(evaluate('bool', () => select(compare('lt', i32(1), i32(2)), bool(true), bool(false)))).toBe(true);
  });
});

describe('assign and sequence', () => {
  test('an assignment is an expression whose value is the value assigned', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i64');
    const x = b.local('x', 'i64');
    const y = b.local('y', 'i64');
    const kernel = b.build([
      // out[0] = (y = (x = 2^62) + 1); out[1] = x
      expr(store(out, 'i64', [i32(0)], set(y, binary('add', set(x, i64(2n ** 62n)), i64(1n))))),
      expr(store(out, 'i64', [i32(1)], get(x, 'i64'))),
      expr(store(out, 'i64', [i32(2)], get(y, 'i64'))),
    ]);
    const host = new BigInt64Array(3);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [host]);
    expect([...host]).toEqual([2n ** 62n + 1n, 2n ** 62n, 2n ** 62n + 1n]);
  });

  test('a sequence runs its effects in order, then has its value (postfix ++)', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const k = b.local('k', 'i32');
    const old = b.local('old', 'i32');
    // out[k++] = 7 as the typer writes it: (old = k, k = old + 1, old)
    const postIncrement = sequence(
      [set(old, get(k, 'i32')), set(k, binary('add', get(old, 'i32'), i32(1)))],
      get(old, 'i32'),
    );
    const kernel = b.build([
      expr(store(out, 'i32', [postIncrement], i32(7))),
      expr(store(out, 'i32', [postIncrement], i32(8))),
      expr(store(out, 'i32', [i32(2)], get(k, 'i32'))),
    ]);
    const host = new Int32Array(3);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [host]);
    expect([...host]).toEqual([7, 8, 2]);
  });

  test('a sequence whose value is an i64 constant still runs its effects where a bigint is needed', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i64');
    const t = b.local('t', 'i32');
    const kernel = b.build([
      expr(store(out, 'i64', [i32(0)], binary('mul', sequence([set(t, i32(5))], i64(3n)), i64(2n ** 60n)))),
      expr(store(out, 'i64', [i32(1)], convert('i64', get(t, 'i32')))),
    ]);
    const host = new BigInt64Array(2);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [host]);
    expect([...host]).toEqual([3n * 2n ** 60n, 5n]);
  });

  test('a store is an expression whose value is the stored value', () => {
    const b = new KernelBuilder();
    const x = b.array('x', 'f32');
    const y = b.array('y', 'f32');
    const kernel = b.build([expr(store(y, 'f32', [i32(0)], store(x, 'f32', [i32(0)], load(y, 'f32', [i32(1)]))))]);
    const xs = new Float32Array(1);
    const ys = new Float32Array([0, 2.5]);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [xs, ys]);
    expect([xs[0], ys[0]]).toEqual([2.5, 2.5]);
  });
});
