// Every math function of MATH_FUNCTIONS in f32 and f64 (and the int ones on
// every integer type): libdevice for the float functions, typed-ir.ts's
// formulas for the rest, and libNVVM and ptxas accept the result.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import type { ScalarName } from '../typing/jit-types.js';
import { MATH_FUNCTIONS, type MathFunction } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import { KernelBuilder, exprStmt, i64, math } from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';
import { FAST_MATH_FUNCTIONS } from './math-lowering.js';

const ALL = Object.keys(MATH_FUNCTIONS) as MathFunction[];
const INT_FUNCTIONS = ALL.filter((fn) => MATH_FUNCTIONS[fn].int);
const FORMULAS: readonly MathFunction[] = ['round', 'isnan', 'isfinite', 'abs', 'sign', 'min', 'max'];

/** A kernel that calls each of `fns` on elements of `x` and stores the results (bools to their own array). */
function mathKernel(
  type: ScalarName,
  fns: readonly MathFunction[],
  name = `math_${type}_${fns.length === 1 ? fns[0]! : 'all'}`,
) {
  const k = new KernelBuilder(name);
  const x = k.array('x', type, 1, 'C', { written: false });
  const out = k.array('out', type);
  const flags = k.array('flags', 'bool');
  let next = 0;
  const body = fns.map((fn, i) => {
    const args = Array.from({ length: MATH_FUNCTIONS[fn].arity }, () => x.load(i64(next++)));
    const call = math(fn, ...args);
    return exprStmt((call.type === 'bool' ? flags : out).store([i64(i)], call));
  });
  return k.build(body);
}

const irOf = (type: ScalarName, fn: MathFunction): string => lowerKernel(mathKernel(type, [fn]));

it('calls libdevice for the float functions: __nv_<fn>f for f32, __nv_<fn> for f64', () => {
  for (const fn of ALL.filter((f) => !FORMULAS.includes(f))) {
    const arity = MATH_FUNCTIONS[fn].arity;
    expect(irOf('f32', fn)).toContain(`declare float @__nv_${fn}f(${Array(arity).fill('float').join(', ')})`);
    expect(irOf('f64', fn)).toContain(`declare double @__nv_${fn}(${Array(arity).fill('double').join(', ')})`);
  }
});

it('writes round as floor(x) + ((x - floor(x)) >= 0.5 ? 1 : 0)', () => {
  const ir = irOf('f32', 'round');
  expect(ir).toMatch(
    /(%t\d+) = call float @__nv_floorf\(float (%t\d+)\)\n\s+(%t\d+) = fsub float \2, \1\n\s+(%t\d+) = fcmp oge float \3, 0x3FE0000000000000\n\s+(%t\d+) = select i1 \4, float 0x3FF0000000000000, float 0x0000000000000000\n\s+%t\d+ = fadd float \1, \5/,
  );
  expect(ir).not.toContain('__nv_roundf');
});

it('lets NaN win min and max, as (a < b || a != a) ? a : b', () => {
  const ir = irOf('f64', 'min');
  expect(ir).toMatch(
    /(%t\d+) = fcmp olt double (%t\d+), (%t\d+)\n\s+(%t\d+) = fcmp uno double \2, \2\n\s+(%t\d+) = or i1 \1, \4\n\s+%t\d+ = select i1 \5, double \2, double \3/,
  );
  expect(irOf('i32', 'max')).toMatch(/icmp sgt i32 (%t\d+), (%t\d+)\n\s+%t\d+ = select i1 %t\d+, i32 \1, i32 \2/);
  expect(irOf('u64', 'min')).toMatch(/icmp ult i64/);
});

it('keeps NaN and ±0 through sign, and takes abs as the sign bit cleared (floats) or a wrapping negation (ints)', () => {
  const sign = irOf('f32', 'sign');
  expect(sign).toMatch(/fcmp ogt float %t\d+, 0x0000000000000000/);
  expect(sign).toMatch(/fcmp olt float %t\d+, 0x0000000000000000/);
  expect(sign).toMatch(/select i1 %t\d+, float 0xBFF0000000000000, float %t\d+/);
  expect(irOf('u32', 'sign')).not.toMatch(/-1/);
  expect(irOf('f64', 'abs')).toContain('call double @__nv_fabs(');
  expect(irOf('i64', 'abs')).toMatch(/icmp slt i64 %t\d+, 0\n\s+%t\d+ = sub i64 0, %t\d+/);
});

