// Unary, binary and compare operators on every type that has them: the IR
// follows typed-ir.ts's rules, and libNVVM and ptxas accept it.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import type { ScalarName } from '../typing/jit-types.js';
import type { BinaryOperator, CompareOperator, Expr, Stmt, UnaryOperator } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import { KernelBuilder, binary, compare, exprStmt, i64, unary } from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

const INTEGERS = ['i32', 'u32', 'i64', 'u64'] as const;
const FLOATS = ['f32', 'f64'] as const;
const ARITHMETIC = [...INTEGERS, ...FLOATS] as const;
const INTEGER_BINARY: readonly BinaryOperator[] = [
  'add',
  'sub',
  'mul',
  'div',
  'rem',
  'and',
  'or',
  'xor',
  'shl',
  'shr',
  'ushr',
];
const FLOAT_BINARY: readonly BinaryOperator[] = ['add', 'sub', 'mul', 'div', 'rem'];
const COMPARES: readonly CompareOperator[] = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'];

/** A kernel that reads its operands from `x` and writes each result to its own element of `out`. */
function operatorKernel(
  name: string,
  type: ScalarName,
  results: (x: (k: number) => Expr) => Expr[],
  outType: ScalarName = type,
) {
  const k = new KernelBuilder(name);
  const x = k.array('x', type, 1, 'C', { written: false });
  const out = k.array('out', outType);
  const body: Stmt[] = results((i) => x.load(i64(i))).map((r, i) => exprStmt(out.store([i64(i)], r)));
  return k.build(body);
}

const unaryKernel = (type: ScalarName) => {
  const ops: UnaryOperator[] = type === 'bool' ? ['not'] : type.startsWith('f') ? ['neg'] : ['neg', 'bitnot'];
  return operatorKernel(`unary_${type}`, type, (x) => ops.map((op, i) => unary(op, x(i))));
};
const binaryKernel = (type: ScalarName) =>
  operatorKernel(`binary_${type}`, type, (x) =>
    (type.startsWith('f') ? FLOAT_BINARY : INTEGER_BINARY).map((op, i) => binary(op, x(2 * i), x(2 * i + 1))),
  );
const compareKernel = (type: ScalarName) =>
  operatorKernel(`compare_${type}`, type, (x) => COMPARES.map((op, i) => compare(op, x(2 * i), x(2 * i + 1))), 'bool');

it('wraps integer arithmetic: no nsw or nuw anywhere', () => {
  for (const t of INTEGERS) expect(lowerKernel(binaryKernel(t))).not.toMatch(/\bnsw\b|\bnuw\b/);
});

it('takes shift amounts modulo the width; shr is arithmetic for signed types only, ushr always logical', () => {
  const shifts = (t: ScalarName) =>
    lowerKernel(
      operatorKernel(`s_${t}`, t, (x) => [
        binary('shl', x(0), x(1)),
        binary('shr', x(2), x(3)),
        binary('ushr', x(4), x(5)),
      ]),
    );
  const i32 = shifts('i32');
  expect(i32.match(/= and i32 %t\d+, 31/g)).toHaveLength(3);
  expect(i32).toMatch(/= shl i32/);
  expect(i32).toMatch(/= ashr i32/);
  expect(i32).toMatch(/= lshr i32/);
  const u64 = shifts('u64');
  expect(u64.match(/= and i64 %t\d+, 63/g)).toHaveLength(3);
  expect(u64).not.toMatch(/ashr/);
  expect(u64.match(/= lshr i64/g)).toHaveLength(2);
});

it('divides integers without reaching LLVM undefined behaviour (zero, MIN / -1)', () => {
  const signed = lowerKernel(operatorKernel('d_i64', 'i64', (x) => [binary('div', x(0), x(1))]));
  expect(signed).toMatch(/icmp eq i64 %t\d+, 0/);
  expect(signed).toMatch(/icmp eq i64 %t\d+, -1/);
  expect(signed).toMatch(/sdiv i64 %t\d+, %t\d+/);
  // the -1 case is a negation, which wraps MIN to MIN
  expect(signed).toMatch(/%(t\d+) = sub i64 0, %t\d+\n\s+%t\d+ = select i1 %t\d+, i64 %\1, i64 %t\d+/);
  const unsigned = lowerKernel(operatorKernel('r_u64', 'u64', (x) => [binary('rem', x(0), x(1))]));
  expect(unsigned).toMatch(/select i1 %t\d+, i64 1, i64 %t\d+\n\s+%t\d+ = urem i64/);
  expect(unsigned).not.toContain('-1');
});

