import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, test } from 'vitest';
import { SimulatorError } from '../errors.js';
import type { Expr, Stmt } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  TextLocator,
  binary,
  block,
  breakTo,
  compare,
  continueTo,
  convert,
  expr,
  get,
  globalIndexX,
  i32,
  inlined,
  load,
  loop,
  mload,
  mstore,
  ret,
  set,
  shuffle,
  special,
  store,
  syncthreads,
  u32,
  when,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

const add = (a: Expr, c: Expr): Expr => binary('add', a, c);
const mul = (a: Expr, c: Expr): Expr => binary('mul', a, c);
const lt = (a: Expr, c: Expr): Expr => compare('lt', a, c);
const inc = (id: number): Stmt => expr(set(id, add(get(id, 'i32'), i32(1))));

/** `function name(x) { ... return v }` as the typer inlines it: x = arg; block { ...; result = v; break }. */
function call(
  b: KernelBuilder,
  name: string,
  arg: Expr,
  make: (x: Expr, result: number, exit: Stmt) => Stmt[],
  id: number,
): Expr {
  const x = b.local(`${name}.x`, arg.type);
  const result = b.local(`${name}.result`, arg.type);
  return inlined(name, arg.type, [expr(set(x, arg)), block(id, make(get(x, arg.type), result, breakTo(id)))], result);
}

