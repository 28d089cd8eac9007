import { describe, expect, test } from 'vitest';
import type { Expr, Stmt } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  binary,
  block,
  breakTo,
  compare,
  continueTo,
  expr,
  get,
  i32,
  load,
  loop,
  ret,
  set,
  special,
  store,
  when,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

/** Runs `body(out, locals)` in `threads` threads of one block with an i32 `out` array of `size` elements. */
function run(size: number, make: (b: KernelBuilder, out: number) => Stmt[], threads = 1): number[] {
  const b = new KernelBuilder();
  const out = b.array('out', 'i32');
  const kernel = b.build(make(b, out));
  const host = new Int32Array(size);
  new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [threads, 1, 1], [host]);
  return [...host];
}

const add = (a: Expr, c: Expr): Expr => binary('add', a, c);
const inc = (id: number): Stmt => expr(set(id, add(get(id, 'i32'), i32(1))));
const lt = (a: Expr, c: Expr): Expr => compare('lt', a, c);
const eq = (a: Expr, c: Expr): Expr => compare('eq', a, c);
/** out[k] = out[k] + v */
const accumulate = (out: number, k: Expr, v: Expr): Stmt => expr(store(out, 'i32', [k], add(load(out, 'i32', [k]), v)));

describe('if', () => {
  test('then and else', () => {
    const got = run(
      4,
      (_, out) => {
        const t = special('tid.x');
        return [when(lt(t, i32(2)), [expr(store(out, 'i32', [t], i32(1)))], [expr(store(out, 'i32', [t], i32(2)))])];
      },
      4,
    );
    expect(got).toEqual([1, 1, 2, 2]);
  });
});

describe('loops', () => {
  test('for (k = 0; k < 5; k++) sum += k', () => {
    const got = run(1, (b, out) => {
      const k = b.local('k', 'i32');
      return [
        expr(set(k, i32(0))),
        loop(0, { test: lt(get(k, 'i32'), i32(5)), body: [accumulate(out, i32(0), get(k, 'i32'))], update: [inc(k)] }),
      ];
    });
    expect(got).toEqual([10]);
  });

  test('while (k < 3) with the update in the body', () => {
    const got = run(3, (b, out) => {
      const k = b.local('k', 'i32');
      return [
        loop(1, {
          test: lt(get(k, 'i32'), i32(3)),
          body: [expr(store(out, 'i32', [get(k, 'i32')], add(get(k, 'i32'), i32(10)))), inc(k)],
        }),
      ];
    });
    expect(got).toEqual([10, 11, 12]);
  });

  test('do ... while runs the body once before the test; continue goes to the test', () => {
    const got = run(2, (b, out) => {
      const k = b.local('k', 'i32');
      return [
        loop(2, { body: [accumulate(out, i32(0), i32(1))], postTest: lt(i32(1), i32(0)) }), // false test: one pass
        loop(3, {
          body: [inc(k), when(eq(get(k, 'i32'), i32(2)), [continueTo(3)]), accumulate(out, i32(1), get(k, 'i32'))],
          postTest: lt(get(k, 'i32'), i32(4)),
        }),
      ];
    });
    expect(got).toEqual([1, 1 + 3 + 4]);
  });

  test('continue runs the update; break leaves the loop', () => {
    // for (k = 0; k < 10; k++) { if (k == 2) continue; if (k == 6) break; sum += k }
    const got = run(1, (b, out) => {
      const k = b.local('k', 'i32');
      const kv = get(k, 'i32');
      return [
        loop(0, {
          test: lt(kv, i32(10)),
          body: [
            when(eq(kv, i32(2)), [continueTo(0)]),
            when(eq(kv, i32(6)), [breakTo(0)]),
            accumulate(out, i32(0), kv),
          ],
          update: [inc(k)],
        }),
      ];
    });
    expect(got).toEqual([0 + 1 + 3 + 4 + 5]);
  });

  test('a loop with a test, a statement update and a post-test (the general form)', () => {
    // test k < 10; body: if (k == 1) continue; sum += k; update: if (k < 100) k += 2; postTest: k != 7
    const got = run(2, (b, out) => {
      const k = b.local('k', 'i32');
      const kv = get(k, 'i32');
      return [
        expr(set(k, i32(1))),
        loop(4, {
          test: lt(kv, i32(10)),
          body: [when(eq(kv, i32(1)), [continueTo(4)]), accumulate(out, i32(0), kv), accumulate(out, i32(1), i32(1))],
          update: [when(lt(kv, i32(100)), [expr(set(k, add(kv, i32(2))))])],
          postTest: compare('ne', kv, i32(7)),
        }),
      ];
    });
    // k = 1 (skipped), 3, 5, then 7 fails the post-test
    expect(got).toEqual([3 + 5, 2]);
  });

  test('labelled break and continue of an outer loop from an inner one', () => {
    // for (i = 0; i < 4; i++) for (j = 0; j < 4; j++) { if (j > i) continue outer; if (i == 3) break outer; count++ }
    const got = run(2, (b, out) => {
      const i = b.local('i', 'i32');
      const j = b.local('j', 'i32');
      const iv = get(i, 'i32');
      const jv = get(j, 'i32');
      const inner = loop(1, {
        test: lt(jv, i32(4)),
        body: [
          when(compare('gt', jv, iv), [continueTo(0)]),
          when(eq(iv, i32(3)), [breakTo(0)]),
          accumulate(out, i32(0), i32(1)),
        ],
        update: [inc(j)],
      });
      return [
        loop(0, { test: lt(iv, i32(4)), body: [expr(set(j, i32(0))), inner], update: [inc(i)] }),
        expr(store(out, 'i32', [i32(1)], iv)),
      ];
    });
    expect(got).toEqual([1 + 2 + 3, 3]);
  });

  test('for (;;) with a break', () => {
    const got = run(1, (b, out) => {
      const k = b.local('k', 'i32');
      return [
        loop(0, { body: [inc(k), when(eq(get(k, 'i32'), i32(7)), [breakTo(0)])] }),
        expr(store(out, 'i32', [i32(0)], get(k, 'i32'))),
      ];
    });
    expect(got).toEqual([7]);
  });
});

