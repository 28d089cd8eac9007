import { describe, expect, test } from 'vitest';
import { KernelArgumentError } from '../errors.js';
import type { Expr, Stmt } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  TextLocator,
  binary,
  compare,
  convert,
  expr,
  f32,
  get,
  globalIndexX,
  gridSync,
  i32,
  i64,
  loop,
  mdim,
  mload,
  mstore,
  select,
  set,
  special,
  store,
  syncthreads,
  when,
  failure,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

const add = (a: Expr, c: Expr): Expr => binary('add', a, c);
const mul = (a: Expr, c: Expr): Expr => binary('mul', a, c);
const tid = (): Expr => special('tid.x');

describe('shared arrays', () => {
  for (const mode of ['fast', 'lockstep', 'grid'] as const) {
    test(`one per block, zeroed when the block starts (${mode} mode)`, () => {
      // out[global] = s[tid] (0 if zeroed); then s[tid] = 99, which the next block must not see
      const b = new KernelBuilder();
      const out = b.array('out', 'i32');
      const s = b.shared('s', 'i32', 16);
      const sync: Stmt[] = mode === 'fast' ? [] : mode === 'lockstep' ? [syncthreads()] : [gridSync()];
      const kernel = b.build([
        expr(store(out, 'i32', [globalIndexX()], mload('shared', s, 'i32', [tid()]))),
        ...sync,
        expr(mstore('shared', s, 'i32', [tid()], add(i32(99), special('ctaid.x')))),
      ]);
      const sim = new SimulatedKernel(kernel, NO_POSITIONS);
      expect(sim.mode).toEqual({ lockstep: mode !== 'fast', grid: mode === 'grid' });
      const host = new Int32Array(3 * 16).fill(-1);
      sim.run([3, 1, 1], [16, 1, 1], [host]);
      expect([...host]).toEqual(new Array(48).fill(0));
      host.fill(-1);
      sim.run([3, 1, 1], [16, 1, 1], [host]); // and again in the next launch
      expect([...host]).toEqual(new Array(48).fill(0));
    });
  }

  test('2-D shared arrays are C order; dim gives their shape and strides', () => {
    // tile[ty][tx] = ty * 10 + tx; syncthreads(); out[ty * 4 + tx] = tile[tx][ty] (a transpose of a 4 x 4 tile)
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const dims = b.array('dims', 'i64');
    const tile = b.shared('tile', 'i32', [4, 4]);
    const ty = special('tid.y');
    const tx = tid();
    const kernel = b.build([
      expr(mstore('shared', tile, 'i32', [ty, tx], add(mul(ty, i32(10)), tx))),
      syncthreads(),
      expr(store(out, 'i32', [add(mul(ty, i32(4)), tx)], mload('shared', tile, 'i32', [tx, ty]))),
      when(compare('eq', add(tx, ty), i32(0)), [
        expr(store(dims, 'i64', [i32(0)], mdim('shared', tile, 'shape', 0))),
        expr(store(dims, 'i64', [i32(1)], mdim('shared', tile, 'shape', 1))),
        expr(store(dims, 'i64', [i32(2)], mdim('shared', tile, 'stride', 0))),
        expr(store(dims, 'i64', [i32(3)], mdim('shared', tile, 'stride', 1))),
      ]),
    ]);
    const host = new Int32Array(16);
    const d = new BigInt64Array(4);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [4, 4, 1], [host, d]);
    expect([...host]).toEqual(Array.from({ length: 16 }, (_, k) => (k % 4) * 10 + Math.floor(k / 4)));
    expect([...d]).toEqual([4n, 4n, 4n, 1n]);
  });
});

