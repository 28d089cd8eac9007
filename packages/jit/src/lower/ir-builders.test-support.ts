// Builders for typed-IR trees in tests: short to write, typed as the
// contract says (result types follow the operands). Not part of the package.
import { arrayType, type ArrayType, type Layout, type ScalarName } from '../types/jit-types.js';
import type {
  ArrayUse,
  BinaryOperator,
  CompareOperator,
  Expr,
  KernelParam,
  LocalVariable,
  MathFunction,
  SpecialRegister,
  Stmt,
  TypedKernel,
  UnaryOperator,
} from '../types/typed-ir.js';

export const constant = (type: ScalarName, value: number | bigint | boolean): Expr => ({ op: 'const', type, value });
export const i32 = (value: number): Expr => constant('i32', value);
export const i64 = (value: number | bigint): Expr => constant('i64', BigInt(value));
export const f32 = (value: number): Expr => constant('f32', value);
export const f64 = (value: number): Expr => constant('f64', value);
export const bool = (value: boolean): Expr => constant('bool', value);

export const unary = (operator: UnaryOperator, operand: Expr): Expr => ({ op: 'unary', type: operand.type, operator, operand });
export const binary = (operator: BinaryOperator, left: Expr, right: Expr): Expr => ({ op: 'binary', type: left.type, operator, left, right });
export const compare = (operator: CompareOperator, left: Expr, right: Expr): Expr => ({
  op: 'compare',
  type: 'bool',
  operator,
  operandType: left.type,
  left,
  right,
});
export const logical = (operator: 'and' | 'or', left: Expr, right: Expr): Expr => ({ op: 'logical', type: left.type, operator, left, right });
export const select = (test: Expr, then: Expr, otherwise: Expr): Expr => ({ op: 'select', type: then.type, test, then, otherwise });
export const convert = (type: ScalarName, operand: Expr): Expr => ({ op: 'convert', type, operand });
export const math = (fn: MathFunction, ...args: Expr[]): Expr => ({
  op: 'math',
  type: fn === 'isnan' || fn === 'isfinite' ? 'bool' : args[0]!.type,
  fn,
  argType: args[0]!.type,
  args,
});
export const special = (register: SpecialRegister): Expr => ({ op: 'special', type: 'i32', register });
export const dim = (array: number, what: 'shape' | 'stride', d: number): Expr => ({ op: 'dim', type: 'i64', array, what, dim: d });
export const sequence = (effects: Expr[], value: Expr): Expr => ({ op: 'sequence', type: value.type, effects, value });

export const exprStmt = (expr: Expr): Stmt => ({ op: 'expr', expr });
export const ifStmt = (test: Expr, then: Stmt[], otherwise: Stmt[] = []): Stmt => ({ op: 'if', test, then, otherwise });
export const loop = (id: number, parts: { test?: Expr; body: Stmt[]; update?: Stmt[]; postTest?: Expr }): Stmt => ({
  op: 'loop',
  id,
  test: parts.test,
  body: parts.body,
  update: parts.update ?? [],
  postTest: parts.postTest,
});
export const block = (id: number, body: Stmt[]): Stmt => ({ op: 'block', id, body });
export const breakTo = (target: number): Stmt => ({ op: 'break', target });
export const continueTo = (target: number): Stmt => ({ op: 'continue', target });
export const returnStmt = (): Stmt => ({ op: 'return' });

/** A local variable as the kernel builder hands it out: read it, assign it. */
export interface LocalHandle {
  readonly id: number;
  readonly type: ScalarName;
  readonly get: Expr;
  set(value: Expr): Expr;
}

/** An array parameter as the kernel builder hands it out. */
export interface ArrayHandle {
  readonly index: number;
  readonly type: ArrayType;
  load(...indices: Expr[]): Expr;
  store(indices: Expr[], value: Expr): Expr;
  shape(d: number): Expr;
  stride(d: number): Expr;
}

/** Builds a TypedKernel parameter by parameter, local by local. */
export class KernelBuilder {
  private readonly params: KernelParam[] = [];
  private readonly locals: LocalVariable[] = [];

  constructor(private readonly symbol: string) {}

  /** A scalar parameter (and the local that holds it). */
  scalar(name: string, type: ScalarName): LocalHandle {
    const handle = this.local(name, type);
    this.params.push({ kind: 'scalar', name, type, local: handle.id });
    return handle;
  }

  /** An array parameter; by default it passes what its layout needs to be indexed. */
  array(name: string, dtype: ScalarName, ndim: 1 | 2 | 3 = 1, layout: Layout = 'C', use: Partial<ArrayUse> = {}): ArrayHandle {
    const type = arrayType(dtype, ndim, layout);
    const index = this.params.length;
    const fullUse: ArrayUse = {
      shape: use.shape ?? (type.layout !== 'A' && ndim > 1),
      strides: use.strides ?? type.layout === 'A',
      written: use.written ?? true,
    };
    this.params.push({ kind: 'array', name, type, use: fullUse });
    return {
      index,
      type,
      load: (...indices) => ({ op: 'load', type: dtype, ref: { array: index, indices } }),
      store: (indices, value) => ({ op: 'store', type: dtype, ref: { array: index, indices }, value }),
      shape: (d) => dim(index, 'shape', d),
      stride: (d) => dim(index, 'stride', d),
    };
  }

  /** A local variable that is not a parameter. */
  local(name: string, type: ScalarName): LocalHandle {
    const id = this.locals.length;
    this.locals.push({ name, type });
    return {
      id,
      type,
      get: { op: 'local', type, id },
      set: (value) => ({ op: 'assign', type, id, value }),
    };
  }

  build(body: Stmt[]): TypedKernel {
    return { symbol: this.symbol, params: [...this.params], locals: [...this.locals], body };
  }
}

/** The global thread index along x as i64: ctaid.x * ntid.x + tid.x. */
export function globalIndex(): Expr {
  const wide = (r: SpecialRegister): Expr => convert('i64', special(r));
  return binary('add', binary('mul', wide('ctaid.x'), wide('ntid.x')), wide('tid.x'));
}
