import { describe, expect, test } from 'vitest';
import type { Expr, Stmt, TypedKernel } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  TextLocator,
  atomic,
  binary,
  compare,
  expr,
  get,
  i32,
  load,
  loop,
  mload,
  mstore,
  set,
  special,
  store,
  syncthreads,
  syncwarp,
  u32,
  when,
  failure,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

const FULL = u32(0xffffffff);
const add = (a: Expr, c: Expr): Expr => binary('add', a, c);
const lt = (a: Expr, c: Expr): Expr => compare('lt', a, c);
const eq = (a: Expr, c: Expr): Expr => compare('eq', a, c);
const tid = (): Expr => special('tid.x');

const text = [
  'function reduce(x, out) {',
  '  sdata[tid] = x[i];',
  '  for (let s = 64; s > 0; s >>= 1) {',
  '    if (tid < s) sdata[tid] += sdata[tid + s];',
  '  }',
  '}',
].join('\n');
const locator = new TextLocator(text);
const storeLoc = locator.loc('sdata[tid] +=');
const readLoc = locator.loc('sdata[tid + s]');
const ownLoc = locator.loc('sdata[tid] +=');

/** The tree reduction of one block of 128, with or without the barrier in the loop. */
function reduction(barrierInLoop: boolean): { kernel: TypedKernel; run: (sim: SimulatedKernel) => Float32Array } {
  const b = new KernelBuilder();
  const x = b.array('x', 'f32', 1, 'C', { readonly: true });
  const out = b.array('out', 'f32');
  const sdata = b.shared('sdata', 'f32', 128);
  const s = b.local('s', 'i32');
  const sv = get(s, 'i32');
  const kernel = b.build([
    expr(mstore('shared', sdata, 'f32', [tid()], load(x, 'f32', [tid()]))),
    syncthreads(),
    expr(set(s, i32(64))),
    loop(0, {
      test: compare('gt', sv, i32(0)),
      body: [
        when(lt(tid(), sv), [
          expr(
            mstore(
              'shared',
              sdata,
              'f32',
              [tid()],
              binary(
                'add',
                mload('shared', sdata, 'f32', [tid()], ownLoc),
                mload('shared', sdata, 'f32', [add(tid(), sv)], readLoc),
              ),
              storeLoc,
            ),
          ),
        ]),
        ...(barrierInLoop ? [syncthreads()] : []),
      ],
      update: [expr(set(s, binary('shr', sv, i32(1))))],
    }),
    when(eq(tid(), i32(0)), [expr(store(out, 'f32', [i32(0)], mload('shared', sdata, 'f32', [i32(0)])))]),
  ]);
  return {
    kernel,
    run(sim) {
      const o = new Float32Array(1);
      sim.run([1, 1, 1], [128, 1, 1], [Float32Array.from({ length: 128 }, (_, k) => k), o]);
      return o;
    },
  };
}