it('computes float rem with libdevice fmod (C fmod), and negates floats by subtracting from -0', () => {
  expect(lowerKernel(binaryKernel('f32'))).toContain('declare float @__nv_fmodf(float, float)');
  expect(lowerKernel(binaryKernel('f64'))).toContain('declare double @__nv_fmod(double, double)');
  expect(lowerKernel(unaryKernel('f64'))).toMatch(/fsub double 0x8000000000000000, %t\d+/);
});

it('compares floats ordered, except ne, and integers by their signedness', () => {
  // (bool elements are bytes: their loads compare `ne i8 0`, which is not one of these)
  const predicates = (t: ScalarName) =>
    [...lowerKernel(compareKernel(t)).matchAll(/= (?:fcmp|icmp) (\w+) (?!i8)/g)].map((m) => m[1]);
  expect(predicates('f32')).toEqual(['oeq', 'une', 'olt', 'ole', 'ogt', 'oge']);
  expect(predicates('i64')).toEqual(['eq', 'ne', 'slt', 'sle', 'sgt', 'sge']);
  expect(predicates('u32')).toEqual(['eq', 'ne', 'ult', 'ule', 'ugt', 'uge']);
  expect(predicates('bool')).toEqual(['eq', 'ne', 'ult', 'ule', 'ugt', 'uge']);
});

describeWhen(compileRequirements, 'arithmetic through libNVVM and ptxas', () => {
  it('compiles every unary operator on every type that has it', () => {
    for (const t of [...ARITHMETIC, 'bool'] as const) compileAndAssemble(unaryKernel(t));
  });

  it('compiles every binary operator on every arithmetic type', () => {
    for (const t of ARITHMETIC) compileAndAssemble(binaryKernel(t));
    compileAndAssemble(
      operatorKernel('binary_bool', 'bool', (x) =>
        (['and', 'or', 'xor'] as const).map((op, i) => binary(op, x(2 * i), x(2 * i + 1))),
      ),
    );
  });

  it('compiles every compare on every type, bool included', () => {
    for (const t of [...ARITHMETIC, 'bool', 'i8', 'u16'] as const) compileAndAssemble(compareKernel(t));
  });

  it('keeps the shift mask and the division guards in the PTX', () => {
    const { ptx } = compileAndAssemble(operatorKernel('guards', 'i32', (x) => [binary('shl', x(0), x(1))]));
    expect(ptx).toMatch(/and\.b32\s+%r\d+, %r\d+, 31;/);
    const div = compileAndAssemble(operatorKernel('div64', 'i64', (x) => [binary('div', x(0), x(1))])).ptx;
    expect(div).toMatch(/div\.s64/);
    expect(div).toMatch(/setp\.eq\.s64\s+%p\d+, %rd\d+, -1;/);
  });

  it('rounds each f32 operation on its own with fma off: mul then add, no fma', () => {
    const muladd = operatorKernel('muladd', 'f32', (x) => [binary('add', binary('mul', x(0), x(1)), x(2))]);
    const plain = compileAndAssemble(muladd, { fma: false }).ptx;
    expect(plain).toMatch(/mul\.rn\.f32/);
    expect(plain).toMatch(/add\.rn\.f32/);
    expect(plain).not.toMatch(/fma\.rn\.f32/);
    expect(compileAndAssemble(muladd).ptx).toMatch(/fma\.rn\.f32/);
  });

  it('links fmod from libdevice for float rem', () => {
    const { ptx } = compileAndAssemble(operatorKernel('float_rem', 'f64', (x) => [binary('rem', x(0), x(1))]));
    expect(ptx).not.toContain('fmod');
  });
});
