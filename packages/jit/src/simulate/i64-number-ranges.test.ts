import { describe, expect, test } from 'vitest';
import type { Expr } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  binary,
  compare,
  convert,
  dim,
  expr,
  get,
  globalIndexX,
  i32,
  i64,
  load,
  loop,
  select,
  sequence,
  set,
  store,
  u64,
  when,
} from './ir-builders.test-support.js';
import { I64NumberRanges } from './i64-number-ranges.js';
import { SimulatedKernel } from './simulated-kernel.js';

describe('which i64 values are exact JS numbers', () => {
  const b = new KernelBuilder();
  const n = b.scalar('n', 'i64');
  const x = b.array('x', 'f32');
  const i = b.local('i', 'i32');
  const index = b.local('$index', 'i64');
  const scaled = b.local('scaled', 'i64');
  const counter = b.local('counter', 'i64');
  const wide = (e: Expr): Expr => convert('i64', e);
  const kernel = b.build([
    expr(set(index, wide(get(i, 'i32')))),
    expr(set(scaled, binary('add', binary('mul', get(index, 'i64'), i64(3n)), get(index, 'i64')))),
    expr(set(counter, binary('add', get(counter, 'i64'), i64(1n)))),
  ]);
  const ranges = new I64NumberRanges(kernel);

  test('conversions of i32 and narrower, small constants, extents, and their sums and products', () => {
    expect(ranges.bound(wide(get(i, 'i32')))).toBe(2 ** 31);
    expect(ranges.bound(wide({ op: 'const', type: 'u32', value: 1 }))).toBe(2 ** 32 - 1);
    expect(ranges.bound(wide({ op: 'const', type: 'u8', value: 1 }))).toBe(255);
    expect(ranges.bound(wide({ op: 'const', type: 'bool', value: true }))).toBe(1);
    expect(ranges.bound(i64(-7n))).toBe(7);
    expect(ranges.bound(i64(2n ** 53n))).toBeUndefined();
    expect(ranges.bound(dim(x, 'shape', 0))).toBe(2 ** 31 - 1);
    expect(ranges.bound(binary('add', wide(i32(0)), dim(x, 'shape', 0)))).toBe(2 ** 31 + 2 ** 31 - 1);
    expect(ranges.bound(binary('mul', wide(i32(0)), i64(1000n)))).toBe(2 ** 31 * 1000);
    expect(ranges.bound({ op: 'unary', type: 'i64', operator: 'neg', operand: wide(i32(0)) })).toBe(2 ** 31);
    expect(ranges.bound(select(compare('lt', i32(0), i32(1)), wide(i32(0)), i64(5n)))).toBe(2 ** 31);
    expect(ranges.bound(sequence([i32(1)], i64(5n)))).toBe(5);
  });

  test('not: products that may pass 2^53, division, bitwise operations, loads, u64, floats', () => {
    expect(ranges.bound(binary('mul', wide(i32(0)), wide(i32(0))))).toBeUndefined();
    expect(ranges.bound(binary('div', wide(i32(0)), i64(2n)))).toBeUndefined();
    expect(ranges.bound(binary('and', wide(i32(0)), i64(2n)))).toBeUndefined();
    expect(ranges.bound(convert('i64', u64(1n)))).toBeUndefined();
    expect(ranges.bound(convert('i64', { op: 'const', type: 'f64', value: 1 }))).toBeUndefined();
    expect(ranges.bound(u64(1n))).toBeUndefined();
    expect(ranges.bound(select(compare('lt', i32(0), i32(1)), wide(i32(0)), i64(2n ** 60n)))).toBeUndefined();
  });

  test('locals: an index temporary and values made from it; not a counter that feeds itself, nor a parameter', () => {
    expect(ranges.isNumberLocal(index)).toBe(true);
    expect(ranges.bound(get(index, 'i64'))).toBe(2 ** 31);
    expect(ranges.isNumberLocal(scaled)).toBe(true);
    expect(ranges.bound(get(scaled, 'i64'))).toBe(2 ** 31 * 3 + 2 ** 31);
    expect(ranges.isNumberLocal(counter)).toBe(false);
    expect(ranges.isNumberLocal(n)).toBe(false);
  });
});

describe('generated code', () => {
  test("the typer's compound store (y[i] += a * x[i]) indexes with numbers", () => {
    const b = new KernelBuilder();
    const a = b.scalar('a', 'f32');
    const x = b.array('x', 'f32', 1, 'C', { readonly: true });
    const y = b.array('y', 'f32');
    const i = b.local('i', 'i32');
    const index = b.local('$index', 'i64');
    const at = get(index, 'i64');
    const kernel = b.build([
      expr(set(i, globalIndexX())),
      when(compare('lt', get(i, 'i32'), convert('i32', dim(y, 'shape', 0))), [
        expr(
          sequence(
            [set(index, convert('i64', get(i, 'i32')))],
            store(
              y,
              'f32',
              [at],
              binary('add', load(y, 'f32', [at]), binary('mul', get(a, 'f32'), load(x, 'f32', [get(i, 'i32')]))),
            ),
          ),
        ),
      ]),
    ]);
    const sim = new SimulatedKernel(kernel, NO_POSITIONS);
    expect(sim.source).not.toMatch(/BigInt|Number\(|0n/);
    const ys = new Float32Array([1, 2, 3, 4, 5]);
    sim.run([2, 1, 1], [4, 1, 1], [0.5, new Float32Array([10, 20, 30, 40, 50]), ys]);
    expect([...ys]).toEqual([6, 12, 18, 24, 30]);
  });

  test('an i64 counter that passes 2^53 stays exact (a bigint)', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i64');
    const k = b.local('k', 'i64');
    const step = b.local('step', 'i32');
    const kv = get(k, 'i64');
    const kernel = b.build([
      expr(set(k, i64(2n ** 53n - 2n))),
      loop(0, {
        test: compare('lt', get(step, 'i32'), i32(4)),
        body: [expr(set(k, binary('add', kv, i64(1n))))],
        update: [expr(set(step, binary('add', get(step, 'i32'), i32(1))))],
      }),
      expr(store(out, 'i64', [i32(0)], kv)),
    ]);
    const host = new BigInt64Array(1);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [host]);
    expect(host[0]).toBe(2n ** 53n + 2n);
  });
});
