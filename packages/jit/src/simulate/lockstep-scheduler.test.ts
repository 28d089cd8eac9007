import { describe, expect, test } from 'vitest';
import type { Expr, Loc, Stmt } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  TextLocator,
  binary,
  bool,
  compare,
  convert,
  expr,
  f64,
  get,
  globalIndexX,
  gridSync,
  i32,
  i64,
  lanemask,
  linearThread,
  load,
  loop,
  match,
  mload,
  mstore,
  ret,
  select,
  set,
  shuffle,
  special,
  store,
  syncthreads,
  syncwarp,
  u32,
  vote,
  when,
  failure,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

const FULL = u32(0xffffffff);
const add = (a: Expr, c: Expr): Expr => binary('add', a, c);
const lt = (a: Expr, c: Expr): Expr => compare('lt', a, c);
const eq = (a: Expr, c: Expr): Expr => compare('eq', a, c);
const tidX = (): Expr => special('tid.x');
const lane = (): Expr => special('laneid');

/** out[global index] = value(b), one i32 (or other dtype) per thread. */
function perThread(
  dtype: 'i32' | 'u32' | 'f64' | 'i64' | 'u64' | 'f32',
  make: (b: KernelBuilder) => { setup?: Stmt[]; value: Expr },
  grid: number,
  block: number,
  lockstep = true,
): number[] | bigint[] {
  const b = new KernelBuilder();
  const out = b.array('out', dtype);
  const { setup = [], value } = make(b);
  const kernel = b.build([...setup, expr(store(out, dtype, [globalIndexX()], value))]);
  const n = grid * block;
  const host =
    dtype === 'i64'
      ? new BigInt64Array(n)
      : dtype === 'u64'
        ? new BigUint64Array(n)
        : dtype === 'f64'
          ? new Float64Array(n)
          : dtype === 'f32'
            ? new Float32Array(n)
            : dtype === 'u32'
              ? new Uint32Array(n)
              : new Int32Array(n);
  const sim = new SimulatedKernel(kernel, NO_POSITIONS);
  expect(sim.mode.lockstep).toBe(lockstep);
  sim.run([grid, 1, 1], [block, 1, 1], [host]);
  return [...host] as number[] | bigint[];
}