it('tests isnan as unordered and isfinite as |x| < ∞', () => {
  expect(irOf('f32', 'isnan')).toMatch(/fcmp uno float (%t\d+), \1/);
  expect(irOf('f64', 'isfinite')).toMatch(/fcmp olt double %t\d+, 0x7FF0000000000000/);
});

it("takes libdevice's fast forms for numba's fastmath functions on f32 only, with fastMath", () => {
  for (const fn of FAST_MATH_FUNCTIONS) {
    const arity = MATH_FUNCTIONS[fn].arity;
    const fast = lowerKernel(mathKernel('f32', [fn]), { fastMath: true });
    expect(fast).toContain(`declare float @__nv_fast_${fn}f(${Array(arity).fill('float').join(', ')})`);
    expect(fast).not.toContain(`@__nv_${fn}f(`);
    expect(lowerKernel(mathKernel('f32', [fn]))).toContain(`@__nv_${fn}f(`);
    expect(lowerKernel(mathKernel('f64', [fn]), { fastMath: true })).toContain(`@__nv_${fn}(`);
  }
  // functions numba leaves precise stay precise
  expect(lowerKernel(mathKernel('f32', ['atan2']), { fastMath: true })).toContain('@__nv_atan2f(');
});

describeWhen(compileRequirements, 'math through libNVVM, libdevice and ptxas', () => {
  it('compiles every float math function in f32, one kernel each', () => {
    for (const fn of ALL) compileAndAssemble(mathKernel('f32', [fn]));
  });

  it('compiles every float math function in f64, one kernel each', () => {
    for (const fn of ALL) compileAndAssemble(mathKernel('f64', [fn]));
  });

  it('compiles the integer math functions on i32, u32, i64 and u64', () => {
    for (const t of ['i32', 'u32', 'i64', 'u64'] as const) compileAndAssemble(mathKernel(t, INT_FUNCTIONS));
  });

  it('compiles all functions together, each libdevice function linked once', () => {
    const { ptx } = compileAndAssemble(mathKernel('f32', ALL));
    expect(ptx.match(/\.visible \.entry/g)).toHaveLength(1);
  });

  it('gives IEEE sqrt and fma, and libdevice-free abs and isnan, in PTX', () => {
    expect(compileAndAssemble(mathKernel('f32', ['sqrt'])).ptx).toMatch(/sqrt\.rn\.f32/);
    expect(compileAndAssemble(mathKernel('f64', ['sqrt'])).ptx).toMatch(/sqrt\.rn\.f64/);
    expect(compileAndAssemble(mathKernel('f32', ['fma'])).ptx).toMatch(/fma\.rn\.f32/);
    expect(compileAndAssemble(mathKernel('f64', ['abs'])).ptx).toMatch(/abs\.f64/);
    expect(compileAndAssemble(mathKernel('f32', ['isnan'])).ptx).toMatch(/setp\.nan\.f32/);
  });

  it('passes fast math on to libdevice', () => {
    expect(compileAndAssemble(mathKernel('f32', ['sqrt']), { fastMath: true }).ptx).toMatch(/sqrt\.approx\.ftz\.f32/);
  });

  it("gives PTX's approximate instructions for numba's fastmath functions", () => {
    const approx = (fn: MathFunction): string => compileAndAssemble(mathKernel('f32', [fn]), { fastMath: true }).ptx;
    expect(approx('sin')).toMatch(/sin\.approx\.ftz\.f32/);
    expect(approx('cos')).toMatch(/cos\.approx\.ftz\.f32/);
    expect(approx('tan')).toMatch(
      /sin\.approx\.ftz\.f32[\s\S]*cos\.approx\.ftz\.f32|cos\.approx\.ftz\.f32[\s\S]*sin\.approx\.ftz\.f32/,
    );
    expect(approx('exp')).toMatch(/ex2\.approx\.ftz\.f32/);
    for (const fn of ['log', 'log2', 'log10'] as const) expect(approx(fn)).toMatch(/lg2\.approx\.ftz\.f32/);
    const pow = approx('pow');
    expect(pow).toMatch(/lg2\.approx\.ftz\.f32/);
    expect(pow).toMatch(/ex2\.approx\.ftz\.f32/);
    // without fastMath, sin is libdevice's precise range-reduced one: no approximate instruction
    expect(compileAndAssemble(mathKernel('f32', ['sin'])).ptx).not.toMatch(/sin\.approx/);
  });
});
