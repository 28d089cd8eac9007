import { f32, i64, u32, u8 } from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { KernelTypeError } from '../errors.js';
import { array } from './signature.js';
import type { Expr } from './typed-ir.js';
import { MarkedLines, nodesOf, onlyNodeOf, typed, typingError, withoutLocs } from './typer.test-support.js';

const here = new MarkedLines(import.meta.url);
const f32x1 = array('f32', 1);
const i32x1 = array('i32', 1);
const u32x1 = array('u32', 1);
const FULL = 0xffffffff;
const constants = { FULL };

const u32c = (value: number): Expr => ({ op: 'const', type: 'u32', value });
const i32c = (value: number): Expr => ({ op: 'const', type: 'i32', value });

describe('synchronization statements', () => {
  it('barriers, fences and sleep, with the collectives they need', () => {
    const k = typed(
      (x: Int32Array) => {
        x[0] = 1;
        cuda.syncthreads();
        cuda.syncwarp();
        cuda.syncwarp(0xff);
        cuda.threadfence();
        cuda.threadfence_block();
        cuda.threadfence_system();
        cuda.nanosleep(100);
      },
      [i32x1],
    );
    expect(withoutLocs(k.body.slice(1))).toEqual([
      { op: 'barrier', scope: 'block' },
      { op: 'barrier', scope: 'warp', mask: u32c(FULL) },
      { op: 'barrier', scope: 'warp', mask: u32c(0xff) },
      { op: 'fence', scope: 'device' },
      { op: 'fence', scope: 'block' },
      { op: 'fence', scope: 'system' },
      { op: 'sleep', nanoseconds: u32c(100) },
    ]);
    expect(k.collectives).toEqual({ block: true, warp: true, grid: false });
  });

  it('a grid barrier, chained or through a held group, makes the kernel cooperative', () => {
    const chained = typed(
      (x: Int32Array) => {
        cuda.cg.thisGrid().sync();
        x[0] = 1;
      },
      [i32x1],
    );
    expect(withoutLocs(chained.body[0])).toEqual({ op: 'barrier', scope: 'grid' });
    expect(chained.collectives).toEqual({ block: false, warp: false, grid: true });
    const held = typed(
      (x: Int32Array) => {
        const g = cuda.cg.thisGrid();
        x[0] = 1;
        g.sync();
      },
      [i32x1],
    );
    expect(withoutLocs(held.body)).toEqual([withoutLocs(held.body[0]), { op: 'barrier', scope: 'grid' }]);
    expect(held.locals).toEqual([]);
    expect(held.collectives.grid).toBe(true);
    expect(() =>
      typed(
        (x: Int32Array) => {
          const g = cuda.cg.thisGrid();
          x[0] = g as unknown as number;
        },
        [i32x1],
      ),
    ).toThrow(/'g' is the grid group: call g\.sync\(\)/);
    expect(() =>
      typed(() => {
        const g = cuda.cg.thisGrid();
        (g as unknown as { wait(): void }).wait();
      }, []),
    ).toThrow(/the grid group 'g' has sync\(\) only/);
    const none = typed(
      (x: Int32Array) => {
        x[0] = 1;
      },
      [i32x1],
    );
    expect(none.collectives).toEqual({ block: false, warp: false, grid: false });
  });

  it('a sleep time and a mask must be integers; intrinsics that give nothing are no values', () => {
    const sleep = typingError(
      (t: number) => {
        cuda.nanosleep(t); // C-sleep
      },
      ['f64'],
    );
    expect(sleep).toBeInstanceOf(KernelTypeError);
    expect(sleep.detail).toMatch(/^the time of cuda\.nanosleep must be an integer, got f64/);
    here.expectAt(sleep, 'C-sleep', 't)');
    const value = typingError(
      (x: Int32Array) => {
        x[0] = cuda.syncthreads() as unknown as number; // C-void
      },
      [i32x1],
    );
    expect(value.detail).toBe('cuda.syncthreads() gives no value: call it as a statement');
    here.expectAt(value, 'C-void', 'cuda.syncthreads');
    expect(() =>
      typed(
        (x: Int32Array) => {
          x[0] = cuda.cg.thisGrid() as unknown as number;
        },
        [i32x1],
      ),
    ).toThrow(/cuda\.cg\.thisGrid\(\) is the grid group/);
    expect(() =>
      typed(
        (x: Float32Array) => {
          cuda.syncwarp(x[0]);
        },
        [f32x1],
      ),
    ).toThrow(/a lane mask must be an integer, got f32/);
  });

  it('counts arguments against each intrinsic and refuses unknown ones', () => {
    const extra = typingError(
      () => {
        // @ts-expect-error: one argument too many
        cuda.shfl_sync(FULL, 1, 2, 32, 5); // C-arity
      },
      [],
      constants,
    );
    expect(extra.detail).toBe('cuda.shfl_sync(mask, value, srcLane, width?) takes 3 to 4 argument(s), 5 given');
    here.expectAt(extra, 'C-arity', 'cuda.shfl_sync');
    expect(() =>
      typed(() => {
        // @ts-expect-error: cuda has no such member
        cuda.warpReduce(1);
      }, []),
    ).toThrow(/cuda\.warpReduce\(\) is not an intrinsic kernels have/);
    // @ts-expect-error: syncthreads takes nothing
    expect(() => typed(() => cuda.syncthreads(1), [])).toThrow(/cuda\.syncthreads\(\) takes 0 argument\(s\), 1 given/);
    // @ts-expect-error: printf needs a format
    expect(() => typed(() => cuda.printf(), [])).toThrow(
      /cuda\.printf\(format, \.\.\.args\) takes at least 1 argument\(s\), 0 given/,
    );
  });
});