describe('block barriers', () => {
  /** The shared-memory tree reduction: one partial sum per block. */
  function treeReduction(blockSize: number) {
    const b = new KernelBuilder();
    const x = b.array('x', 'f32', 1, 'C', { readonly: true });
    const out = b.array('out', 'f32');
    const sdata = b.shared('sdata', 'f32', blockSize);
    const tid = b.local('tid', 'i32');
    const st = b.local('s', 'i32');
    const t = get(tid, 'i32');
    const s = get(st, 'i32');
    return new SimulatedKernel(
      b.build([
        expr(set(tid, tidX())),
        expr(mstore('shared', sdata, 'f32', [t], load(x, 'f32', [globalIndexX()]))),
        syncthreads(),
        expr(set(st, i32(blockSize / 2))),
        loop(0, {
          test: compare('gt', s, i32(0)),
          body: [
            when(lt(t, s), [
              expr(
                mstore(
                  'shared',
                  sdata,
                  'f32',
                  [t],
                  binary('add', mload('shared', sdata, 'f32', [t]), mload('shared', sdata, 'f32', [add(t, s)])),
                ),
              ),
            ]),
            syncthreads(),
          ],
          update: [expr(set(st, binary('shr', s, i32(1))))],
        }),
        when(eq(t, i32(0)), [expr(store(out, 'f32', [special('ctaid.x')], mload('shared', sdata, 'f32', [i32(0)])))]),
      ]),
      NO_POSITIONS,
    );
  }

  test('a shared-memory tree reduction gives the sum of each block, in the same f32 order as the tree', () => {
    const blockSize = 128;
    const blocks = 16;
    const x = Float32Array.from({ length: blocks * blockSize }, (_, k) => Math.fround(Math.sin(k) * 100));
    const out = new Float32Array(blocks);
    treeReduction(blockSize).run([blocks, 1, 1], [blockSize, 1, 1], [x, out]);
    for (let blk = 0; blk < blocks; blk++) {
      const v = Array.from(x.subarray(blk * blockSize, (blk + 1) * blockSize));
      for (let step = blockSize / 2; step > 0; step >>= 1)
        for (let t = 0; t < step; t++) v[t] = Math.fround(v[t]! + v[t + step]!);
      expect(out[blk]).toBe(v[0]);
    }
  });

  test('a barrier makes every write before it visible after it, in blocks of 2 and 3 dimensions', () => {
    // s[lin] = lin * 10; syncthreads(); out[global lin] = s[(lin + 1) % T] (in linear order z, y, x)
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const T = 8 * 4 * 2;
    const s = b.shared('s', 'i32', T);
    const lin = b.local('lin', 'i32');
    const l = get(lin, 'i32');
    const kernel = b.build([
      expr(set(lin, linearThread())),
      expr(mstore('shared', s, 'i32', [l], binary('mul', l, i32(10)))),
      syncthreads(),
      expr(
        store(
          out,
          'i32',
          [add(binary('mul', special('ctaid.x'), i32(T)), l)],
          mload('shared', s, 'i32', [binary('rem', add(l, i32(1)), i32(T))]),
        ),
      ),
    ]);
    const host = new Int32Array(3 * T);
    new SimulatedKernel(kernel, NO_POSITIONS).run([3, 1, 1], [8, 4, 2], [host]);
    expect([...host]).toEqual(Array.from({ length: 3 * T }, (_, k) => ((k + 1) % T) * 10));
  });

  test('every thread runs up to the barrier before any runs past it', () => {
    // counter[0] counts arrivals; after the barrier each thread reads it: all see the block size.
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const counter = b.shared('counter', 'i32', 1);
    const kernel = b.build([
      when(eq(tidX(), i32(0)), [expr(mstore('shared', counter, 'i32', [i32(0)], i32(0)))]),
      syncthreads(),
      expr({
        op: 'atomic',
        type: 'i32',
        fn: 'add',
        ref: { array: counter, space: 'shared', indices: [convert('i64', i32(0))] },
        value: i32(1),
      }),
      syncthreads(),
      expr(store(out, 'i32', [globalIndexX()], mload('shared', counter, 'i32', [i32(0)]))),
    ]);
    const host = new Int32Array(2 * 96);
    new SimulatedKernel(kernel, NO_POSITIONS).run([2, 1, 1], [96, 1, 1], [host]);
    expect([...host]).toEqual(new Array(2 * 96).fill(96));
  });

  test('syncthreads_count, _and and _or vote over the whole block', () => {
    const kinds = ['count', 'and', 'or'] as const;
    // predicate: tid < k for k = 0, 5, 64 in a block of 64
    for (const k of [0, 5, 64]) {
      const got = kinds.map(
        (mode) =>
          perThread(
            'i32',
            () => {
              const v = vote('block', mode, lt(tidX(), i32(k)));
              return { value: mode === 'count' ? v : select(v, i32(1), i32(0)) };
            },
            2,
            64,
          ) as number[],
      );
      expect(got[0]).toEqual(new Array(128).fill(k));
      expect(got[1]).toEqual(new Array(128).fill(k === 64 ? 1 : 0));
      expect(got[2]).toEqual(new Array(128).fill(k > 0 ? 1 : 0));
    }
  });
});

