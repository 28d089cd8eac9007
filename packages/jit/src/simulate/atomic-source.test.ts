import { describe, expect, test } from 'vitest';
import { isHalf, type ScalarName } from '../typing/jit-types.js';
import { ATOMIC_TYPES, type AtomicFunction, type Expr, type MemorySpace, type Stmt } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  atomic,
  compare,
  expr,
  get,
  i32,
  load,
  mload,
  mstore,
  set,
  special,
  store,
  syncthreads,
  when,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

type Value = number | bigint;
type Host = Int32Array | Uint32Array | BigInt64Array | BigUint64Array | Float32Array | Float64Array;

const ARRAYS: Record<string, new (n: number) => Host> = {
  i32: Int32Array,
  u32: Uint32Array,
  i64: BigInt64Array,
  u64: BigUint64Array,
  f32: Float32Array,
  f64: Float64Array,
};

/** The type's value of x, as the element would hold it. */
function wrap(type: ScalarName, x: Value): Value {
  switch (type) {
    case 'i32':
      return Number(x) | 0;
    case 'u32':
      return Number(x) >>> 0;
    case 'i64':
      return BigInt.asIntN(64, BigInt(x));
    case 'u64':
      return BigInt.asUintN(64, BigInt(x));
    case 'f32':
      return Math.fround(Number(x));
    default:
      return Number(x);
  }
}

/** typed-ir.ts's table, written out for the reference. */
function reference(fn: AtomicFunction, type: ScalarName, o: Value, v: Value, c: Value): Value {
  const big = typeof o === 'bigint';
  const float = type === 'f32' || type === 'f64';
  const O = o as number;
  const V = v as number;
  switch (fn) {
    case 'add':
      return big ? wrap(type, (o as bigint) + (v as bigint)) : wrap(type, O + V);
    case 'sub':
      return big ? wrap(type, (o as bigint) - (v as bigint)) : wrap(type, O - V);
    case 'min':
      return float ? (O < V || Number.isNaN(O) ? O : V) : o < v ? o : v;
    case 'max':
      return float ? (O > V || Number.isNaN(O) ? O : V) : o > v ? o : v;
    case 'nanmin':
      return float ? (O < V || Number.isNaN(V) ? O : V) : o < v ? o : v;
    case 'nanmax':
      return float ? (O > V || Number.isNaN(V) ? O : V) : o > v ? o : v;
    case 'and':
      return big ? (o as bigint) & (v as bigint) : wrap(type, O & V);
    case 'or':
      return big ? (o as bigint) | (v as bigint) : wrap(type, O | V);
    case 'xor':
      return big ? (o as bigint) ^ (v as bigint) : wrap(type, O ^ V);
    case 'exch':
      return v;
    case 'inc':
      return o >= v ? (big ? 0n : 0) : big ? (o as bigint) + 1n : O + 1;
    case 'dec':
      return o === (big ? 0n : 0) || o > v ? v : big ? (o as bigint) - 1n : O - 1;
    case 'cas':
      return o === c ? v : o;
  }
}

/** Deterministic values of each type, with the edges. */
function values(type: ScalarName, fn: AtomicFunction, n: number): Value[] {
  let seed = 12345;
  const next = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  const small = fn === 'inc' || fn === 'dec';
  const out: Value[] = [];
  for (let t = 0; t < n; t++) {
    const r = next();
    switch (type) {
      case 'i32':
        out.push(t === 1 ? -(2 ** 31) : t === 2 ? 2 ** 31 - 1 : r | 0);
        break;
      case 'u32':
        out.push(small ? r % 7 : t === 1 ? 2 ** 32 - 1 : r);
        break;
      case 'i64':
        out.push(
          t === 1 ? -(2n ** 63n) : t === 2 ? 2n ** 63n - 1n : BigInt.asIntN(64, (BigInt(r) << 33n) ^ BigInt(next())),
        );
        break;
      case 'u64':
        out.push(small ? BigInt(r % 7) : t === 1 ? 2n ** 64n - 1n : (BigInt(r) << 32n) | BigInt(next()));
        break;
      case 'f32':
        out.push([NaN, -0, Infinity, -Infinity][t % 11] ?? Math.fround((r / 2 ** 32 - 0.5) * 1e6));
        break;
      default:
        out.push([NaN, -0, Infinity, -Infinity][t % 11] ?? (r / 2 ** 32 - 0.5) * 1e300 ** ((t % 3) / 3));
    }
  }
  return out;
}

