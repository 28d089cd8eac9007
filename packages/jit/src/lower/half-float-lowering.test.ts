// f16 and bf16 in NVVM IR and in the PTX libNVVM makes of it: f16 as `half`
// (native add/mul/compare, one-rounding conversions), bf16 as i16 bits
// computed in f32 and rounded back by cvt.rn.bf16.f32, sources wider than
// f32 reaching bf16 through f32 rounded to odd; Math in f32 except fma.
import { expect, it } from 'vitest';
import { compileToPtx } from '../compile/compile-kernel.js';
import { describeWhen, ptxasRejects } from '../compile/toolchain-environment.test-support.js';
import type { ScalarName } from '../typing/jit-types.js';
import type { BinaryOperator, MathFunction } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import {
  KernelBuilder,
  binary,
  compare,
  constant,
  convert,
  exprStmt,
  i64,
  math,
  select,
  unary,
} from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

/** A kernel that computes `make(x[0], x[1], x[2])` (x of `from`) into out[0] (of the result's type). */
function oneValueKernel(
  name: string,
  from: ScalarName,
  make: (...xs: ReturnType<typeof constant>[]) => ReturnType<typeof constant>,
) {
  const k = new KernelBuilder(name);
  const x = k.array('x', from, 1, 'C', { written: false });
  const value = make(x.load(i64(0)), x.load(i64(1)), x.load(i64(2)));
  const out = k.array('out', value.type);
  return k.build([exprStmt(out.store([i64(0)], value))]);
}

/** What the kernel's body computes between its loads and its store, in NVVM IR. */
function irOf(kernel: ReturnType<typeof oneValueKernel>): string {
  const ir = lowerKernel(kernel);
  return ir.slice(ir.indexOf('define void'));
}

it('computes f16 as half: fadd/fmul/fdiv on half, negation by fsub from -0, compares on half', () => {
  for (const [op, opcode] of [
    ['add', 'fadd'],
    ['sub', 'fsub'],
    ['mul', 'fmul'],
    ['div', 'fdiv'],
  ] as const) {
    expect(irOf(oneValueKernel(`f16_${op}`, 'f16', (a, b) => binary(op, a, b)))).toMatch(
      new RegExp(`${opcode} half %t\\d+, %t\\d+`),
    );
  }
  expect(irOf(oneValueKernel('f16_neg', 'f16', (a) => unary('neg', a)))).toMatch(/fsub half 0xH8000, %t\d+/);
  expect(irOf(oneValueKernel('f16_lt', 'f16', (a, b) => compare('lt', a, b)))).toMatch(/fcmp olt half/);
  expect(irOf(oneValueKernel('f16_const', 'f16', (a) => binary('add', a, constant('f16', 0.5))))).toContain('0xH3800');
});

it('computes bf16 in f32: widened by a shift, rounded back by cvt.rn.bf16.f32; negated on the sign bit; constants as bits', () => {
  const add = irOf(oneValueKernel('bf16_add', 'bf16', (a, b) => binary('add', a, b)));
  expect(add).toMatch(/shl i32 %t\d+, 16/);
  expect(add).toMatch(/fadd float/);
  expect(add).toContain('asm "cvt.rn.bf16.f32 $0, $1;", "=h,f"');
  expect(irOf(oneValueKernel('bf16_neg', 'bf16', (a) => unary('neg', a)))).toMatch(/xor i16 %t\d+, -32768/);
  expect(irOf(oneValueKernel('bf16_ge', 'bf16', (a, b) => compare('ge', a, b)))).toMatch(/fcmp oge float/);
  expect(irOf(oneValueKernel('bf16_const', 'bf16', (a) => binary('mul', a, constant('bf16', 1))))).toMatch(
    /bitcast i32 %t\d+ to float/,
  );
  expect(
    irOf(oneValueKernel('bf16_select', 'bf16', (a, b) => select(compare('lt', a, b), a, constant('bf16', -2)))),
  ).toMatch(/phi i16 .*-16384/);
});

it('keeps Math in f32 for the 16-bit floats, except fma, which is their own', () => {
  expect(irOf(oneValueKernel('f16_sqrt', 'f16', (a) => math('sqrt', a)))).toMatch(
    /call float @__nv_sqrtf\(float %t\d+\)[\s\S]*fptrunc float %t\d+ to half/,
  );
  expect(irOf(oneValueKernel('bf16_exp', 'bf16', (a) => math('exp', a)))).toMatch(
    /call float @__nv_expf[\s\S]*cvt\.rn\.bf16\.f32/,
  );
  expect(irOf(oneValueKernel('f16_fma', 'f16', (a, b, c) => math('fma', a, b, c)))).toMatch(
    /call half @llvm\.fma\.f16\(half %t\d+, half %t\d+, half %t\d+\)/,
  );
  expect(irOf(oneValueKernel('bf16_fma', 'bf16', (a, b, c) => math('fma', a, b, c)))).toContain(
    'asm "fma.rn.bf16 $0, $1, $2, $3;", "=h,h,h,h"',
  );
  expect(irOf(oneValueKernel('bf16_isnan', 'bf16', (a) => math('isnan', a)))).toMatch(/fcmp uno float/);
});

/** The PTX of converting x[0] of `from` to `to`, assembled by ptxas for sm_90. */
function conversionPtx(from: ScalarName, to: ScalarName): string {
  return compileAndAssemble(oneValueKernel(`convert_${from}_${to}`, from, (a) => convert(to, a))).ptx;
}

