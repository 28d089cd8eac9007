import { CAST_NAMES } from '../parse/intrinsic-names.js';
import type { ScalarName } from './jit-types.js';
import type { MathFunction, SpecialRegister } from './typed-ir.js';
import { nameTable } from './name-table.js';

/** Casts callable in kernels: `f32(x)`, `i32(x)`, ... (the scalar makers of core, also the type tokens of signatures). */
export const CASTS: Readonly<Record<string, ScalarName>> = nameTable({
  ...Object.fromEntries(CAST_NAMES.map((name) => [name, name satisfies ScalarName])),
  Number: 'f64',
  Boolean: 'bool',
});

/** Whether `cuda.<name>` is a cast (`cuda.f32(x)`: the casts under `cuda`, where TypeScript types their results as numbers). */
export function isCudaCast(name: string): boolean {
  return name !== 'Number' && name !== 'Boolean' && Object.hasOwn(CASTS, name);
}

/** `Math.<name>(...)` → the typed IR's math function. */
export const MATH_CALLS: Readonly<Record<string, MathFunction>> = nameTable({
  sqrt: 'sqrt',
  cbrt: 'cbrt',
  exp: 'exp',
  expm1: 'expm1',
  log: 'log',
  log2: 'log2',
  log10: 'log10',
  log1p: 'log1p',
  sin: 'sin',
  cos: 'cos',
  tan: 'tan',
  asin: 'asin',
  acos: 'acos',
  atan: 'atan',
  sinh: 'sinh',
  cosh: 'cosh',
  tanh: 'tanh',
  asinh: 'asinh',
  acosh: 'acosh',
  atanh: 'atanh',
  floor: 'floor',
  ceil: 'ceil',
  trunc: 'trunc',
  round: 'round',
  atan2: 'atan2',
  pow: 'pow',
  hypot: 'hypot',
  abs: 'abs',
  sign: 'sign',
  min: 'min',
  max: 'max',
});

/** `Math.<name>` constants. */
export const MATH_CONSTANTS: Readonly<Record<string, number>> = nameTable({
  PI: Math.PI,
  E: Math.E,
  LN2: Math.LN2,
  LN10: Math.LN10,
  LOG2E: Math.LOG2E,
  LOG10E: Math.LOG10E,
  SQRT2: Math.SQRT2,
  SQRT1_2: Math.SQRT1_2,
});

/** `Number.<name>` constants. */
export const NUMBER_CONSTANTS: Readonly<Record<string, number>> = nameTable({
  EPSILON: Number.EPSILON,
  MAX_VALUE: Number.MAX_VALUE,
  MIN_VALUE: Number.MIN_VALUE,
  MAX_SAFE_INTEGER: Number.MAX_SAFE_INTEGER,
  MIN_SAFE_INTEGER: Number.MIN_SAFE_INTEGER,
  POSITIVE_INFINITY: Infinity,
  NEGATIVE_INFINITY: -Infinity,
  NaN: NaN,
});

/** Global names that are values. */
export const GLOBAL_CONSTANTS: Readonly<Record<string, number>> = nameTable({ Infinity, NaN });

/** `cuda.threadIdx.x` and friends → special register prefix. */
export const CUDA_DIMENSIONS: Readonly<Record<string, string>> = nameTable({
  threadIdx: 'tid',
  blockDim: 'ntid',
  blockIdx: 'ctaid',
  gridDim: 'nctaid',
});

/** `cuda.laneid`, `cuda.warpsize`. */
export const CUDA_SCALARS: Readonly<Record<string, SpecialRegister>> = nameTable({
  laneid: 'laneid',
  warpsize: 'warpsize',
});

export { INTRINSIC_NAMES } from '../parse/intrinsic-names.js';
