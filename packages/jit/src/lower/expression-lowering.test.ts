// Every Expr op lowered, with JavaScript's evaluation order and laziness,
// and accepted by libNVVM and ptxas.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { SCALAR_NAMES } from '../typing/jit-types.js';
import type { Expr, SpecialRegister } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import {
  KernelBuilder,
  binary,
  block,
  breakTo,
  compare,
  constant,
  convert,
  exprStmt,
  f64,
  i32,
  i64,
  ifStmt,
  inlined,
  logical,
  loop,
  math,
  select,
  sequence,
  special,
  unary,
} from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

const REGISTERS: readonly SpecialRegister[] = [
  'tid.x',
  'tid.y',
  'tid.z',
  'ntid.x',
  'ntid.y',
  'ntid.z',
  'ctaid.x',
  'ctaid.y',
  'ctaid.z',
  'nctaid.x',
  'nctaid.y',
  'nctaid.z',
  'laneid',
  'warpsize',
];

/** Every Expr op in one kernel, each result stored. */
function everyExpression() {
  const k = new KernelBuilder('every_expression');
  const n = k.scalar('n', 'i32');
  const flag = k.scalar('flag', 'bool');
  const x = k.array('x', 'f64', 2, 'C', { written: false });
  const out = k.array('out', 'f64');
  const ints = k.array('ints', 'i32');
  const flags = k.array('flags', 'bool');
  const acc = k.local('acc', 'f64');
  const count = k.local('count', 'i32');
  const at = (i: number): Expr => i64(i);
  const stores: Expr[] = [
    out.store([at(0)], f64(Math.PI)),
    out.store([at(1)], acc.set(x.load(at(0), at(1)))),
    out.store([at(2)], unary('neg', acc.get)),
    out.store([at(3)], binary('mul', acc.get, f64(2))),
    flags.store([at(0)], compare('le', acc.get, f64(1))),
    flags.store([at(1)], unary('not', flag.get)),
    out.store([at(4)], logical('and', acc.get, x.load(at(1), at(0)))),
    out.store([at(5)], logical('or', acc.get, f64(7))),
    ints.store([at(0)], select(compare('lt', n.get, i32(0)), unary('neg', n.get), n.get)),
    ints.store([at(1)], convert('i32', acc.get)),
    out.store([at(6)], math('hypot', acc.get, f64(3))),
    ints.store([at(2)], special('tid.x')),
    ints.store([at(3)], convert('i32', x.shape(1))),
    // count++ as the typer writes it: the old value, after the increment
    ints.store([at(4)], sequence([count.set(binary('add', count.get, i32(1)))], binary('sub', count.get, i32(1)))),
  ];
  return k.build(stores.map(exprStmt));
}

it('evaluates the right side of && only when the left is truthy, and of || only when it is not', () => {
  const k = new KernelBuilder('lazy');
  const a = k.scalar('a', 'i32');
  const out = k.array('out', 'i32');
  const sideEffect = out.store([i64(1)], i32(9));
  const ir = lowerKernel(
    k.build([
      exprStmt(out.store([i64(0)], logical('and', a.get, sideEffect))),
      exprStmt(logical('or', a.get, sideEffect)),
    ]),
  );
  // and: truthy → the right side, else straight to the end with the left value
  expect(ir).toMatch(
    /(%t\d+) = icmp ne i32 (%t\d+), 0\n\s+br i1 \1, label %(and\.rhs\.\d+), label %(and\.end\.\d+)\n\3:\n(?:.*\n)*?\s+store i32 9, (?:.*\n)*?\s+br label %\4\n\4:\n\s+%t\d+ = phi i32 \[ \2, %entry \], \[ 9, %\3 \]/,
  );
  // or: truthy → straight to the end
  expect(ir).toMatch(/br i1 %t\d+, label %(or\.end\.\d+), label %(or\.rhs\.\d+)/);
  expect(ir.match(/store i32 9/g)).toHaveLength(2);
  const entryBlock = ir.slice(ir.indexOf('entry:'), ir.indexOf('and.rhs', ir.indexOf('entry:')));
  expect(entryBlock).not.toContain('store i32 9');
});

it('tests truthiness of float operands of && as != 0, which NaN is not', () => {
  const k = new KernelBuilder('float_and');
  const a = k.scalar('a', 'f32');
  const ir = lowerKernel(k.build([exprStmt(logical('and', a.get, constant('f32', 2)))]));
  expect(ir).toMatch(/fcmp one float %t\d+, 0x0000000000000000/);
});

it('evaluates only the branch of ?: that is taken, and joins with a phi', () => {
  const k = new KernelBuilder('select');
  const c = k.scalar('c', 'bool');
  const out = k.array('out', 'f64');
  const ir = lowerKernel(k.build([exprStmt(select(c.get, out.store([i64(0)], f64(1)), out.store([i64(1)], f64(2))))]));
  expect(ir).toMatch(
    /br i1 %t\d+, label %(select\.then\.\d+), label %(select\.else\.\d+)\n\1:\n(?:.*\n)*?\s+store double 0x3FF0000000000000(?:.*\n)*?\2:\n(?:.*\n)*?\s+store double 0x4000000000000000/,
  );
  expect(ir).toMatch(
    /phi double \[ 0x3FF0000000000000, %select\.then\.\d+ \], \[ 0x4000000000000000, %select\.else\.\d+ \]/,
  );
});

