/**
 * Builders for typed-IR trees in tests, shared by the stages that read them
 * (lower, simulate): short to write, typed as the contract says (result
 * types follow the operands). Each stage's own ir-builders.test-support.ts
 * re-exports these beside what is its own (kernel builders, locators, …).
 * Not shipped (packages/jit/tsconfig.json excludes it).
 */
import type { ScalarName } from './jit-types.js';
import type {
  BinaryOperator,
  BitFunction,
  CallArgument,
  CompareOperator,
  ElementRef,
  Expr,
  ExternalCall,
  LaneMask,
  Loc,
  MathFunction,
  MemorySpace,
  ShuffleMode,
  SpecialRegister,
  Stmt,
  UnaryOperator,
} from './typed-ir.js';

// ---- constants -------------------------------------------------------------

export const constant = (type: ScalarName, value: number | bigint | boolean): Expr => ({ op: 'const', type, value });
export const i32 = (value: number): Expr => constant('i32', value);
export const u32 = (value: number): Expr => constant('u32', value);
export const i64 = (value: number | bigint): Expr => constant('i64', BigInt(value));
export const u64 = (value: number | bigint): Expr => constant('u64', BigInt(value));
/** Rounded to f32: an f32 constant holds an f32 value. */
export const f32 = (value: number): Expr => constant('f32', Math.fround(value));
export const f64 = (value: number): Expr => constant('f64', value);
export const bool = (value: boolean): Expr => constant('bool', value);

// ---- expressions -----------------------------------------------------------

/** Reads local `id`. */
export const get = (id: number, type: ScalarName): Expr => ({ op: 'local', type, id });
/** Assigns local `id`; typed as the value. */
export const set = (id: number, value: Expr): Expr => ({ op: 'assign', type: value.type, id, value });
export const unary = (operator: UnaryOperator, operand: Expr): Expr => ({
  op: 'unary',
  type: operand.type,
  operator,
  operand,
});
export const binary = (operator: BinaryOperator, left: Expr, right: Expr, loc?: Loc): Expr => ({
  op: 'binary',
  type: left.type,
  operator,
  left,
  right,
  ...(loc ? { loc } : {}),
});
export const compare = (operator: CompareOperator, left: Expr, right: Expr): Expr => ({
  op: 'compare',
  type: 'bool',
  operator,
  operandType: left.type,
  left,
  right,
});
export const logical = (operator: 'and' | 'or', left: Expr, right: Expr): Expr => ({
  op: 'logical',
  type: left.type,
  operator,
  left,
  right,
});
export const select = (test: Expr, then: Expr, otherwise: Expr): Expr => ({
  op: 'select',
  type: then.type,
  test,
  then,
  otherwise,
});
export const convert = (type: ScalarName, operand: Expr): Expr => ({ op: 'convert', type, operand });
export const math = (fn: MathFunction, ...args: Expr[]): Expr => {
  const argType = args[0]!.type;
  return { op: 'math', type: fn === 'isnan' || fn === 'isfinite' ? 'bool' : argType, fn, argType, args };
};
export const special = (register: SpecialRegister): Expr => ({ op: 'special', type: 'i32', register });
/** An index as the typer makes it: converted to i64. */
export const index = (e: Expr): Expr => (e.type === 'i64' ? e : convert('i64', e));
const ref = (array: number, indices: readonly Expr[]): ElementRef => ({ array, indices: indices.map(index) });
/** Loads an element of array parameter `array`; the indices are converted to i64 as the typer does. */
export const load = (array: number, dtype: ScalarName, indices: readonly Expr[], loc?: Loc): Expr => ({
  op: 'load',
  type: dtype,
  ref: ref(array, indices),
  ...(loc ? { loc } : {}),
});
/** Stores to an element of array parameter `array`; the indices are converted to i64 as the typer does. */
export const store = (array: number, dtype: ScalarName, indices: readonly Expr[], value: Expr, loc?: Loc): Expr => ({
  op: 'store',
  type: dtype,
  ref: ref(array, indices),
  value,
  ...(loc ? { loc } : {}),
});
export const dim = (array: number, what: 'shape' | 'stride', d: number): Expr => ({
  op: 'dim',
  type: 'i64',
  array,
  what,
  dim: d,
});
export const sequence = (effects: readonly Expr[], value: Expr): Expr => ({
  op: 'sequence',
  type: value.type,
  effects,
  value,
});