describe('votes, shuffles, match and lane masks', () => {
  it('block votes are block collectives: count is i32, and/or are bool, predicates are truthy', () => {
    const k = typed(
      (x: Float32Array, out: Int32Array) => {
        const t = cuda.threadIdx.x;
        const n = cuda.syncthreads_count(x[t]);
        const all = cuda.syncthreads_and(x[t]! > 0);
        const any = cuda.syncthreads_or(t);
        out[t] = n + (all ? 1 : 0) + (any ? 2 : 0);
      },
      [f32x1, i32x1],
    );
    const votes = nodesOf(k.body, 'vote');
    expect(votes.map((v) => [v.scope, v.mode, v.type, v.mask, v.predicate.type])).toEqual([
      ['block', 'count', 'i32', undefined, 'bool'],
      ['block', 'and', 'bool', undefined, 'bool'],
      ['block', 'or', 'bool', undefined, 'bool'],
    ]);
    // a float predicate is `x != 0` (a conversion to bool), as in JavaScript
    expect(votes[0]!.predicate).toMatchObject({ op: 'convert', type: 'bool', operand: { op: 'load', type: 'f32' } });
    expect(k.locals.map((l) => `${l.name}:${l.type}`)).toEqual(['t:i32', 'n:i32', 'all:bool', 'any:bool']);
    expect(k.collectives).toEqual({ block: true, warp: false, grid: false });
  });

  it('warp votes take a u32 mask; ballot is u32, the others bool', () => {
    const k = typed(
      (x: Int32Array, out: Uint32Array) => {
        const v = x[cuda.laneid]!;
        const b = cuda.ballot_sync(FULL, v > 2);
        const all = cuda.all_sync(-1, v);
        const any = cuda.any_sync(FULL, v === 3);
        const eq = cuda.eq_sync(FULL, v < 0);
        out[0] = b + (all && any && eq ? 1 : 0);
      },
      [i32x1, u32x1],
      constants,
    );
    const votes = nodesOf(k.body, 'vote');
    expect(votes.map((v) => [v.scope, v.mode, v.type])).toEqual([
      ['warp', 'ballot', 'u32'],
      ['warp', 'all', 'bool'],
      ['warp', 'any', 'bool'],
      ['warp', 'eq', 'bool'],
    ]);
    // -1 as a mask is all lanes, as in C
    expect(votes.map((v) => withoutLocs(v.mask))).toEqual([u32c(FULL), u32c(FULL), u32c(FULL), u32c(FULL)]);
    expect(k.collectives).toEqual({ block: false, warp: true, grid: false });
  });

  it('shuffles keep the value type (small integers become i32); lanes and widths are i32', () => {
    const k = typed(
      (x: Float32Array, big: BigInt64Array, small: Uint8Array) => {
        const lane = cuda.laneid;
        x[lane] = cuda.shfl_down_sync(FULL, x[lane]!, 16);
        big[lane] = cuda.shfl_xor_sync(FULL, big[lane]!, 1, 8);
        small[lane] = cuda.shfl_up_sync(FULL, small[lane]!, lane);
        x[0] = cuda.shfl_sync(FULL, 2, 0);
        x[1] = cuda.shfl_sync(FULL, 0.5, 0);
      },
      [f32x1, array('i64', 1), array('u8', 1)],
      constants,
    );
    const shuffles = nodesOf(k.body, 'shuffle');
    expect(shuffles.map((s) => [s.mode, s.type, s.value.type, s.lane.type, withoutLocs(s.width)])).toEqual([
      ['down', 'f32', 'f32', 'i32', i32c(32)],
      ['xor', 'i64', 'i64', 'i32', i32c(8)],
      ['up', 'i32', 'i32', 'i32', i32c(32)],
      ['idx', 'i32', 'i32', 'i32', i32c(32)],
      ['idx', 'f64', 'f64', 'i32', i32c(32)],
    ]);
    expect(shuffles[2]!.value).toMatchObject({ op: 'convert', type: 'i32', operand: { op: 'load', type: 'u8' } });
    expect(withoutLocs(shuffles[0]!.mask)).toEqual(u32c(FULL));
    expect(k.collectives.warp).toBe(true);
  });

  it('refuses bool values, float lanes and widths that are no power of two', () => {
    const flag = typingError(
      (x: Int32Array) => {
        x[0] = cuda.shfl_sync(FULL, (x[0]! > 0) as unknown as number, 0); // C-bool
      },
      [i32x1],
      constants,
    );
    expect(flag.detail).toBe('cuda.shfl_sync takes a number, got a bool; convert it first: cuda.i32(x)');
    here.expectAt(flag, 'C-bool', 'x[0]! > 0');
    expect(() =>
      typed(
        (x: Int32Array) => {
          x[0] = cuda.shfl_sync(FULL, x[0]!, 0, 12);
        },
        [i32x1],
        constants,
      ),
    ).toThrow(/the width of a shuffle is a power of two from 1 to 32, got 12/);
    expect(() =>
      typed(
        (x: Int32Array, l: number) => {
          x[0] = cuda.shfl_sync(FULL, x[0]!, l);
        },
        [i32x1, 'f64'],
        constants,
      ),
    ).toThrow(/the srcLane of a shuffle must be an integer, got f64/);
  });

  it('match compares 32- and 64-bit values; activemask is warp-wide, lanemask_lt is not', () => {
    const k = typed(
      (x: BigUint64Array, out: Uint32Array) => {
        const peers = cuda.match_any_sync(FULL, x[cuda.laneid]!);
        const same = cuda.match_all_sync(FULL, cuda.laneid & 1);
        out[0] = peers & same & cuda.lanemask_lt();
      },
      [array('u64', 1), u32x1],
      constants,
    );
    const matches = nodesOf(k.body, 'match');
    expect(matches.map((m) => [m.mode, m.type, m.valueType, m.value.type])).toEqual([
      ['any', 'u32', 'u64', 'u64'],
      ['all', 'u32', 'i32', 'i32'],
    ]);
    expect(withoutLocs(onlyNodeOf(k.body, 'lanemask'))).toEqual({ op: 'lanemask', type: 'u32', which: 'lt' });
    expect(k.collectives.warp).toBe(true);
    const lt = typed(
      (out: Uint32Array) => {
        out[0] = cuda.lanemask_lt();
      },
      [u32x1],
    );
    expect(lt.collectives).toEqual({ block: false, warp: false, grid: false });
    const active = typed(
      (out: Uint32Array) => {
        out[0] = cuda.activemask();
      },
      [u32x1],
    );
    expect(withoutLocs(onlyNodeOf(active.body, 'lanemask'))).toEqual({
      op: 'lanemask',
      type: 'u32',
      which: 'activemask',
    });
    expect(active.collectives).toEqual({ block: false, warp: true, grid: false });
  });
});