describe('dynamic shared arrays', () => {
  test('views of one buffer of the launch sharedMemory bytes: arrays of different dtypes alias', () => {
    // floats[t] = 1.5 + t; syncthreads(); words[t] is the same bytes as u32; bytes[4t + 3] their top byte
    const b = new KernelBuilder();
    const out = b.array('out', 'u32');
    const lengths = b.array('lengths', 'i64');
    const floats = b.dynamicShared('floats', 'f32');
    const words = b.dynamicShared('words', 'u32');
    const bytes = b.dynamicShared('bytes', 'u8');
    const doubles = b.dynamicShared('doubles', 'f64');
    const kernel = b.build([
      expr(mstore('shared', floats, 'f32', [tid()], add(f32(1.5), convert('f32', tid())))),
      syncthreads(),
      expr(store(out, 'u32', [mul(tid(), i32(2))], mload('shared', words, 'u32', [tid()]))),
      expr(
        store(
          out,
          'u32',
          [add(mul(tid(), i32(2)), i32(1))],
          convert('u32', mload('shared', bytes, 'u8', [add(mul(tid(), i32(4)), i32(3))])),
        ),
      ),
      when(compare('eq', tid(), i32(0)), [
        expr(store(lengths, 'i64', [i32(0)], mdim('shared', floats, 'shape', 0))),
        expr(store(lengths, 'i64', [i32(1)], mdim('shared', bytes, 'shape', 0))),
        expr(store(lengths, 'i64', [i32(2)], mdim('shared', doubles, 'shape', 0))),
      ]),
    ]);
    const host = new Uint32Array(8);
    const lens = new BigInt64Array(3);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [4, 1, 1], [host, lens], { sharedMemory: 20 });
    const expected = new Float32Array([1.5, 2.5, 3.5, 4.5]);
    const asWords = new Uint32Array(expected.buffer);
    expect([...host]).toEqual([...asWords].flatMap((w) => [w, w >>> 24]));
    // floor(20 / 4), floor(20 / 1), floor(20 / 8)
    expect([...lens]).toEqual([5n, 20n, 2n]);
  });

  test('their extent comes from the launch: an index past it, or no sharedMemory at all, is out of bounds', () => {
    const text = 'function k() {\n  buf[i] = 1;\n}';
    const locator = new TextLocator(text);
    const b = new KernelBuilder();
    const buf = b.dynamicShared('buf', 'f64');
    const kernel = b.build([
      expr(mstore('shared', buf, 'f64', [tid()], { op: 'const', type: 'f64', value: 1 }, locator.loc('buf[i]'))),
    ]);
    const sim = new SimulatedKernel(kernel, locator);
    expect(() => sim.run([1, 1, 1], [4, 1, 1], [], { sharedMemory: 32 })).not.toThrow();
    const past = failure(() => sim.run([1, 1, 1], [4, 1, 1], [], { sharedMemory: 31 }));
    expect(past.message).toBe(
      "kernels/test-kernel.js:2:3: index 3 is out of bounds of dynamic shared array 'buf' (length 3, from 31 bytes of dynamic shared memory), in thread (3, 0, 0) of block (0, 0, 0)\n  buf[i] = 1;\n  ^",
    );
    expect(failure(() => sim.run([1, 1, 1], [4, 1, 1], [])).detail).toBe(
      "index 0 is out of bounds of dynamic shared array 'buf' (length 0, from 0 bytes of dynamic shared memory), in thread (0, 0, 0) of block (0, 0, 0)",
    );
  });

  test('sharedMemory must be a whole number of bytes', () => {
    const sim = new SimulatedKernel(new KernelBuilder().build([]), NO_POSITIONS);
    expect(() => sim.run([1, 1, 1], [1, 1, 1], [], { sharedMemory: -1 })).toThrow(KernelArgumentError);
    expect(() => sim.run([1, 1, 1], [1, 1, 1], [], { sharedMemory: 1.5 })).toThrow(
      'sharedMemory must be a whole number of bytes from 0 to 2^31-1, got 1.5',
    );
    expect(() => sim.run([1, 1, 1], [1, 1, 1], [], { sharedMemory: 0 })).not.toThrow();
  });
});

describe('local arrays', () => {
  for (const lockstep of [false, true]) {
    test(`one per thread, zeroed, in every mode (${lockstep ? 'lockstep' : 'fast'})`, () => {
      // for (k = 0; k < 4; k++) a[k] += tid * 10 + k  (a[k] starts at 0), then out[4 tid + k] = a[k]; i64 too
      const b = new KernelBuilder();
      const out = b.array('out', 'i32');
      const outBig = b.array('outBig', 'i64');
      const a = b.localArray('a', 'i32', 4);
      const big = b.localArray('big', 'i64', [2, 2]);
      const k = b.local('k', 'i32');
      const kv = get(k, 'i32');
      const value = add(mul(tid(), i32(10)), kv);
      const kernel = b.build([
        expr(set(k, i32(0))),
        loop(0, {
          test: compare('lt', kv, i32(4)),
          body: [
            expr(mstore('local', a, 'i32', [kv], add(mload('local', a, 'i32', [kv]), value))),
            ...(lockstep ? [syncthreads()] : []),
            expr(
              mstore(
                'local',
                big,
                'i64',
                [binary('shr', kv, i32(1)), binary('and', kv, i32(1))],
                add(
                  mload('local', big, 'i64', [binary('shr', kv, i32(1)), binary('and', kv, i32(1))]),
                  add(i64(2n ** 60n), convert('i64', value)),
                ),
              ),
            ),
          ],
          update: [expr(set(k, add(kv, i32(1))))],
        }),
        expr(set(k, i32(0))),
        loop(1, {
          test: compare('lt', kv, i32(4)),
          body: [
            expr(store(out, 'i32', [add(mul(globalIndexX(), i32(4)), kv)], mload('local', a, 'i32', [kv]))),
            expr(
              store(
                outBig,
                'i64',
                [add(mul(globalIndexX(), i32(4)), kv)],
                mload('local', big, 'i64', [binary('shr', kv, i32(1)), binary('and', kv, i32(1))]),
              ),
            ),
          ],
          update: [expr(set(k, add(kv, i32(1))))],
        }),
      ]);
      const sim = new SimulatedKernel(kernel, NO_POSITIONS);
      expect(sim.mode.lockstep).toBe(lockstep);
      const host = new Int32Array(2 * 8 * 4);
      const hostBig = new BigInt64Array(2 * 8 * 4);
      sim.run([2, 1, 1], [8, 1, 1], [host, hostBig]);
      expect([...host]).toEqual(Array.from({ length: 64 }, (_, n) => (Math.floor(n / 4) % 8) * 10 + (n % 4)));
      expect([...hostBig]).toEqual([...host].map((v) => 2n ** 60n + BigInt(v)));
    });
  }
});