const INITIAL: Record<string, Value> = { i32: 5, u32: 3, i64: 2n ** 60n, u64: 4n, f32: 1.5, f64: 0.1 };
const THREADS = 40;

/**
 * olds[t] = atomic(fn, element, vals[t], cmps[t]) by THREADS threads of one
 * block, on an array parameter or a shared or local array; the threads run
 * in order, so the old values are the reference's, step by step.
 */
function runAtomic(
  fn: AtomicFunction,
  type: ScalarName,
  where: 'global' | MemorySpace,
): { olds: Value[]; final: Value; expectedOlds: Value[]; expectedFinal: Value } {
  const b = new KernelBuilder();
  const target = b.array('target', type);
  const vals = b.array('vals', type, 1, 'C', { readonly: true });
  const cmps = b.array('cmps', type, 1, 'C', { readonly: true });
  const olds = b.array('olds', type);
  const t = special('tid.x');
  const memory = where === 'shared' ? b.shared('s', type, 1) : where === 'local' ? b.localArray('l', type, 1) : -1;
  const ref = where === 'global' ? { array: target } : { array: memory, space: where as MemorySpace };
  const old = atomic(fn, ref, type, [i32(0)], load(vals, type, [t]), fn === 'cas' ? load(cmps, type, [t]) : undefined);
  let body: Stmt[];
  if (where === 'shared') {
    const first = compare('eq', t, i32(0));
    body = [
      when(first, [expr(mstore('shared', memory, type, [i32(0)], load(target, type, [i32(0)])))]),
      syncthreads(),
      expr(store(olds, type, [t], old)),
      syncthreads(),
      when(first, [expr(store(target, type, [i32(0)], mload('shared', memory, type, [i32(0)])))]),
    ];
  } else if (where === 'local') {
    // each thread its own element: starts at 0
    body = [
      expr(store(olds, type, [t], old)),
      expr(store(target, type, [i32(0)], mload('local', memory, type, [i32(0)]))),
    ];
  } else {
    body = [expr(store(olds, type, [t], old))];
  }
  const ctor = ARRAYS[type]!;
  const host = new ctor(1);
  const big = type === 'i64' || type === 'u64';
  const vs = values(type, fn, THREADS);
  // cas: every other compare value is the element's current value (a hit), the others miss
  const expectedOlds: Value[] = [];
  const cs: Value[] = [];
  let current: Value = where === 'local' ? (big ? 0n : 0) : INITIAL[type]!;
  for (let k = 0; k < THREADS; k++) {
    const start = where === 'local' ? (big ? 0n : 0) : current;
    const c = k % 2 === 0 ? start : big ? (start as bigint) ^ 1n : Number(start) + 1;
    cs.push(wrap(type, c));
    expectedOlds.push(start);
    current = reference(fn, type, start, vs[k]!, cs[k]!);
  }
  (host as { [i: number]: Value })[0] = INITIAL[type]!;
  const v = new ctor(THREADS);
  const c = new ctor(THREADS);
  vs.forEach((x, k) => ((v as { [i: number]: Value })[k] = x));
  cs.forEach((x, k) => ((c as { [i: number]: Value })[k] = x));
  const o = new ctor(THREADS);
  new SimulatedKernel(b.build(body), NO_POSITIONS).run([1, 1, 1], [THREADS, 1, 1], [host, v, c, o]);
  return {
    olds: [...o],
    final: host[0]!,
    expectedOlds: expectedOlds.map((x) => wrap(type, x)),
    expectedFinal: wrap(type, current),
  };
}

