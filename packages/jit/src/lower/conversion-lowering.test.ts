// `convert` between every pair of scalar types: the IR follows typed-ir.ts's
// rules, and libNVVM and ptxas accept it, with float→int saturating.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { SCALAR_NAMES, type ScalarName } from '../typing/jit-types.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import { KernelBuilder, convert, exprStmt, i64 } from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

/** A kernel that converts `x[0]` (of `from`) to each type in `targets`, one output array per target. */
function conversionKernel(from: ScalarName, targets: readonly ScalarName[]) {
  const k = new KernelBuilder(`convert_${from}_${targets.length === 1 ? targets[0]! : 'all'}`);
  const x = k.array('x', from, 1, 'C', { written: false });
  const outs = targets.map((t) => k.array(`out_${t}`, t));
  return k.build(targets.map((t, i) => exprStmt(outs[i]!.store([i64(0)], convert(t, x.load(i64(0)))))));
}

/** The conversion instructions of a one-pair kernel (what follows the load, before the store). */
function conversionOf(from: ScalarName, to: ScalarName): string {
  const ir = lowerKernel(conversionKernel(from, [to]));
  return ir.slice(ir.indexOf('load '), ir.lastIndexOf('store '));
}

it('extends integers by the source signedness, truncates to narrower ones, and keeps same-width bits', () => {
  expect(conversionOf('i8', 'i64')).toMatch(/sext i8 %t\d+ to i64/);
  expect(conversionOf('u16', 'i32')).toMatch(/zext i16 %t\d+ to i32/);
  expect(conversionOf('u32', 'i64')).toMatch(/zext i32/);
  expect(conversionOf('i64', 'u8')).toMatch(/trunc i64 %t\d+ to i8/);
  expect(conversionOf('i32', 'u32')).not.toMatch(/ext|trunc/);
});

it('rounds int→float to nearest by the source signedness, and f64→f32 with fptrunc', () => {
  expect(conversionOf('u64', 'f32')).toMatch(/uitofp i64 %t\d+ to float/);
  expect(conversionOf('i16', 'f64')).toMatch(/sitofp i16 %t\d+ to double/);
  expect(conversionOf('f64', 'f32')).toMatch(/fptrunc double %t\d+ to float/);
  expect(conversionOf('f32', 'f64')).toMatch(/fpext float %t\d+ to double/);
});

it('converts float→int with the saturating cvt.rzi intrinsics, never fptosi/fptoui', () => {
  const expected: Record<string, string> = {
    'f32:i32': 'f2i',
    'f32:u32': 'f2ui',
    'f32:i64': 'f2ll',
    'f32:u64': 'f2ull',
    'f64:i32': 'd2i',
    'f64:u32': 'd2ui',
    'f64:i64': 'd2ll',
    'f64:u64': 'd2ull',
  };
  for (const [pair, name] of Object.entries(expected)) {
    const [from, to] = pair.split(':') as [ScalarName, ScalarName];
    expect(conversionOf(from, to)).toContain(`@llvm.nvvm.${name}.rz(`);
  }
  for (const from of ['f32', 'f64'] as const)
    for (const to of SCALAR_NAMES) expect(conversionOf(from, to)).not.toMatch(/fpto[su]i/);
});

it('clamps float→8/16-bit conversions after saturating to i32', () => {
  const i8 = conversionOf('f32', 'i8');
  expect(i8).toContain('@llvm.nvvm.f2i.rz(');
  expect(i8).toMatch(/icmp slt i32 %t\d+, -128/);
  expect(i8).toMatch(/icmp sgt i32 %t\d+, 127/);
  expect(i8).toMatch(/trunc i32 %t\d+ to i8/);
  const u16 = conversionOf('f64', 'u16');
  expect(u16).toContain('@llvm.nvvm.d2i.rz(');
  expect(u16).toMatch(/icmp slt i32 %t\d+, 0/);
  expect(u16).toMatch(/icmp sgt i32 %t\d+, 65535/);
});

it('makes bools by != 0 (ordered for floats, so NaN is false) and numbers of bools as 0 or 1', () => {
  expect(conversionOf('f64', 'bool')).toMatch(/fcmp one double %t\d+, 0x0000000000000000/);
  expect(conversionOf('i16', 'bool')).toMatch(/icmp ne i16 %t\d+, 0/);
  expect(conversionOf('bool', 'f32')).toMatch(/uitofp i1 %t\d+ to float/);
  expect(conversionOf('bool', 'i64')).toMatch(/zext i1 %t\d+ to i64/);
});

describeWhen(compileRequirements, 'conversions through libNVVM and ptxas', () => {
  it('compiles the conversion of every type to every other type', () => {
    for (const from of SCALAR_NAMES)
      compileAndAssemble(
        conversionKernel(
          from,
          SCALAR_NAMES.filter((t) => t !== from),
        ),
      );
  });

  it('truncates and saturates float→int in PTX: cvt.rzi, whose NaN is 0', () => {
    const cases: [ScalarName, ScalarName, RegExp][] = [
      ['f32', 'i32', /cvt\.rzi\.s32\.f32/],
      ['f32', 'u32', /cvt\.rzi\.u32\.f32/],
      ['f64', 'i64', /cvt\.rzi\.s64\.f64/],
      ['f64', 'u64', /cvt\.rzi\.u64\.f64/],
      ['f32', 'u8', /cvt\.rzi\.s32\.f32/],
    ];
    for (const [from, to, instruction] of cases)
      expect(compileAndAssemble(conversionKernel(from, [to])).ptx, `${from}→${to}`).toMatch(instruction);
  });

  it('rounds int→float and f64→f32 to nearest in PTX', () => {
    expect(compileAndAssemble(conversionKernel('i64', ['f32'])).ptx).toMatch(/cvt\.rn\.f32\.s64/);
    expect(compileAndAssemble(conversionKernel('u32', ['f64'])).ptx).toMatch(/cvt\.rn\.f64\.u32/);
    expect(compileAndAssemble(conversionKernel('f64', ['f32'])).ptx).toMatch(/cvt\.rn\.f32\.f64/);
  });
});