describe('shared-memory races between barriers', () => {
  test('reported: the reduction without its barrier in the loop, naming the array, the index, both threads and both positions', () => {
    const { kernel, run } = reduction(false);
    const e = failure(() => run(new SimulatedKernel(kernel, locator)));
    // thread 0 runs its whole loop first, down to s = 1, where it reads sdata[1]; thread 1 then writes sdata[1] (s = 64)
    expect([e.line, e.column]).toEqual([4, 18]);
    expect(e.detail).toBe(
      "data race on shared array 'sdata' at index 1: thread (1, 0, 0) writes it, and thread (0, 0, 0) read it at line 4:32, with no syncthreads() or syncwarp() between them, in block (0, 0, 0)",
    );
  });

  test('not reported with the barrier: the sum is right', () => {
    const { kernel, run } = reduction(true);
    expect(run(new SimulatedKernel(kernel, locator))[0]).toBe((127 * 128) / 2);
  });

  test('two writes of one element by threads of different warps', () => {
    const b = new KernelBuilder();
    const s = b.shared('flags', 'i32', [2, 3]);
    const kernel = b.build([
      when(eq(binary('rem', tid(), i32(32)), i32(0)), [expr(mstore('shared', s, 'i32', [i32(1), i32(2)], tid()))]),
    ]);
    const e = failure(() => new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [64, 1, 1], []));
    expect(e.detail).toBe(
      "data race on shared array 'flags' at index [1, 2]: thread (32, 0, 0) writes it, and thread (0, 0, 0) wrote it, with no syncthreads() between them, in block (0, 0, 0)",
    );
  });

  test('reported in the fast mode too (shared memory, no barrier at all)', () => {
    // s[tid] = tid; out[tid] = s[(tid + 1) % n]: thread 0 reads s[1] before thread 1 writes it
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const s = b.shared('s', 'i32', 8);
    const kernel = b.build([
      expr(mstore('shared', s, 'i32', [tid()], tid())),
      expr(store(out, 'i32', [tid()], mload('shared', s, 'i32', [binary('rem', add(tid(), i32(1)), i32(8))]))),
    ]);
    const sim = new SimulatedKernel(kernel, NO_POSITIONS);
    expect(sim.mode.lockstep).toBe(false);
    const e = failure(() => sim.run([1, 1, 1], [8, 1, 1], [new Int32Array(8)]));
    expect(e.detail).toBe(
      "data race on shared array 's' at index 1: thread (1, 0, 0) writes it, and thread (0, 0, 0) read it, with no syncthreads() or syncwarp() between them, in block (0, 0, 0)",
    );
    // each thread on its own element: no race, and every block starts again
    const own = new KernelBuilder();
    const o = own.array('out', 'i32');
    const t = own.shared('t', 'i32', 8);
    const fine = own.build([
      expr(mstore('shared', t, 'i32', [tid()], add(mload('shared', t, 'i32', [tid()]), tid()))),
      expr(
        store(o, 'i32', [add(binary('mul', special('ctaid.x'), i32(8)), tid())], mload('shared', t, 'i32', [tid()])),
      ),
    ]);
    const host = new Int32Array(16);
    new SimulatedKernel(fine, NO_POSITIONS).run([2, 1, 1], [8, 1, 1], [host]);
    expect([...host]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('warp-synchronous code', () => {
  /** One warp sums s[0..31] with s[lane] += s[lane + off] for off = 16 .. 1, with or without syncwarp after each step. */
  function warpSum(withSyncwarp: boolean, block = 32): { kernel: TypedKernel; run: (sim: SimulatedKernel) => number } {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const s = b.shared('s', 'i32', block);
    const off = b.local('off', 'i32');
    const o = get(off, 'i32');
    const lane = special('laneid');
    const step: Stmt[] = [
      when(lt(lane, o), [
        expr(
          mstore(
            'shared',
            s,
            'i32',
            [tid()],
            add(mload('shared', s, 'i32', [tid()]), mload('shared', s, 'i32', [add(tid(), o)])),
          ),
        ),
      ]),
    ];
    const kernel = b.build([
      expr(mstore('shared', s, 'i32', [tid()], add(tid(), i32(1)))),
      syncwarp(FULL),
      expr(set(off, i32(16))),
      loop(0, {
        test: compare('gt', o, i32(0)),
        body: [...step, ...(withSyncwarp ? [syncwarp(FULL)] : [])],
        update: [expr(set(off, binary('shr', o, i32(1))))],
      }),
      when(eq(lane, i32(0)), [expr(store(out, 'i32', [special('ctaid.x')], mload('shared', s, 'i32', [tid()])))]),
    ]);
    return {
      kernel,
      run(sim) {
        const host = new Int32Array(1);
        sim.run([1, 1, 1], [block, 1, 1], [host]);
        return host[0]!;
      },
    };
  }

  test('syncwarp between the steps orders the lanes: no race, the right sum', () => {
    const { kernel, run } = warpSum(true);
    expect(run(new SimulatedKernel(kernel, NO_POSITIONS))).toBe((32 * 33) / 2);
  });

  test('the same without syncwarp: lanes of one warp race', () => {
    const { kernel, run } = warpSum(false);
    const e = failure(() => run(new SimulatedKernel(kernel, NO_POSITIONS)));
    // lane 0 runs all its steps first and reads s[1]; lane 1 then writes s[1]
    expect(e.detail).toBe(
      "data race on shared array 's' at index 1: thread (1, 0, 0) writes it, and thread (0, 0, 0) read it, with no syncthreads() or syncwarp() between them, in block (0, 0, 0)",
    );
  });

  test('syncwarp orders the lanes of one warp, not two warps', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const s = b.shared('s', 'i32', 1);
    const kernel = b.build([
      when(eq(tid(), i32(0)), [expr(mstore('shared', s, 'i32', [i32(0)], i32(5)))]),
      syncwarp(FULL),
      when(eq(tid(), i32(32)), [expr(store(out, 'i32', [i32(0)], mload('shared', s, 'i32', [i32(0)])))]),
    ]);
    const e = failure(() => new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [64, 1, 1], [new Int32Array(1)]));
    expect(e.detail).toBe(
      "data race on shared array 's' at index 0: thread (32, 0, 0) reads it, and thread (0, 0, 0) wrote it, with no syncthreads() between them, in block (0, 0, 0)",
    );
  });

  test('a syncwarp of part of the warp orders only the lanes of its mask', () => {
    // lane 0 writes s[0]; lanes 0 and 1 syncwarp(0b11); lane 1 reads s[0]: ordered. Lane 2 reads it too (not in the mask): a race.
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const s = b.shared('s', 'i32', 1);
    const reader = (t: number): Stmt =>
      when(eq(tid(), i32(t)), [expr(store(out, 'i32', [i32(t)], mload('shared', s, 'i32', [i32(0)])))]);
    const body = (withLane2: boolean): Stmt[] => [
      when(eq(tid(), i32(0)), [expr(mstore('shared', s, 'i32', [i32(0)], i32(5)))]),
      when(lt(tid(), i32(2)), [syncwarp(u32(3))]),
      reader(1),
      ...(withLane2 ? [reader(2)] : []),
    ];
    const host = new Int32Array(3);
    new SimulatedKernel(b.build(body(false)), NO_POSITIONS).run([1, 1, 1], [32, 1, 1], [host]);
    expect(host[1]).toBe(5);
    const e = failure(() => new SimulatedKernel(b.build(body(true)), NO_POSITIONS).run([1, 1, 1], [32, 1, 1], [host]));
    expect(e.detail).toMatch(
      /^data race on shared array 's' at index 0: thread \(2, 0, 0\) reads it, and thread \(0, 0, 0\) wrote it/,
    );
  });
});

describe('atomics', () => {
  test('atomics of many threads on one element are no race; a plain read of it in the same interval is', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const count = b.shared('count', 'i32', 1);
    const tally = (): Stmt => expr(atomic('add', { array: count, space: 'shared' }, 'i32', [i32(0)], i32(1)));
    const read = (): Stmt =>
      when(eq(tid(), i32(0)), [expr(store(out, 'i32', [i32(0)], mload('shared', count, 'i32', [i32(0)])))]);
    const host = new Int32Array(1);
    new SimulatedKernel(b.build([tally(), syncthreads(), read()]), NO_POSITIONS).run([1, 1, 1], [64, 1, 1], [host]);
    expect(host[0]).toBe(64);
    const e = failure(() =>
      new SimulatedKernel(b.build([tally(), read()]), NO_POSITIONS).run([1, 1, 1], [64, 1, 1], [host]),
    );
    expect(e.detail).toBe(
      "data race on shared array 'count' at index 0: thread (1, 0, 0) updates it atomically, and thread (0, 0, 0) read it, with no syncthreads() or syncwarp() between them, in block (0, 0, 0)",
    );
  });
});

describe('blocks', () => {
  test('have their own shared memory: the same element in two blocks is no race, in the grid mode too', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const s = b.shared('s', 'i32', 1);
    const kernel = b.build([
      when(eq(tid(), i32(0)), [expr(mstore('shared', s, 'i32', [i32(0)], special('ctaid.x')))]),
      { op: 'barrier', scope: 'grid' },
      when(eq(tid(), i32(1)), [expr(store(out, 'i32', [special('ctaid.x')], mload('shared', s, 'i32', [i32(0)])))]),
    ]);
    const host = new Int32Array(4);
    new SimulatedKernel(kernel, NO_POSITIONS).run([4, 1, 1], [2, 1, 1], [host]);
    expect([...host]).toEqual([0, 1, 2, 3]);
  });
});