describeWhen(compileRequirements, 'the 16-bit floats through libNVVM and ptxas', () => {
  it('converts to f16 in one rounding from every type: f64 and 64-bit integers directly, never through f32', () => {
    const f64 = conversionPtx('f64', 'f16');
    expect(f64).toMatch(/cvt\.rn\.f16\.f64/);
    expect(f64).not.toMatch(/cvt\.rn\.f32\.f64/);
    expect(conversionPtx('i64', 'f16')).toMatch(/cvt\.rn\.f16\.s64/);
    expect(conversionPtx('u32', 'f16')).toMatch(/cvt\.rn\.f16\.u32/);
    expect(conversionPtx('bf16', 'f16')).toMatch(/cvt\.rn\.f16\.f32/);
  });

  it('converts to bf16 from f64 and wide integers through f32 rounded to odd (cvt.rz and a sticky bit), then cvt.rn.bf16.f32', () => {
    for (const [from, truncation] of [
      ['f64', /cvt\.rz\.f32\.f64/],
      ['i64', /cvt\.rz\.f32\.s64/],
      ['u64', /cvt\.rz\.f32\.u64/],
      ['i32', /cvt\.rz\.f32\.f64/], // an i32 is exact as a double first
    ] as const) {
      const ptx = conversionPtx(from, 'bf16');
      expect(ptx, from).toMatch(truncation);
      expect(ptx, from).toMatch(/or\.b32/);
      expect(ptx, from).toMatch(/cvt\.rn\.bf16\.f32/);
      expect(ptx, from).not.toMatch(/cvt\.rn\.f32\.(f64|s64|u64)/);
    }
    expect(conversionPtx('f16', 'bf16')).toMatch(/cvt\.f32\.f16[\s\S]*cvt\.rn\.bf16\.f32/);
    expect(conversionPtx('i16', 'bf16')).not.toMatch(/cvt\.rz/); // exact in f32
  });

  it('converts from the 16-bit floats through f32: exactly, then truncating and saturating to integers', () => {
    expect(conversionPtx('f16', 'i32')).toMatch(/cvt\.f32\.f16[\s\S]*cvt\.rzi\.s32\.f32/);
    expect(conversionPtx('bf16', 'u64')).toMatch(/cvt\.rzi\.u64\.f32/);
    expect(conversionPtx('bf16', 'f64')).toMatch(/cvt\.f64\.f32/);
  });

  it('computes with native f16 instructions, divides through f32 (correctly rounded), and rounds bf16 after every f32 operation', () => {
    const f16 = (op: BinaryOperator) =>
      compileAndAssemble(oneValueKernel(`f16_${op}_ptx`, 'f16', (a, b) => binary(op, a, b))).ptx;
    expect(f16('add')).toMatch(/add\.f16/);
    expect(f16('mul')).toMatch(/mul\.f16/);
    expect(f16('div')).toMatch(/div\.rn\.f32[\s\S]*cvt\.rn\.f16\.f32/);
    expect(f16('rem')).toMatch(/cvt\.rn\.f16\.f32/);
    const bf16 = compileAndAssemble(
      oneValueKernel('bf16_chain', 'bf16', (a, b, c) => binary('add', binary('mul', a, b), c)),
      { fma: true },
    ).ptx;
    expect(bf16).toMatch(/mul\.rn\.f32|mul\.f32/);
    expect(bf16.match(/cvt\.rn\.bf16\.f32/g)).toHaveLength(2); // never contracted into one fma: each op rounds
    expect(bf16).not.toMatch(/fma\.rn\.f32/);
  });

  it('lowers every math function of f16 and bf16 to code that ptxas takes', () => {
    const fns: MathFunction[] = [
      'sqrt',
      'exp',
      'log',
      'sin',
      'floor',
      'round',
      'atan2',
      'pow',
      'hypot',
      'fma',
      'abs',
      'sign',
      'min',
      'max',
      'isnan',
      'isfinite',
    ];
    for (const type of ['f16', 'bf16'] as const) {
      const k = new KernelBuilder(`math_${type}`);
      const x = k.array('x', type, 1, 'C', { written: false });
      const outs = fns.map((fn, n) => {
        const arity = fn === 'fma' ? 3 : ['atan2', 'pow', 'hypot', 'min', 'max'].includes(fn) ? 2 : 1;
        const value = math(fn, ...Array.from({ length: arity }, (_, j) => x.load(i64(j))));
        return exprStmt(k.array(`out${n}`, value.type).store([i64(0)], value));
      });
      const { ptx } = compileAndAssemble(k.build(outs));
      expect(ptx).toMatch(type === 'f16' ? /fma\.rn\.f16/ : /fma\.rn\.bf16/);
    }
  });

  it('assembles bf16 arithmetic and conversions for sm_80 too (only the bf16 atomic needs sm_90)', () => {
    const k = new KernelBuilder('bf16_sm80');
    const x = k.array('x', 'bf16', 1, 'C', { written: false });
    const d = k.array('d', 'f64', 1, 'C', { written: false });
    const n = k.array('n', 'i64', 1, 'C', { written: false });
    const out = k.array('out', 'bf16');
    const sum = binary(
      'add',
      binary('div', convert('bf16', d.load(i64(0))), convert('bf16', n.load(i64(0)))),
      math('fma', x.load(i64(0)), x.load(i64(1)), x.load(i64(2))),
    );
    const ptx = compileToPtx(lowerKernel(k.build([exprStmt(out.store([i64(0)], sum))])), { arch: 'sm_80' });
    expect(ptxasRejects(ptx, 'sm_80')).toBeUndefined();
  });
});