it('evaluates an element store as index, then value, and gives the value', () => {
  const k = new KernelBuilder('store_order');
  const i = k.local('i', 'i64');
  const out = k.array('out', 'i64');
  const ir = lowerKernel(k.build([exprStmt(out.store([i.get], i.set(i64(5))))]));
  const loadIndex = ir.indexOf('load i64, i64* %l0.i');
  const assign = ir.indexOf('store i64 5, i64* %l0.i');
  expect(loadIndex).toBeGreaterThan(0);
  expect(assign).toBeGreaterThan(loadIndex);
  expect(ir).toMatch(/store i64 5, i64\* %t\d+, align 8/);
});

it('reads special registers through llvm.nvvm.read.ptx.sreg.*, and the warp size as 32', () => {
  const k = new KernelBuilder('registers');
  const out = k.array('out', 'i32');
  const ir = lowerKernel(k.build(REGISTERS.map((r, i) => exprStmt(out.store([i64(i)], special(r))))));
  for (const r of REGISTERS.filter((x) => x !== 'warpsize'))
    expect(ir).toContain(`declare i32 @llvm.nvvm.read.ptx.sreg.${r}()`);
  expect(ir).not.toContain('warpsize');
  expect(ir).toMatch(/store i32 32, i32\* %t\d+/);
});

/**
 * `out[i] = clamp(x[i])` for i < n, where the device function
 * `clamp(v) { if (v < 0) return 0; return v; }` is inlined: its locals are
 * the kernel's and its returns are `result = …; break` out of a block.
 */
function inlinedKernel() {
  const k = new KernelBuilder('inlined');
  const n = k.scalar('n', 'i32');
  const x = k.array('x', 'f64', 1, 'C', { written: false });
  const out = k.array('out', 'f64');
  const i = k.local('i', 'i32');
  const v = k.local('v', 'f64');
  const result = k.local('result', 'f64');
  const body = [
    exprStmt(v.set(x.load(convert('i64', i.get)))),
    block(7, [
      ifStmt(compare('lt', v.get, f64(0)), [exprStmt(result.set(f64(0))), breakTo(7)]),
      exprStmt(result.set(v.get)),
      breakTo(7),
    ]),
  ];
  const call = inlined('clamp', 'f64', body, result.id);
  return k.build([
    loop(0, {
      test: compare('lt', i.get, n.get),
      body: [exprStmt(out.store([convert('i64', i.get)], binary('add', call, f64(1))))],
      update: [exprStmt(i.set(binary('add', i.get, i32(1))))],
    }),
  ]);
}

it('lowers an inlined call as its body, its returns breaking out of its block, then the result local', () => {
  const ir = lowerKernel(inlinedKernel());
  // The body's returns go to the end of its block, which then reads `result` for the caller.
  const end = /br label %(block\.end\.\d+)\n/.exec(ir)![1]!;
  expect(ir.split(`br label %${end}\n`)).toHaveLength(3);
  const after = ir.slice(ir.indexOf(`\n${end}:\n`) + end.length + 2);
  expect(after).toMatch(
    /^\n\s+(%t\d+) = load double, double\* %l3\.result, align 8\n\s+%t\d+ = fadd double \1, 0x3FF0000000000000/,
  );
});

describeWhen(compileRequirements, 'expressions through libNVVM and ptxas', () => {
  it('compiles an inlined device function inside a loop', () => {
    const { ptx } = compileAndAssemble(inlinedKernel());
    expect(ptx).toMatch(/setp\.lt\.f64/);
    expect(ptx).toMatch(/add\.f64/);
  });

  it('compiles every Expr op in one kernel', () => {
    compileAndAssemble(everyExpression());
  });

  it('compiles constants of every type, NaN, infinities and extremes included', () => {
    const k = new KernelBuilder('constants');
    const outs = SCALAR_NAMES.map((t) => ({ t, out: k.array(`out_${t}`, t) }));
    const values: Record<string, (number | bigint | boolean)[]> = {
      bool: [true, false],
      i8: [-128, 127],
      u8: [255],
      i16: [-32768],
      u16: [65535],
      i32: [-2147483648, 2147483647],
      u32: [4294967295],
      i64: [-(2n ** 63n), 2n ** 63n - 1n],
      u64: [2n ** 64n - 1n],
      f16: [NaN, -Infinity, -0, 65504, 2 ** -24],
      bf16: [NaN, Infinity, -0, 3.3895313892515355e38, 2 ** -133],
      f32: [NaN, -Infinity, -0, 3.4028234663852886e38, 1e-45],
      f64: [NaN, Infinity, -0, Number.MIN_VALUE, Number.MAX_VALUE],
    };
    const body = outs.flatMap(({ t, out }) => values[t]!.map((v, i) => exprStmt(out.store([i64(i)], constant(t, v)))));
    compileAndAssemble(k.build(body));
  });

  it('reads every special register', () => {
    const k = new KernelBuilder('registers');
    const out = k.array('out', 'i32');
    const { ptx } = compileAndAssemble(k.build(REGISTERS.map((r, i) => exprStmt(out.store([i64(i)], special(r))))));
    for (const r of REGISTERS.filter((x) => x !== 'warpsize')) expect(ptx).toContain(`%${r}`);
  });

  it('compiles logical and select nested in one another, each join naming its real predecessors', () => {
    const k = new KernelBuilder('nested');
    const a = k.scalar('a', 'i32');
    const b = k.scalar('b', 'i32');
    const out = k.array('out', 'i32');
    const inner = select(
      compare('gt', a.get, b.get),
      logical('or', a.get, b.get),
      logical('and', b.get, select(compare('eq', a.get, i32(0)), i32(1), a.get)),
    );
    compileAndAssemble(k.build([exprStmt(out.store([i64(0)], logical('and', inner, logical('or', b.get, inner))))]));
  });
});