describe('dynamic shared memory', () => {
  test('aliasing arrays race on the same bytes, whatever their dtypes', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'f64');
    const floats = b.dynamicShared('floats', 'f32');
    const doubles = b.dynamicShared('doubles', 'f64');
    // thread 0 writes floats[3] (bytes 12-15); thread 1 reads doubles[1] (bytes 8-15)
    const kernel = b.build([
      when(eq(tid(), i32(0)), [
        expr(mstore('shared', floats, 'f32', [i32(3)], { op: 'const', type: 'f32', value: 1 })),
      ]),
      when(eq(tid(), i32(1)), [expr(store(out, 'f64', [i32(0)], mload('shared', doubles, 'f64', [i32(1)])))]),
    ]);
    const e = failure(() =>
      new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [2, 1, 1], [new Float64Array(1)], { sharedMemory: 64 }),
    );
    expect(e.detail).toBe(
      "data race on dynamic shared array 'doubles' at index 1: thread (1, 0, 0) reads it, and thread (0, 0, 0) wrote it, with no syncthreads() or syncwarp() between them, in block (0, 0, 0)",
    );
    // bytes 0-7 and 8-15 do not overlap: floats[1] and doubles[1] are no race
    const apart = b.build([
      when(eq(tid(), i32(0)), [
        expr(mstore('shared', floats, 'f32', [i32(1)], { op: 'const', type: 'f32', value: 1 })),
      ]),
      when(eq(tid(), i32(1)), [expr(store(out, 'f64', [i32(0)], mload('shared', doubles, 'f64', [i32(1)])))]),
    ]);
    expect(() =>
      new SimulatedKernel(apart, NO_POSITIONS).run([1, 1, 1], [2, 1, 1], [new Float64Array(1)], { sharedMemory: 64 }),
    ).not.toThrow();
  });
});