describe('blocks and return', () => {
  test('break leaves a labelled block', () => {
    const got = run(2, (_, out) => [
      block(5, [expr(store(out, 'i32', [i32(0)], i32(1))), breakTo(5), expr(store(out, 'i32', [i32(0)], i32(2)))]),
      expr(store(out, 'i32', [i32(1)], i32(3))),
    ]);
    expect(got).toEqual([1, 3]);
  });

  test('return ends the thread only: the next thread runs', () => {
    const got = run(
      4,
      (_, out) => {
        const t = special('tid.x');
        return [when(eq(binary('and', t, i32(1)), i32(1)), [ret()]), expr(store(out, 'i32', [t], i32(9)))];
      },
      4,
    );
    expect(got).toEqual([9, 0, 9, 0]);
  });

  test('return from inside nested loops', () => {
    const got = run(
      3,
      (b, out) => {
        const k = b.local('k', 'i32');
        const t = special('tid.x');
        return [
          loop(0, {
            body: [loop(1, { body: [inc(k), when(eq(get(k, 'i32'), add(t, i32(2))), [ret()])] })],
          }),
          expr(store(out, 'i32', [t], i32(-1))), // never reached
        ];
      },
      3,
    );
    expect(got).toEqual([0, 0, 0]);
  });

  test('locals start again at 0 in every thread; scalar parameters at their argument', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const n = b.scalar('n', 'i32');
    const k = b.local('k', 'i32');
    const t = special('tid.x');
    const kernel = b.build([
      expr(set(k, add(get(k, 'i32'), t))),
      expr(set(n, add(get(n, 'i32'), i32(1)))), // a parameter is a local of each thread
      expr(store(out, 'i32', [t], add(binary('mul', get(k, 'i32'), i32(100)), get(n, 'i32')))),
    ]);
    const host = new Int32Array(3);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [3, 1, 1], [host, 5]);
    expect([...host]).toEqual([6, 106, 206]);
  });
});
