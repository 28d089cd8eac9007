// Every Stmt op: if, the three loop forms, labelled blocks, break and
// continue (to inner and outer statements), return, and the dead code after
// a jump; libNVVM and ptxas accept each.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import type { Stmt } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import {
  KernelBuilder,
  binary,
  block,
  breakTo,
  compare,
  continueTo,
  exprStmt,
  i32,
  ifStmt,
  loop,
  returnStmt,
} from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

/** The scalar `n`, counters `i` and `j`, an output array, and statements on them. */
function parts(k: KernelBuilder) {
  const n = k.scalar('n', 'i32');
  const out = k.array('out', 'i32', 1, 'C', { shape: true });
  const i = k.local('i', 'i32');
  const j = k.local('j', 'i32');
  const inc = (v: typeof i): Stmt => exprStmt(v.set(binary('add', v.get, i32(1))));
  const record = (v: typeof i): Stmt => exprStmt(out.store([{ op: 'convert', type: 'i64', operand: v.get }], v.get));
  return { n, out, i, j, inc, record };
}

type Parts = ReturnType<typeof parts>;

/** A kernel of control-flow statements over {@link parts}. */
function controlKernel(name: string, body: (p: Parts) => Stmt[]) {
  const k = new KernelBuilder(name);
  return k.build(body(parts(k)));
}

const forLoop = (id: number, p: Parts, body: Stmt[]): Stmt =>
  loop(id, { test: compare('lt', p.i.get, p.n.get), body, update: [p.inc(p.i)] });

it('lowers for (; test; update) with continue going to the update and break to the exit', () => {
  const ir = lowerKernel(
    controlKernel('for_loop', (p) => [
      forLoop(0, p, [
        ifStmt(compare('eq', p.i.get, i32(3)), [continueTo(0)]),
        ifStmt(compare('eq', p.i.get, i32(7)), [breakTo(0)]),
        p.record(p.i),
      ]),
    ]),
  );
  const head =
    /br label %(loop\.head\.\d+)\n\1:\n(?:.*\n)*?\s+br i1 %t\d+, label %(loop\.body\.\d+), label %(loop\.exit\.\d+)/.exec(
      ir,
    );
  expect(head).not.toBeNull();
  const [, headLabel, , exitLabel] = head!;
  const next =
    /(loop\.next\.\d+):\n(?:.*\n)*?\s+store i32 %t\d+, i32\* %l1\.i(?:.*\n)*?\s+br label %(loop\.head\.\d+)/.exec(ir);
  expect(next).not.toBeNull();
  expect(next![2]).toBe(headLabel);
  expect(ir).toContain(`br label %${next![1]}`); // the continue
  expect(ir).toMatch(new RegExp(`if\\.then\\.\\d+:\\n\\s+br label %${exitLabel!.replace('.', '\\.')}`)); // the break
});

it('lowers do … while (postTest) with the test after the body, and while (test) with none', () => {
  const doWhile = lowerKernel(
    controlKernel('do_while', (p) => [loop(0, { body: [p.inc(p.i)], postTest: compare('lt', p.i.get, p.n.get) })]),
  );
  expect(doWhile).toMatch(/loop\.next\.\d+:\n(?:.*\n)*?\s+br i1 %t\d+, label %loop\.head\.\d+, label %loop\.exit\.\d+/);
  expect(doWhile).toMatch(/loop\.head\.\d+:\n\s+br label %loop\.body/);
  const whileLoop = lowerKernel(
    controlKernel('while_loop', (p) => [loop(0, { test: compare('lt', p.i.get, p.n.get), body: [p.inc(p.i)] })]),
  );
  expect(whileLoop).toMatch(/loop\.next\.\d+:\n\s+br label %loop\.head/);
});

it('sends break and continue naming an outer loop to that loop', () => {
  const ir = lowerKernel(
    controlKernel('outer_jumps', (p) => [
      forLoop(0, p, [
        exprStmt(p.j.set(i32(0))),
        loop(1, {
          test: compare('lt', p.j.get, p.n.get),
          body: [
            ifStmt(compare('eq', p.j.get, p.i.get), [continueTo(0)]),
            ifStmt(compare('gt', p.j.get, i32(10)), [breakTo(0)]),
            p.inc(p.j),
          ],
        }),
      ]),
    ]),
  );
  const labels = [...ir.matchAll(/^(loop\.\w+\.\d+):$/gm)].map((m) => m[1]!);
  const outerNext = labels.filter((l) => l.startsWith('loop.next'))[1]!; // the outer loop's next block is placed after the inner loop
  const outerExit = labels.filter((l) => l.startsWith('loop.exit')).at(-1)!;
  expect(ir).toMatch(new RegExp(`if\\.then\\.\\d+:\\n\\s+br label %${outerNext.replace('.', '\\.')}\\n`));
  expect(ir).toMatch(new RegExp(`if\\.then\\.\\d+:\\n\\s+br label %${outerExit.replace('.', '\\.')}\\n`));
});