describe('atomics: every function on every type it takes, with the old values', () => {
  for (const fn of Object.keys(ATOMIC_TYPES) as AtomicFunction[]) {
    // f16 and bf16 elements are bits: their atomics are tested with the other f16/bf16 simulator tests (half-float-source.test.ts)
    const types = ATOMIC_TYPES[fn].filter((type) => !isHalf(type));
    test(`${fn} on ${types.join(', ')}`, () => {
      for (const type of types) {
        for (const where of ['global', 'shared', 'local'] as const) {
          const r = runAtomic(fn, type, where);
          expect({ type, where, olds: r.olds }).toEqual({ type, where, olds: r.expectedOlds });
          expect({ type, where, final: r.final }).toEqual({ type, where, final: r.expectedFinal });
        }
      }
    });
  }

  test('float min and max follow the formulas: NaN wins, and of 0 and -0 the order decides', () => {
    const pairs: [number, number][] = [
      [-0, 0],
      [0, -0],
      [NaN, 1],
      [1, NaN],
      [-Infinity, 3],
      [2, 2.5],
    ];
    for (const type of ['f32', 'f64'] as const) {
      for (const fn of ['min', 'max'] as const) {
        const b = new KernelBuilder();
        const target = b.array('target', type);
        const vals = b.array('vals', type, 1, 'C', { readonly: true });
        const olds = b.array('olds', type);
        const t = special('tid.x');
        const kernel = b.build([
          expr(store(olds, type, [t], atomic(fn, { array: target }, type, [t], load(vals, type, [t])))),
        ]);
        const ctor = ARRAYS[type]!;
        const host =
          ctor === Float32Array ? Float32Array.from(pairs, (p) => p[0]) : Float64Array.from(pairs, (p) => p[0]);
        const v = ctor === Float32Array ? Float32Array.from(pairs, (p) => p[1]) : Float64Array.from(pairs, (p) => p[1]);
        const o = new ctor(pairs.length);
        new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [pairs.length, 1, 1], [host, v, o]);
        expect([...o]).toEqual(pairs.map((p) => p[0]));
        const formula =
          fn === 'min'
            ? ([a, c]: [number, number]) => (a < c || a !== a ? a : c)
            : ([a, c]: [number, number]) => (a > c || a !== a ? a : c);
        expect([...host]).toEqual(pairs.map((p) => Math.fround(formula(p))));
      }
    }
  });

  test('float nanmin and nanmax take a NaN as missing: the other value wins', () => {
    const pairs: [number, number][] = [
      [NaN, 1],
      [1, NaN],
      [NaN, NaN],
      [-Infinity, 3],
      [2, 2.5],
    ];
    for (const type of ['f32', 'f64'] as const) {
      for (const fn of ['nanmin', 'nanmax'] as const) {
        const b = new KernelBuilder();
        const target = b.array('target', type);
        const vals = b.array('vals', type, 1, 'C', { readonly: true });
        const olds = b.array('olds', type);
        const t = special('tid.x');
        const kernel = b.build([
          expr(store(olds, type, [t], atomic(fn, { array: target }, type, [t], load(vals, type, [t])))),
        ]);
        const ctor = ARRAYS[type]!;
        const host =
          ctor === Float32Array ? Float32Array.from(pairs, (p) => p[0]) : Float64Array.from(pairs, (p) => p[0]);
        const v = ctor === Float32Array ? Float32Array.from(pairs, (p) => p[1]) : Float64Array.from(pairs, (p) => p[1]);
        const o = new ctor(pairs.length);
        new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [pairs.length, 1, 1], [host, v, o]);
        expect([...o]).toEqual(pairs.map((p) => p[0]));
        const pick = fn === 'nanmin' ? Math.min : Math.max;
        expect([...host]).toEqual(pairs.map(([a, c]) => (Number.isNaN(a) ? c : Number.isNaN(c) ? a : pick(a, c))));
      }
    }
  });

  test('an atomic evaluates its compare value, then its value, once each, after the indices', () => {
    // cas(a, [k++], k++ (compare), k++ (value)): k goes 0, 1, 2, 3
    const b = new KernelBuilder();
    const a = b.array('a', 'i32');
    const k = b.local('k', 'i32');
    const bump = (): Expr => ({
      op: 'sequence',
      type: 'i32',
      effects: [set(k, { op: 'binary', type: 'i32', operator: 'add', left: get(k, 'i32'), right: i32(1) })],
      value: get(k, 'i32'),
    });
    const kernel = b.build([
      expr(store(a, 'i32', [i32(3)], atomic('cas', { array: a }, 'i32', [bump()], bump(), bump()))),
      expr(store(a, 'i32', [i32(4)], get(k, 'i32'))),
    ]);
    const host = new Int32Array([0, 2, 0, 0, 0]);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [host]);
    // index 1 (k = 1), compare 2 (k = 2): a[1] == 2, so a[1] = 3; old 2
    expect([...host]).toEqual([0, 3, 0, 2, 3]);
  });
});