describe('const arrays', () => {
  test('hold their data, of every kind, in C order', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'f64');
    const outBig = b.array('outBig', 'i64');
    const table = b.constArray('TABLE', 'f32', 4, [0.1, 0.2, 0.3, 0.4]);
    const grid = b.constArray('GRID', 'i32', [2, 3], [1, 2, 3, 4, 5, 6]);
    const bigs = b.constArray('BIGS', 'i64', 2, [-(2n ** 62n), 2n ** 62n + 1n]);
    const flags = b.constArray('FLAGS', 'bool', 3, [true, false, true]);
    const t = tid();
    const kernel = b.build([
      when(compare('lt', t, i32(4)), [expr(store(out, 'f64', [t], convert('f64', mload('const', table, 'f32', [t]))))]),
      when(compare('lt', t, i32(6)), [
        expr(
          store(
            out,
            'f64',
            [add(t, i32(4))],
            convert(
              'f64',
              mload('const', grid, 'i32', [
                binary('div', convert('i64', t), i64(3)),
                convert('i64', binary('rem', t, i32(3))),
              ]),
            ),
          ),
        ),
      ]),
      when(compare('lt', t, i32(3)), [
        expr(
          store(
            out,
            'f64',
            [add(t, i32(10))],
            select(
              mload('const', flags, 'bool', [t]),
              { op: 'const', type: 'f64', value: 1 },
              { op: 'const', type: 'f64', value: 0 },
            ),
          ),
        ),
      ]),
      when(compare('lt', t, i32(2)), [expr(store(outBig, 'i64', [t], mload('const', bigs, 'i64', [t])))]),
      when(compare('eq', t, i32(0)), [expr(store(outBig, 'i64', [i32(2)], mdim('const', grid, 'shape', 1)))]),
    ]);
    const host = new Float64Array(13);
    const big = new BigInt64Array(3);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [8, 1, 1], [host, big]);
    expect([...host]).toEqual([...[0.1, 0.2, 0.3, 0.4].map(Math.fround), 1, 2, 3, 4, 5, 6, 1, 0, 1]);
    expect([...big]).toEqual([-(2n ** 62n), 2n ** 62n + 1n, 3n]);
  });
});

describe('out-of-bounds accesses of the kernel own arrays', () => {
  const text = 'function k() {\n  s[i] = 1;\n  l[i] = 1;\n  c[i];\n  g[i][j];\n}';
  const locator = new TextLocator(text);
  const run = (make: (b: KernelBuilder) => Stmt[], threads = 8) => {
    const b = new KernelBuilder();
    const kernel = b.build(make(b));
    return failure(() => new SimulatedKernel(kernel, locator).run([1, 1, 1], [threads, 1, 1], []));
  };

  test('shared, local and const arrays, with their names and extents', () => {
    const shared = run((b) => [
      expr(mstore('shared', b.shared('s', 'f32', 4), 'f32', [add(tid(), i32(1))], f32(1), locator.loc('s[i]'))),
    ]);
    expect(shared.message).toBe(
      "kernels/test-kernel.js:2:3: index 4 is out of bounds of shared array 's' (length 4), in thread (3, 0, 0) of block (0, 0, 0)\n  s[i] = 1;\n  ^",
    );
    const local = run((b) => [
      expr(
        mstore(
          'local',
          b.localArray('l', 'i32', 3),
          'i32',
          [binary('sub', tid(), i32(1))],
          i32(1),
          locator.loc('l[i]'),
        ),
      ),
    ]);
    expect([local.line, local.detail]).toEqual([
      3,
      "index -1 is out of bounds of local array 'l' (length 3), in thread (0, 0, 0) of block (0, 0, 0)",
    ]);
    const constant = run((b) => [
      expr(mload('const', b.constArray('c', 'i32', 2, [1, 2]), 'i32', [tid()], locator.loc('c[i]'))),
    ]);
    expect([constant.line, constant.detail]).toEqual([
      4,
      "index 2 is out of bounds of const array 'c' (length 2), in thread (2, 0, 0) of block (0, 0, 0)",
    ]);
    const twoD = run((b) => [
      expr(mload('shared', b.shared('g', 'i32', [2, 3]), 'i32', [i32(1), tid()], locator.loc('g[i][j]'))),
    ]);
    expect([twoD.line, twoD.detail]).toEqual([
      5,
      "index 3 is out of bounds for dimension 1 of shared array 'g' (shape [2, 3], indices [1, 3]), in thread (3, 0, 0) of block (0, 0, 0)",
    ]);
  });
});
