// Builders for typed-IR trees in the lowering tests: the shared constructors
// (../types/ir-builders.test-support.ts) and a kernel builder that hands out
// handles. Not part of the package.
import { dim, get } from '../types/ir-builders.test-support.js';
import { arrayType, type ArrayType, type Layout, type ScalarName } from '../types/jit-types.js';
import { NO_COLLECTIVES, type ArrayUse, type Expr, type KernelCollectives, type KernelMemory, type KernelParam, type LocalVariable, type Stmt, type TypedKernel } from '../types/typed-ir.js';

export * from '../types/ir-builders.test-support.js';

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
      get: get(id, type),
      set: (value) => ({ op: 'assign', type, id, value }),
    };
  }

  /** Shared, local and const arrays; push to add (ElementRefs with a space index them). */
  readonly memories: KernelMemory[] = [];
  /** Collectives the built kernel declares. */
  collectives: Partial<KernelCollectives> = {};

  build(body: Stmt[]): TypedKernel {
    return { symbol: this.symbol, params: [...this.params], locals: [...this.locals], memories: [...this.memories], collectives: { ...NO_COLLECTIVES, ...this.collectives }, body };
  }
}