describe('warp shuffles', () => {
  test('a shfl_down_sync tree reduction gives each warp its sum in lane 0', () => {
    // v = x[i]; for (o = 16; o > 0; o >>= 1) v += shfl_down(v, o); out[i] = v
    const b = new KernelBuilder();
    const x = b.array('x', 'i32', 1, 'C', { readonly: true });
    const out = b.array('out', 'i32');
    const v = b.local('v', 'i32');
    const o = b.local('o', 'i32');
    const i = b.local('i', 'i32');
    const vv = get(v, 'i32');
    const kernel = b.build([
      expr(set(i, globalIndexX())),
      expr(set(v, load(x, 'i32', [get(i, 'i32')]))),
      expr(set(o, i32(16))),
      loop(0, {
        test: compare('gt', get(o, 'i32'), i32(0)),
        body: [expr(set(v, add(vv, shuffle('down', FULL, vv, get(o, 'i32')))))],
        update: [expr(set(o, binary('shr', get(o, 'i32'), i32(1))))],
      }),
      expr(store(out, 'i32', [get(i, 'i32')], vv)),
    ]);
    const n = 4 * 64;
    const xs = Int32Array.from({ length: n }, (_, k) => (k * 7919) % 1000);
    const host = new Int32Array(n);
    new SimulatedKernel(kernel, NO_POSITIONS).run([4, 1, 1], [64, 1, 1], [xs, host]);
    // The reference: the same steps on a JS array per warp, with a lane's own value where the source is past the warp.
    for (let w = 0; w < n / 32; w++) {
      let lanes = Array.from(xs.subarray(w * 32, w * 32 + 32));
      for (let off = 16; off > 0; off >>= 1)
        lanes = lanes.map((val, l) => (val + (l + off < 32 ? lanes[l + off]! : val)) | 0);
      expect([...host.subarray(w * 32, w * 32 + 32)]).toEqual(lanes);
      expect(host[w * 32]).toBe([...xs.subarray(w * 32, w * 32 + 32)].reduce((a, c) => a + c, 0));
    }
  });

  test('xor butterfly: every lane gets the warp sum, in f64', () => {
    const got = perThread(
      'f64',
      (b) => {
        const v = b.local('v', 'f64');
        const setup: Stmt[] = [expr(set(v, convert('f64', lane())))];
        for (const m of [16, 8, 4, 2, 1])
          setup.push(expr(set(v, binary('add', get(v, 'f64'), shuffle('xor', FULL, get(v, 'f64'), i32(m))))));
        return { setup, value: get(v, 'f64') };
      },
      1,
      64,
    );
    expect(got).toEqual(new Array(64).fill((31 * 32) / 2));
  });

  test('idx broadcasts a lane of each segment; up and down give the own value past the segment; widths split the warp', () => {
    const id = (): Expr => add(binary('mul', lane(), i32(100)), i32(7)); // lane * 100 + 7
    const of = (make: () => Expr) => perThread('i32', () => ({ value: make() }), 1, 32) as number[];
    expect(of(() => shuffle('idx', FULL, id(), i32(5)))).toEqual(new Array(32).fill(507));
    // width 8: lane 3 of each segment of 8; a source lane of 11 is 11 mod 8 = 3 as on the GPU
    expect(of(() => shuffle('idx', FULL, id(), i32(11), i32(8)))).toEqual(
      Array.from({ length: 32 }, (_, l) => ((l & ~7) + 3) * 100 + 7),
    );
    expect(of(() => shuffle('up', FULL, id(), i32(2), i32(16)))).toEqual(
      Array.from({ length: 32 }, (_, l) => ((l & 15) >= 2 ? l - 2 : l) * 100 + 7),
    );
    expect(of(() => shuffle('down', FULL, id(), i32(3), i32(8)))).toEqual(
      Array.from({ length: 32 }, (_, l) => ((l & 7) + 3 < 8 ? l + 3 : l) * 100 + 7),
    );
    expect(of(() => shuffle('xor', FULL, id(), i32(1), i32(4)))).toEqual(
      Array.from({ length: 32 }, (_, l) => (l ^ 1) * 100 + 7),
    );
    // xor leaving the segment (lane ^ 4 with width 4): the own value
    expect(of(() => shuffle('xor', FULL, id(), i32(4), i32(4)))).toEqual(
      Array.from({ length: 32 }, (_, l) => l * 100 + 7),
    );
  });

  test('64-bit values shuffle whole: i64 beyond 2^53, u64, f64', () => {
    const big = (l: Expr): Expr => binary('add', i64(2n ** 60n + 1n), convert('i64', l));
    expect(perThread('i64', () => ({ value: shuffle('down', FULL, big(lane()), i32(1)) }), 1, 32)).toEqual(
      Array.from({ length: 32 }, (_, l) => 2n ** 60n + 1n + BigInt(l < 31 ? l + 1 : l)),
    );
    const ubig = (l: Expr): Expr =>
      binary('add', { op: 'const', type: 'u64', value: 2n ** 64n - 100n }, convert('u64', l));
    expect(perThread('u64', () => ({ value: shuffle('idx', FULL, ubig(lane()), i32(31)) }), 1, 32)).toEqual(
      new Array(32).fill(2n ** 64n - 69n),
    );
    expect(
      perThread(
        'f64',
        () => ({ value: shuffle('up', FULL, binary('mul', convert('f64', lane()), f64(0.1)), i32(1)) }),
        1,
        32,
      ),
    ).toEqual(Array.from({ length: 32 }, (_, l) => (l === 0 ? 0 : (l - 1) * 0.1)));
  });

  test('a partial mask: only its lanes exchange', () => {
    // lanes 0-15 shuffle among themselves (mask 0xffff), lanes 16-31 among themselves (0xffff0000), in two branches
    const lo = u32(0x0000ffff);
    const hi = u32(0xffff0000);
    const got = perThread(
      'i32',
      (b) => {
        const r = b.local('r', 'i32');
        return {
          setup: [
            when(
              lt(lane(), i32(16)),
              [expr(set(r, shuffle('idx', lo, lane(), i32(0))))],
              [expr(set(r, shuffle('idx', hi, lane(), i32(16))))],
            ),
          ],
          value: get(r, 'i32'),
        };
      },
      1,
      32,
    );
    expect(got).toEqual(Array.from({ length: 32 }, (_, l) => (l < 16 ? 0 : 16)));
  });
});