/** A scalar argument of a call of linked code (already of the declared type). */
export const valueArg = (value: Expr): CallArgument => ({ kind: 'value', value });
/** An array argument of a call of linked code: parameter `array`, or memory `array` of `space`. */
export const pointerArg = (array: number, space?: MemorySpace): CallArgument =>
  space === undefined ? { kind: 'pointer', array } : { kind: 'pointer', array, space };
/** A call of `externals[external]` (whose declaration is `declaration`), of its declared result type. */
export const call = (external: number, declaration: ExternalCall, args: readonly CallArgument[], loc?: Loc): Expr => ({
  op: 'call',
  type: declaration.returns,
  symbol: declaration.symbol,
  external,
  args,
  ...(loc ? { loc } : {}),
});

/** The 1-D global index `ctaid.x * ntid.x + tid.x` in i32. */
export const globalIndexX = (): Expr =>
  binary('add', binary('mul', special('ctaid.x'), special('ntid.x')), special('tid.x'));

/** The 1-D global index `ctaid.x * ntid.x + tid.x` in i64 (each register widened first). */
export function globalIndex(): Expr {
  const wide = (r: SpecialRegister): Expr => convert('i64', special(r));
  return binary('add', binary('mul', wide('ctaid.x'), wide('ntid.x')), wide('tid.x'));
}

// ---- collectives, bits, timers, inlined functions --------------------------

export const shuffle = (
  mode: ShuffleMode,
  mask: Expr,
  value: Expr,
  lane: Expr,
  width: Expr = i32(32),
  loc?: Loc,
): Expr => ({
  op: 'shuffle',
  type: value.type,
  mode,
  mask,
  value,
  lane,
  width,
  ...(loc ? { loc } : {}),
});
export const match = (mode: 'any' | 'all', mask: Expr, value: Expr, loc?: Loc): Expr => ({
  op: 'match',
  type: 'u32',
  mode,
  mask,
  value,
  valueType: value.type,
  ...(loc ? { loc } : {}),
});
export const lanemask = (which: LaneMask, loc?: Loc): Expr => ({
  op: 'lanemask',
  type: 'u32',
  which,
  ...(loc ? { loc } : {}),
});
export const bits = (fn: BitFunction, arg: Expr): Expr => ({
  op: 'bits',
  type: fn === 'brev' ? arg.type : 'i32',
  fn,
  argType: arg.type,
  arg,
});
export const timer = (which: 'clock64' | 'globaltimer' = 'clock64'): Expr => ({ op: 'timer', type: 'u64', which });
/** An inlined device function: runs `body`, then has the value of local `result` (of `type`). */
export const inlined = (name: string, type: ScalarName, body: readonly Stmt[], result: number, loc?: Loc): Expr => ({
  op: 'inline',
  type,
  name,
  body,
  result,
  ...(loc ? { loc } : {}),
});

// ---- statements ------------------------------------------------------------

export const exprStmt = (expr: Expr): Stmt => ({ op: 'expr', expr });
export const ifStmt = (test: Expr, then: readonly Stmt[], otherwise: readonly Stmt[] = []): Stmt => ({
  op: 'if',
  test,
  then,
  otherwise,
});
export const loop = (
  id: number,
  parts: { test?: Expr; body: readonly Stmt[]; update?: readonly Stmt[]; postTest?: Expr },
): Stmt => ({
  op: 'loop',
  id,
  test: parts.test,
  body: parts.body,
  update: parts.update ?? [],
  postTest: parts.postTest,
});
export const block = (id: number, body: readonly Stmt[]): Stmt => ({ op: 'block', id, body });
export const breakTo = (target: number): Stmt => ({ op: 'break', target });
export const continueTo = (target: number): Stmt => ({ op: 'continue', target });
export const returnStmt = (): Stmt => ({ op: 'return' });
export const fence = (scope: 'block' | 'device' | 'system'): Stmt => ({ op: 'fence', scope });
export const sleep = (nanoseconds: Expr): Stmt => ({ op: 'sleep', nanoseconds });