describe('bit functions, cbrt, selp and clock64', () => {
  it('bits take integers (small ones as i32); popc, clz and ffs give i32, brev the argument type', () => {
    const k = typed(
      (a: Uint32Array, b: BigInt64Array, c: Uint8Array, out: Int32Array, rev: BigInt64Array) => {
        out[0] = cuda.popc(a[0]!) + cuda.clz(b[0]!) + cuda.ffs(c[0]!) + cuda.popc(0xff);
        rev[0] = cuda.brev(b[0]!);
        a[1] = cuda.brev(a[0]!);
      },
      [u32x1, array('i64', 1), array('u8', 1), i32x1, array('i64', 1)],
    );
    expect(nodesOf(k.body, 'bits').map((b) => [b.fn, b.type, b.argType, b.arg.type])).toEqual([
      ['popc', 'i32', 'u32', 'u32'],
      ['clz', 'i32', 'i64', 'i64'],
      ['ffs', 'i32', 'i32', 'i32'],
      ['popc', 'i32', 'i32', 'i32'],
      ['brev', 'i64', 'i64', 'i64'],
      ['brev', 'u32', 'u32', 'u32'],
    ]);
    const float = typingError(
      (x: Float32Array, out: Int32Array) => {
        out[0] = cuda.popc(x[0]!); // C-popc
      },
      [f32x1, i32x1],
    );
    expect(float.detail).toBe('cuda.popc(x) takes an integer, got f32');
    here.expectAt(float, 'C-popc', 'x[0]');
    expect(() =>
      typed(
        (out: Int32Array) => {
          out[0] = cuda.clz(true as unknown as number);
        },
        [i32x1],
      ),
    ).toThrow(/cuda\.clz\(x\) takes an integer, got bool/);
  });

  it('cbrt is the math function; selp is a select in the common type; clock64 is a u64 timer', () => {
    const k = typed(
      (x: Float32Array, out: Float64Array, t: BigUint64Array) => {
        x[0] = cuda.cbrt(x[0]!);
        out[0] = cuda.selp(x[0]! > 1, x[1]!, 2.5) * out[1]!;
        x[2] = cuda.selp(x[0]!, 1, -1);
        t[0] = cuda.clock64();
      },
      [f32x1, array('f64', 1), array('u64', 1)],
    );
    expect(withoutLocs(onlyNodeOf(k.body, 'math'))).toMatchObject({ fn: 'cbrt', type: 'f32', argType: 'f32' });
    const [a, b] = nodesOf(k.body, 'select');
    // a float literal takes the f32 it meets
    expect(a).toMatchObject({
      type: 'f32',
      test: { op: 'compare' },
      then: { op: 'load', type: 'f32' },
      otherwise: { op: 'const', type: 'f32', value: 2.5 },
    });
    expect(b).toMatchObject({
      type: 'i32',
      test: { op: 'convert', type: 'bool' },
      then: { value: 1 },
      otherwise: { value: -1 },
    });
    expect(withoutLocs(onlyNodeOf(k.body, 'timer'))).toEqual({ op: 'timer', type: 'u64', which: 'clock64' });
  });

  it('names reached through a namespace object are the same intrinsics', () => {
    const ns = { cuda, u32, f32, i64, u8 };
    const k = typed(
      (out: Uint32Array) => {
        ns.cuda.syncthreads();
        out[0] = ns.cuda.ballot_sync(ns.u32(FULL) as unknown as number, true);
      },
      [u32x1],
      constants,
    );
    expect(k.body[0]).toMatchObject({ op: 'barrier', scope: 'block' });
    expect(onlyNodeOf(k.body, 'vote')).toMatchObject({
      mode: 'ballot',
      mask: { op: 'const', type: 'u32', value: FULL },
    });
  });
});