it('places code after a jump in an unreachable block, and closes the function with ret void', () => {
  const ir = lowerKernel(controlKernel('dead_code', (p) => [returnStmt(), p.record(p.i)]));
  expect(ir).toMatch(/ret void\nunreachable\.\d+:\n(?:.*\n)*?\s+store i32 %t\d+(?:.*\n)*?\s+ret void\n\}/);
});

describeWhen(compileRequirements, 'statements through libNVVM and ptxas', () => {
  const kernels = {
    if_else: (p: Parts) => [
      ifStmt(
        compare('lt', p.n.get, i32(0)),
        [p.record(p.n)],
        [ifStmt(compare('eq', p.n.get, i32(0)), [p.inc(p.i)], [p.inc(p.j)]), p.record(p.j)],
      ),
    ],
    for_with_jumps: (p: Parts) => [
      forLoop(0, p, [
        ifStmt(compare('eq', p.i.get, i32(3)), [continueTo(0)]),
        ifStmt(compare('eq', p.i.get, i32(7)), [breakTo(0)]),
        p.record(p.i),
      ]),
    ],
    while_loop: (p: Parts) => [loop(0, { test: compare('lt', p.i.get, p.n.get), body: [p.inc(p.i), p.record(p.i)] })],
    do_while: (p: Parts) => [
      loop(0, {
        body: [p.inc(p.i), ifStmt(compare('eq', p.i.get, i32(2)), [continueTo(0)]), p.record(p.i)],
        postTest: compare('lt', p.i.get, p.n.get),
      }),
    ],
    forever_with_break: (p: Parts) => [
      loop(0, { body: [p.inc(p.i), ifStmt(compare('ge', p.i.get, p.n.get), [breakTo(0)])] }),
      p.record(p.i),
    ],
    forever_without_exit: (p: Parts) => [loop(0, { body: [p.inc(p.i), p.record(p.i)] })],
    nested_outer_jumps: (p: Parts) => [
      forLoop(0, p, [
        exprStmt(p.j.set(i32(0))),
        loop(1, {
          test: compare('lt', p.j.get, p.n.get),
          body: [
            ifStmt(compare('eq', p.j.get, p.i.get), [continueTo(0)]),
            ifStmt(compare('gt', p.j.get, i32(10)), [breakTo(0)]),
            p.inc(p.j),
            p.record(p.j),
          ],
          update: [],
        }),
      ]),
    ],
    labelled_block: (p: Parts) => [
      block(5, [
        ifStmt(compare('gt', p.n.get, i32(4)), [breakTo(5)]),
        p.record(p.n),
        block(6, [breakTo(5)]),
        p.inc(p.i),
      ]),
      p.record(p.i),
    ],
    break_block_from_loop: (p: Parts) => [
      block(2, [forLoop(0, p, [ifStmt(compare('eq', p.i.get, i32(5)), [breakTo(2)])]), p.record(p.i)]),
    ],
    return_in_loop: (p: Parts) => [
      forLoop(0, p, [ifStmt(compare('eq', p.i.get, i32(5)), [returnStmt()]), p.record(p.i)]),
      p.record(p.n),
    ],
    dead_code_after_jumps: (p: Parts) => [
      forLoop(0, p, [breakTo(0), p.record(p.i), continueTo(0), p.inc(p.j)]),
      returnStmt(),
      p.record(p.j),
      returnStmt(),
    ],
    early_return: (p: Parts) => [
      ifStmt(compare('ge', { op: 'convert', type: 'i64', operand: p.n.get }, p.out.shape(0)), [returnStmt()]),
      p.record(p.n),
    ],
  };

  for (const [name, body] of Object.entries(kernels)) {
    it(`compiles ${name.replaceAll('_', ' ')}`, () => {
      compileAndAssemble(controlKernel(name, body));
    });
  }

  it('keeps a loop whose body stores, with a backward branch in PTX', () => {
    const { ptx } = compileAndAssemble(controlKernel('loop_ptx', kernels.while_loop));
    expect(ptx).toMatch(/\$L__BB0_\d+:[\s\S]*@%p\d+ bra\s+\$L__BB0_\d+;/);
    expect(ptx).toMatch(/st\.global\.u32/);
  });
});

it('treats i64 indices from i32 counters as the typer makes them', () => {
  const ir = lowerKernel(controlKernel('index', (p) => [p.record(p.i)]));
  expect(ir).toMatch(/sext i32 %t\d+ to i64/);
  expect(ir).toContain(`getelementptr inbounds i32, i32* %p1.out.data`);
});