describe('inlined device functions', () => {
  test('run their body and have the value of their result; an early return leaves the block', () => {
    // function clampSquare(x) { if (x > 5) return 25; return x * x; }  out[i] = clampSquare(i) + 1
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const value = call(
      b,
      'clampSquare',
      globalIndexX(),
      (x, r, exit) => [when(compare('gt', x, i32(5)), [expr(set(r, i32(25))), exit]), expr(set(r, mul(x, x))), exit],
      100,
    );
    const kernel = b.build([expr(store(out, 'i32', [globalIndexX()], add(value, i32(1))))]);
    const host = new Int32Array(8);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [8, 1, 1], [host]);
    expect([...host]).toEqual([1, 2, 5, 10, 17, 26, 26, 26]);
  });

  test('loops in the body, called from a loop of the kernel: continue and break stay in their function', () => {
    // sumTo(n) { let s = 0; for (k = 0; k < n; k++) { if (k == 2) continue; s += k; } return s }, called for n = 0..4 in a kernel loop
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const n = b.local('n', 'i32');
    const k = b.local('k', 'i32');
    const s = b.local('s', 'i32');
    const body = (x: Expr, r: number, exit: Stmt): Stmt[] => [
      expr(set(s, i32(0))),
      expr(set(k, i32(0))),
      loop(201, {
        test: lt(get(k, 'i32'), x),
        body: [
          when(compare('eq', get(k, 'i32'), i32(2)), [continueTo(201)]),
          expr(set(s, add(get(s, 'i32'), get(k, 'i32')))),
        ],
        update: [inc(k)],
      }),
      expr(set(r, get(s, 'i32'))),
      exit,
    ];
    const kernel = b.build([
      expr(set(n, i32(0))),
      loop(1, {
        test: lt(get(n, 'i32'), i32(5)),
        body: [
          when(compare('eq', get(n, 'i32'), i32(9)), [continueTo(1)]),
          expr(store(out, 'i32', [get(n, 'i32')], call(b, 'sumTo', get(n, 'i32'), body, 200))),
        ],
        update: [inc(n)],
      }),
    ]);
    const host = new Int32Array(5);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [host]);
    expect([...host]).toEqual([0, 0, 1, 1, 4]);
  });

  test('nested calls, and an i64 result held as a number (an index)', () => {
    // twice(x) = x + x; index(i) = convert i64 (twice(i)); out[index(i)] = i
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const idx = b.local('index.result', 'i64');
    const twice = call(b, 'twice', globalIndexX(), (x, r, exit) => [expr(set(r, add(x, x))), exit], 300);
    const index = inlined('index', 'i64', [block(301, [expr(set(idx, convert('i64', twice))), breakTo(301)])], idx);
    const kernel = b.build([expr(store(out, 'i32', [index], globalIndexX()))]);
    const sim = new SimulatedKernel(kernel, NO_POSITIONS);
    expect(sim.source).not.toMatch(/BigInt/);
    const host = new Int32Array(8).fill(-1);
    sim.run([1, 1, 1], [4, 1, 1], [host]);
    expect([...host]).toEqual([0, -1, 1, -1, 2, -1, 3, -1]);
  });

  test('a device function with a shuffle and one with a barrier, in lockstep mode', () => {
    // warpSum(v) { for (o = 16; o > 0; o >>= 1) v += shfl_xor(v, o); return v }
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const o = b.local('o', 'i32');
    const warpSum = call(
      b,
      'warpSum',
      special('laneid'),
      (x, r, exit) => [
        expr(set(r, x)),
        expr(set(o, i32(16))),
        loop(401, {
          test: compare('gt', get(o, 'i32'), i32(0)),
          body: [expr(set(r, add(get(r, 'i32'), shuffle('xor', u32(0xffffffff), get(r, 'i32'), get(o, 'i32')))))],
          update: [expr(set(o, binary('shr', get(o, 'i32'), i32(1))))],
        }),
        exit,
      ],
      400,
    );
    // shared neighbour exchange in a device function: s[t] = v; syncthreads(); return s[(t + 1) % 64]
    const s = b.shared('s', 'i32', 64);
    const t = special('tid.x');
    const neighbour = call(
      b,
      'neighbour',
      warpSum,
      (x, r, exit) => [
        expr(mstore('shared', s, 'i32', [t], x)),
        syncthreads(),
        expr(set(r, mload('shared', s, 'i32', [binary('rem', add(t, i32(1)), i32(64))]))),
        exit,
      ],
      402,
    );
    const kernel = b.build([expr(store(out, 'i32', [t], add(neighbour, mul(t, i32(1000)))))]);
    const sim = new SimulatedKernel(kernel, NO_POSITIONS);
    expect(sim.source).toContain('yield* (function* () {');
    const host = new Int32Array(64);
    sim.run([1, 1, 1], [64, 1, 1], [host]);
    expect([...host]).toEqual(Array.from({ length: 64 }, (_, k) => 496 + k * 1000));
  });

  test('a fault in the body points into the device function, in its own file', () => {
    const kernelText = new TextLocator('function kernel(x, out) {\n  out[i] = get(x, i);\n}', 'kernels/kernel.js');
    const deviceText = new TextLocator('function get(a, i) {\n  return a[i + 1];\n}', 'kernels/lib.js');
    const b = new KernelBuilder();
    const x = b.array('x', 'f32', 1, 'C', { readonly: true });
    const out = b.array('out', 'f32');
    const r = b.local('get.result', 'f32');
    const loc = { ...deviceText.loc('a[i + 1]'), locator: deviceText };
    const body = [block(500, [expr(set(r, load(x, 'f32', [add(globalIndexX(), i32(1))], loc))), breakTo(500)])];
    const kernel = b.build([
      expr(store(out, 'f32', [globalIndexX()], inlined('get', 'f32', body, r, kernelText.loc('get(x, i)')))),
    ]);
    const error = errorOf<unknown>(() => {
      new SimulatedKernel(kernel, kernelText).run([1, 1, 1], [4, 1, 1], [new Float32Array(4), new Float32Array(4)]);
    });
    expect(error).toBeInstanceOf(SimulatorError);
    expect((error as SimulatorError).message).toBe(
      "kernels/lib.js:2:10: index 4 is out of bounds of 'x' (length 4), in device function 'get' called at kernels/kernel.js:2:12, in thread (3, 0, 0) of block (0, 0, 0)\n  return a[i + 1];\n         ^",
    );
  });

  test('a collective in a nested device function that not every lane reaches names both calls', () => {
    const kernelText = new TextLocator('function kernel() {\n  if (lane != 3) outer();\n}', 'kernels/kernel.js');
    const lib = new TextLocator(
      'function outer() {\n  inner();\n}\nfunction inner() {\n  cuda.syncwarp();\n}',
      'kernels/lib.js',
    );
    const b = new KernelBuilder();
    const r1 = b.local('outer.result', 'i32');
    const r2 = b.local('inner.result', 'i32');
    const inner = inlined(
      'inner',
      'i32',
      [{ op: 'barrier', scope: 'warp', mask: u32(0xffffffff), loc: { ...lib.loc('cuda.syncwarp()'), locator: lib } }],
      r2,
      { ...lib.loc('inner()'), locator: lib },
    );
    const outer = inlined('outer', 'i32', [expr(inner)], r1, kernelText.loc('outer()'));
    const kernel = b.build([when(compare('ne', special('laneid'), i32(3)), [expr(outer)])]);
    const error = errorOf<unknown>(() => {
      new SimulatedKernel(kernel, kernelText).run([1, 1, 1], [32, 1, 1], []);
    });
    expect((error as SimulatorError).message).toBe(
      "kernels/lib.js:5:3: syncwarp() in thread (0, 0, 0) of block (0, 0, 0) waits for the lanes of its mask 0xffffffff, but lane 3 (thread (3, 0, 0)) returned: a mask that names an exited lane is undefined on the GPU (name only the lanes that go on, e.g. with activemask() or ballot_sync()), in device function 'inner' called at kernels/lib.js:2:3, from 'outer' called at kernels/kernel.js:2:18\n  cuda.syncwarp();\n  ^",
    );
  });

  test("a kernel 'return' in an inlined body is refused when the kernel is generated", () => {
    const b = new KernelBuilder();
    const r = b.local('r', 'i32');
    const kernel = b.build([expr(inlined('f', 'i32', [ret()], r))]);
    expect(() => new SimulatedKernel(kernel, NO_POSITIONS)).toThrow(
      /a 'return' statement in an inlined device function's body/,
    );
  });
});