describe('warp votes, match and lane masks', () => {
  const of = (make: () => Expr, block = 32, lockstep = true) =>
    perThread('u32', () => ({ value: make() }), 1, block, lockstep) as number[];
  const flag = (e: Expr): Expr => select(e, u32(1), u32(0));
  const odd = (): Expr => eq(binary('and', lane(), i32(1)), i32(1));

  test('ballot gives bit k for lane k, over the lanes of the mask', () => {
    expect(of(() => vote('warp', 'ballot', odd(), FULL))).toEqual(new Array(32).fill(0xaaaaaaaa));
    expect(of(() => vote('warp', 'ballot', lt(lane(), i32(3)), FULL))).toEqual(new Array(32).fill(0b111));
    // in a block of 40, the second warp has 8 lanes: 0xffffffff names lanes that do not exist, which are left out
    expect(of(() => vote('warp', 'ballot', bool(true), FULL), 40)).toEqual([
      ...new Array(32).fill(0xffffffff),
      ...new Array(8).fill(0xff),
    ]);
  });

  test('all, any and eq', () => {
    expect(of(() => flag(vote('warp', 'all', odd(), FULL)))).toEqual(new Array(32).fill(0));
    expect(of(() => flag(vote('warp', 'any', odd(), FULL)))).toEqual(new Array(32).fill(1));
    expect(of(() => flag(vote('warp', 'eq', odd(), FULL)))).toEqual(new Array(32).fill(0));
    expect(of(() => flag(vote('warp', 'all', lt(lane(), i32(32)), FULL)))).toEqual(new Array(32).fill(1));
    expect(of(() => flag(vote('warp', 'eq', compare('gt', lane(), i32(40)), FULL)))).toEqual(new Array(32).fill(1));
    expect(of(() => flag(vote('warp', 'any', compare('gt', lane(), i32(40)), FULL)))).toEqual(new Array(32).fill(0));
  });

  test('match_any gives the lanes with the same value; match_all the mask when all are equal, else 0', () => {
    const group = (): Expr => binary('rem', lane(), i32(3)); // 0, 1, 2, 0, 1, 2, ...
    const lanesWith = (r: number): number =>
      Array.from({ length: 32 }, (_, l) => (l % 3 === r ? 1 << l : 0)).reduce((a, c) => (a | c) >>> 0, 0);
    expect(of(() => match('any', FULL, group()))).toEqual(Array.from({ length: 32 }, (_, l) => lanesWith(l % 3)));
    expect(of(() => match('all', FULL, group()))).toEqual(new Array(32).fill(0));
    expect(of(() => match('all', FULL, i32(4)))).toEqual(new Array(32).fill(0xffffffff));
    expect(
      of(() => match('any', FULL, binary('add', i64(2n ** 62n), convert('i64', binary('and', lane(), i32(1)))))),
    ).toEqual(Array.from({ length: 32 }, (_, l) => (l & 1 ? 0xaaaaaaaa : 0x55555555)));
  });

  test('match compares floats by their bits: 0 and -0 differ, NaN matches NaN', () => {
    const value = (): Expr => select(lt(lane(), i32(8)), f64(0), select(lt(lane(), i32(16)), f64(-0), f64(NaN)));
    expect(of(() => match('any', FULL, value()))).toEqual(
      Array.from({ length: 32 }, (_, l) => (l < 8 ? 0xff : l < 16 ? 0xff00 : 0xffff0000)),
    );
    const f32 = (): Expr => convert('f32', value());
    expect(of(() => match('any', FULL, f32()))).toEqual(
      Array.from({ length: 32 }, (_, l) => (l < 8 ? 0xff : l < 16 ? 0xff00 : 0xffff0000)),
    );
  });

  test('lanemask lt, le, eq, ge and gt', () => {
    const all = Array.from({ length: 64 }, (_, t) => t % 32);
    const mask = (n: number): number => (n >= 32 ? 0xffffffff : (2 ** n - 1) >>> 0);
    expect(of(() => lanemask('lt'), 64, false)).toEqual(all.map((l) => mask(l)));
    expect(of(() => lanemask('le'), 64, false)).toEqual(all.map((l) => mask(l + 1)));
    expect(of(() => lanemask('eq'), 64, false)).toEqual(all.map((l) => 2 ** l));
    expect(of(() => lanemask('ge'), 64, false)).toEqual(all.map((l) => (0xffffffff - mask(l)) >>> 0));
    expect(of(() => lanemask('gt'), 64, false)).toEqual(all.map((l) => (0xffffffff - mask(l + 1)) >>> 0));
  });

  test('activemask gives the lanes that arrived at it together', () => {
    // if (lane < 10) r = activemask(); else if (lane >= 20) r = activemask(); else r = 7
    const got = perThread(
      'u32',
      (b) => {
        const r = b.local('r', 'u32');
        return {
          setup: [
            when(
              lt(lane(), i32(10)),
              [expr(set(r, lanemask('activemask')))],
              [when(compare('ge', lane(), i32(20)), [expr(set(r, lanemask('activemask')))], [expr(set(r, u32(7)))])],
            ),
          ],
          value: get(r, 'u32'),
        };
      },
      1,
      32,
    );
    expect(got).toEqual(Array.from({ length: 32 }, (_, l) => (l < 10 ? 0x3ff : l >= 20 ? 0xfff00000 : 7)));
  });

  test('syncwarp with the same mask at two sites passes (as on Volta and later)', () => {
    const got = perThread(
      'i32',
      () => ({ setup: [when(lt(lane(), i32(16)), [syncwarp(FULL)], [syncwarp(FULL)])], value: i32(1) }),
      1,
      32,
    );
    expect(got).toEqual(new Array(32).fill(1));
  });
});

