/**
 * numba's `cuda.fp16` functions (`cuda.fp16.hadd(a, b)`, …), as CUDA's
 * cuda_fp16.h spells them: each takes f16 values and is the kernel
 * language's own f16 operation, so its NVVM and simulator forms are those of
 * the IR node it makes (`form`), which both backends compute as they compute
 * `a + b` on f16 (one rounding to f16):
 * - `binary`, `unary`, `compare`: the operator on f16 (compare gives bool;
 *   ordered, except `ne`); `math`: the MATH_FUNCTIONS function on f16 (`fma`
 *   rounded once, `fma.rn.f16`; the others the f32 function rounded to f16).
 * - `extremum`: `(a op b || b != b) ? a : b` (a NaN argument gives the other
 *   one, as CUDA's `__hmax`/`__hmin` do), each argument evaluated once.
 * - `inF32`: a formula of the argument widened to f32 (`pow(10, x)`,
 *   `1 / sqrt(x)`, `1 / x`), rounded to f16 once.
 * One row declares a function for every stage: the `cuda.fp16` stub and its
 * type (its doc comment is the row's), the typing rule, the lowering and the
 * simulator.
 */
import type { BinaryOperator, CompareOperator, MathFunction } from '../typing/typed-ir.js';

export type Fp16Form =
  | { readonly binary: Extract<BinaryOperator, 'add' | 'sub' | 'mul' | 'div'> }
  | { readonly unary: 'neg' }
  | { readonly compare: CompareOperator }
  | { readonly math: MathFunction; readonly arity: 1 | 3 }
  | { readonly extremum: 'gt' | 'lt' }
  | { readonly inF32: 'exp10' | 'rsqrt' | 'rcp' };

export interface Fp16Row {
  readonly numba: string;
  readonly form: Fp16Form;
}

const row = <const F extends Fp16Form>(name: string, form: F) => ({ numba: `cuda.fp16.${name}`, form }) as const;

export const FP16_FUNCTIONS = Object.freeze({
  /** `a + b`, rounded once. */
  hadd: row('hadd', { binary: 'add' }),
  /** `a - b`, rounded once. */
  hsub: row('hsub', { binary: 'sub' }),
  /** `a * b`, rounded once. */
  hmul: row('hmul', { binary: 'mul' }),
  /** `a / b`, rounded once. */
  hdiv: row('hdiv', { binary: 'div' }),
  /** `a * b + c`, rounded once. */
  hfma: row('hfma', { math: 'fma', arity: 3 }),
  /** `-a`. */
  hneg: row('hneg', { unary: 'neg' }),
  /** `|a|`. */
  habs: row('habs', { math: 'abs', arity: 1 }),
  /** `a == b`. */
  heq: row('heq', { compare: 'eq' }),
  /** `a != b` (true with a NaN). */
  hne: row('hne', { compare: 'ne' }),
  /** `a > b`. */
  hgt: row('hgt', { compare: 'gt' }),
  /** `a >= b`. */
  hge: row('hge', { compare: 'ge' }),
  /** `a < b`. */
  hlt: row('hlt', { compare: 'lt' }),
  /** `a <= b`. */
  hle: row('hle', { compare: 'le' }),
  /** The larger value; a NaN argument gives the other one. */
  hmax: row('hmax', { extremum: 'gt' }),
  /** The smaller value; a NaN argument gives the other one. */
  hmin: row('hmin', { extremum: 'lt' }),
  hsin: row('hsin', { math: 'sin', arity: 1 }),
  hcos: row('hcos', { math: 'cos', arity: 1 }),
  hlog: row('hlog', { math: 'log', arity: 1 }),
  hlog2: row('hlog2', { math: 'log2', arity: 1 }),
  hlog10: row('hlog10', { math: 'log10', arity: 1 }),
  hexp: row('hexp', { math: 'exp', arity: 1 }),
  hexp2: row('hexp2', { math: 'exp2', arity: 1 }),
  /** `10 ** x`, computed in f32 and rounded to f16 once. */
  hexp10: row('hexp10', { inF32: 'exp10' }),
  hsqrt: row('hsqrt', { math: 'sqrt', arity: 1 }),
  /** `1 / sqrt(x)`, computed in f32 and rounded to f16 once. */
  hrsqrt: row('hrsqrt', { inF32: 'rsqrt' }),
  hceil: row('hceil', { math: 'ceil', arity: 1 }),
  hfloor: row('hfloor', { math: 'floor', arity: 1 }),
  /** `1 / x`, computed in f32 and rounded to f16 once. */
  hrcp: row('hrcp', { inF32: 'rcp' }),
  htrunc: row('htrunc', { math: 'trunc', arity: 1 }),
} satisfies Record<string, Fp16Row>);

/** How many arguments a form takes. */
export function fp16Arity(form: Fp16Form): 1 | 2 | 3 {
  if ('math' in form) return form.arity;
  return 'unary' in form || 'inF32' in form ? 1 : 2;
}