describe('the grid barrier', () => {
  test('makes every block wait for every other: a block reads what the next one wrote', () => {
    const b = new KernelBuilder();
    const buf = b.array('buf', 'i32');
    const out = b.array('out', 'i32');
    const nb = special('nctaid.x');
    const kernel = b.build([
      when(eq(tidX(), i32(0)), [
        expr(store(buf, 'i32', [special('ctaid.x')], add(binary('mul', special('ctaid.x'), i32(3)), i32(1)))),
      ]),
      gridSync(),
      expr(store(out, 'i32', [globalIndexX()], load(buf, 'i32', [binary('rem', add(special('ctaid.x'), i32(1)), nb)]))),
    ]);
    const sim = new SimulatedKernel(kernel, NO_POSITIONS);
    expect(sim.mode).toEqual({ lockstep: true, grid: true });
    const blocks = 5;
    const host = new Int32Array(blocks * 4);
    sim.run([blocks, 1, 1], [4, 1, 1], [new Int32Array(blocks), host]);
    expect([...host]).toEqual(Array.from({ length: blocks * 4 }, (_, k) => ((Math.floor(k / 4) + 1) % blocks) * 3 + 1));
  });
});

describe('what cannot pass is reported at the collective, naming the threads', () => {
  const text = [
    'function k(out) {',
    '  if (cuda.threadIdx.x == 5) return;',
    '  cuda.syncthreads();',
    '  x = cuda.shfl_sync(mask, v, 0);',
    '  cuda.cg.thisGrid().sync();',
    '  cuda.syncthreads(); // second',
    '}',
  ].join('\n');
  const locator = new TextLocator(text);
  const barrierLoc: Loc = locator.loc('cuda.syncthreads()');
  const secondLoc: Loc = locator.loc('cuda.syncthreads()', 1);
  const shuffleLoc: Loc = locator.loc('cuda.shfl_sync');
  const gridLoc: Loc = locator.loc('cuda.cg.thisGrid');

  test('a thread that returned counts as arrived at a block barrier (as on the GPU); a live thread at another barrier is still a deadlock', () => {
    // out[t] = t before the barrier, then each thread below 63 reads its right neighbour's value, written before the barrier
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const sm = b.shared('sm', 'i32', 64);
    const kernel = b.build([
      when(eq(tidX(), i32(5)), [ret()]),
      expr(mstore('shared', sm, 'i32', [tidX()], tidX())),
      syncthreads(barrierLoc),
      when(lt(tidX(), i32(63)), [
        expr(store(out, 'i32', [globalIndexX()], mload('shared', sm, 'i32', [add(tidX(), i32(1))]))),
      ]),
    ]);
    const host = new Int32Array(128).fill(-1);
    new SimulatedKernel(kernel, locator).run([2, 1, 1], [64, 1, 1], [host]);
    const expected = Array.from({ length: 128 }, (_, g) => {
      const t = g % 64;
      return t === 5 || t === 63 ? -1 : t + 1 === 5 ? 0 : t + 1; // thread 5 wrote nothing: shared memory starts at 0
    });
    expect([...host]).toEqual(expected);
    // a live thread that waits at another barrier for good
    const k2 = new KernelBuilder().build([
      when(eq(tidX(), i32(5)), [syncthreads(secondLoc), ret()]),
      syncthreads(barrierLoc),
    ]);
    const e = failure(() => new SimulatedKernel(k2, locator).run([2, 1, 1], [64, 1, 1], []));
    expect([e.line, e.column]).toEqual([3, 3]);
    expect(e.detail).toBe(
      'syncthreads() is reached by only part of block (0, 0, 0): threads 0–4 and 6–63 wait here; thread (5, 0, 0) wait at syncthreads() at line 6:3 (a deadlock on the GPU)',
    );
  });

  test('a block vote counts the threads that arrive, not the ones that returned', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const kernel = b.build([
      when(lt(tidX(), i32(10)), [ret()]),
      expr(store(out, 'i32', [globalIndexX()], vote('block', 'count', bool(true)))),
    ]);
    const host = new Int32Array(32).fill(-1);
    new SimulatedKernel(kernel, locator).run([1, 1, 1], [32, 1, 1], [host]);
    expect([...host]).toEqual(Array.from({ length: 32 }, (_, t) => (t < 10 ? -1 : 22)));
  });

  test('two barriers at different lines', () => {
    const b = new KernelBuilder();
    b.array('out', 'i32');
    const kernel = b.build([when(lt(tidX(), i32(32)), [syncthreads(barrierLoc)], [syncthreads(secondLoc)])]);
    const e = failure(() => new SimulatedKernel(kernel, locator).run([1, 1, 1], [64, 1, 1], [new Int32Array(1)]));
    expect([e.line, e.column]).toEqual([3, 3]);
    expect(e.detail).toBe(
      'syncthreads() is reached by only part of block (0, 0, 0): threads 0–31 wait here; threads 32–63 wait at syncthreads() at line 6:3 (a deadlock on the GPU)',
    );
  });

  test('a block barrier in a block of two dimensions names threads by coordinates', () => {
    const b = new KernelBuilder();
    b.array('out', 'i32');
    const kernel = b.build([when(eq(special('tid.y'), i32(1)), [syncthreads(secondLoc)], [syncthreads(barrierLoc)])]);
    const e = failure(() => new SimulatedKernel(kernel, locator).run([1, 1, 1], [4, 2, 1], [new Int32Array(1)]));
    expect(e.detail).toBe(
      'syncthreads() is reached by only part of block (0, 0, 0): threads (0, 0, 0)–(3, 0, 0) wait here; threads (0, 1, 0)–(3, 1, 0) wait at syncthreads() at line 6:3 (a deadlock on the GPU)',
    );
  });

  test('a warp collective whose mask names a lane that returned: undefined on the GPU, reported', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const kernel = b.build([
      when(eq(lane(), i32(7)), [ret()]),
      expr(store(out, 'i32', [globalIndexX()], shuffle('idx', FULL, lane(), i32(0), i32(32), shuffleLoc))),
    ]);
    const e = failure(() => new SimulatedKernel(kernel, locator).run([1, 1, 1], [32, 1, 1], [new Int32Array(32)]));
    expect([e.line, e.column]).toEqual([4, 7]);
    expect(e.detail).toBe(
      'shfl_sync() in thread (0, 0, 0) of block (0, 0, 0) waits for the lanes of its mask 0xffffffff, but lane 7 (thread (7, 0, 0)) returned: a mask that names an exited lane is undefined on the GPU (name only the lanes that go on, e.g. with activemask() or ballot_sync())',
    );
  });

  test('a warp collective whose mask names a lane that waits elsewhere', () => {
    const b = new KernelBuilder();
    const kernel = b.build([
      when(
        lt(lane(), i32(16)),
        [expr(shuffle('idx', FULL, lane(), i32(0), i32(32), shuffleLoc))],
        [syncwarp(u32(0xffff0000), barrierLoc)],
      ),
    ]);
    const e = failure(() => new SimulatedKernel(kernel, locator).run([1, 1, 1], [32, 1, 1], []));
    // the lanes 16-31 pass their own syncwarp; then they have finished
    expect(e.detail).toBe(
      'shfl_sync() in thread (0, 0, 0) of block (0, 0, 0) waits for the lanes of its mask 0xffffffff, but lane 16 (thread (16, 0, 0)) returned: a mask that names an exited lane is undefined on the GPU (name only the lanes that go on, e.g. with activemask() or ballot_sync())',
    );
    const k2 = new KernelBuilder().build([
      when(
        lt(lane(), i32(16)),
        [expr(shuffle('idx', FULL, lane(), i32(0), i32(32), shuffleLoc))],
        [syncwarp(FULL, barrierLoc)],
      ),
    ]);
    const e2 = failure(() => new SimulatedKernel(k2, locator).run([1, 1, 1], [32, 1, 1], []));
    expect(e2.detail).toBe(
      'shfl_sync() in thread (0, 0, 0) of block (0, 0, 0) waits for the lanes of its mask 0xffffffff, but lane 16 (thread (16, 0, 0)) waits at syncwarp() at line 3:3 (a deadlock on the GPU)',
    );
  });

  test('lanes at one shuffle with different masks', () => {
    // lanes 0-15 name all lanes, lanes 16-31 all but 0-3: neither group can pass
    const kernel = new KernelBuilder().build([
      expr(shuffle('idx', select(lt(lane(), i32(16)), FULL, u32(0xfffffff0)), lane(), i32(0), i32(32), shuffleLoc)),
    ]);
    const e = failure(() => new SimulatedKernel(kernel, locator).run([1, 1, 1], [32, 1, 1], []));
    expect(e.detail).toBe(
      'shfl_sync() in thread (0, 0, 0) of block (0, 0, 0) waits for the lanes of its mask 0xffffffff, but lane 16 (thread (16, 0, 0)) waits there with mask 0xfffffff0 (a deadlock on the GPU)',
    );
  });

  test('a mask without the lane itself, a bad width, a source lane outside the mask', () => {
    const run = (e: Expr, block = 32) =>
      failure(() =>
        new SimulatedKernel(new KernelBuilder().build([expr(e)]), locator).run([1, 1, 1], [block, 1, 1], []),
      );
    expect(run(shuffle('idx', u32(1), lane(), i32(0), i32(32), shuffleLoc)).detail).toBe(
      'thread (1, 0, 0) of block (0, 0, 0): its mask 0x00000001 does not name its own lane 1',
    );
    const width = run(shuffle('idx', FULL, lane(), i32(0), i32(12), shuffleLoc));
    expect([width.line, width.detail]).toEqual([
      4,
      'thread (0, 0, 0) of block (0, 0, 0): the width 12 is not a power of two from 1 to 32',
    ]);
    expect(
      run(
        shuffle('idx', select(lt(lane(), i32(16)), u32(0xffff), u32(0xffff0000)), lane(), i32(20), i32(32), shuffleLoc),
      ).detail,
    ).toBe(
      'thread (0, 0, 0) of block (0, 0, 0) reads lane 20, which is not in the mask 0x0000ffff: its value is undefined on the GPU',
    );
    // a warp reduction in a partial warp reads lanes that do not exist
    expect(run(shuffle('down', FULL, lane(), i32(8), i32(32), shuffleLoc), 40).detail).toBe(
      'thread (32, 0, 0) of block (0, 0, 0) reads lane 8, which does not exist (the block has fewer threads): its value is undefined on the GPU',
    );
  });

  test('a grid barrier that a block never reaches', () => {
    const kernel = new KernelBuilder().build([when(eq(special('ctaid.x'), i32(2)), [ret()]), gridSync(gridLoc)]);
    const e = failure(() => SimulatorKernelRun(kernel, [4, 1, 1], [8, 1, 1]));
    expect([e.line, e.column]).toEqual([5, 3]);
    expect(e.detail).toBe(
      'the grid barrier (cg.thisGrid().sync()) is never passed: every thread of block (2, 0, 0) returned, so no thread arrives for it (a deadlock on the GPU)',
    );
    // thread (0, 0, 0) of a block arrives for it: without it the other blocks wait for good
    const k2 = new KernelBuilder().build([when(eq(globalIndexX(), i32(8)), [ret()]), gridSync(gridLoc)]);
    expect(failure(() => SimulatorKernelRun(k2, [4, 1, 1], [8, 1, 1])).detail).toBe(
      "the grid barrier (cg.thisGrid().sync()) is never passed: thread (0, 0, 0) of block (1, 0, 0) returned: it is the thread that arrives for its block, as in cooperative groups' grid sync (a deadlock on the GPU)",
    );
  });

  test('a grid barrier passes with returned threads: each block that arrives is there, and one block is a block barrier', () => {
    // out[g] = the value the next thread wrote before the grid barrier; threads from 27 on return first
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const kernel = b.build([
      when(compare('ge', globalIndexX(), i32(27)), [ret()]),
      expr(store(out, 'i32', [globalIndexX()], add(globalIndexX(), i32(100)))),
      gridSync(gridLoc),
      when(lt(globalIndexX(), i32(26)), [
        expr(store(out, 'i32', [globalIndexX()], load(out, 'i32', [add(globalIndexX(), i32(1))]))),
      ]),
    ]);
    const reference = (n: number): number[] =>
      Array.from({ length: n }, (_, g) => (g < 26 ? g + 101 : g === 26 ? 126 : 0));
    for (const [grid, block] of [
      [4, 8],
      [1, 32],
      [1, 27],
    ] as const) {
      const host = new Int32Array(grid * block);
      new SimulatedKernel(kernel, locator).run([grid, 1, 1], [block, 1, 1], [host]);
      expect([...host]).toEqual(reference(grid * block));
    }
    // one block: thread (0, 0, 0) returning leaves a block barrier, which passes
    const k2 = new KernelBuilder().build([when(eq(tidX(), i32(0)), [ret()]), gridSync(gridLoc)]);
    expect(() => SimulatorKernelRun(k2, [1, 1, 1], [8, 1, 1])).not.toThrow();
  });

  test('errors that threads raise in lockstep mode name the thread and block', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const kernel = b.build([syncthreads(), expr(store(out, 'i32', [globalIndexX()], i32(1), barrierLoc))]);
    const e = failure(() => new SimulatedKernel(kernel, locator).run([2, 1, 1], [8, 1, 1], [new Int32Array(12)]));
    expect(e.detail).toBe("index 12 is out of bounds of 'out' (length 12), in thread (4, 0, 0) of block (1, 0, 0)");
  });

  /** Runs a kernel with the test locator (a helper that fails like run does). */
  function SimulatorKernelRun(
    kernel: ReturnType<KernelBuilder['build']>,
    grid: [number, number, number],
    block: [number, number, number],
  ): void {
    new SimulatedKernel(kernel, locator).run(grid, block, []);
  }
});
