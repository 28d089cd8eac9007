// Builders for typed-IR trees in the lowering tests: the shared constructors
// (../typing/ir-builders.test-support.ts) and a kernel builder that hands out
// handles. Not part of the package.
import { dim, get, index as toIndex } from '../typing/ir-builders.test-support.js';
import { arrayType, type ArrayType, type Layout, type ScalarName } from '../typing/jit-types.js';
import {
  NO_COLLECTIVES,
  type ArrayUse,
  type AtomicFunction,
  type ElementRef,
  type Expr,
  type ExternalCall,
  type KernelCollectives,
  type KernelMemory,
  type KernelParam,
  type LocalVariable,
  type MemorySpace,
  type Stmt,
  type TypedKernel,
  type VoteMode,
} from '../typing/typed-ir.js';

export * from '../typing/ir-builders.test-support.js';

/** A local variable as the kernel builder hands it out: read it, assign it. */
export interface LocalHandle {
  readonly id: number;
  readonly type: ScalarName;
  readonly get: Expr;
  set(value: Expr): Expr;
}

/** The elements and dimensions of an array the kernel builder hands out. */
interface ElementsHandle {
  readonly index: number;
  load(...indices: Expr[]): Expr;
  store(indices: Expr[], value: Expr): Expr;
  shape(d: number): Expr;
  stride(d: number): Expr;
  /** The element at `indices` (converted to i64), for atomics. */
  ref(...indices: Expr[]): ElementRef;
}

/** An array parameter as the kernel builder hands it out. */
export interface ArrayHandle extends ElementsHandle {
  readonly type: ArrayType;
}

/** A shared, local or const array of the kernel, as the kernel builder hands it out. */
export interface MemoryHandle extends ElementsHandle {
  readonly memory: KernelMemory;
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
  array(
    name: string,
    dtype: ScalarName,
    ndim: 1 | 2 | 3 = 1,
    layout: Layout = 'C',
    use: Partial<ArrayUse> = {},
  ): ArrayHandle {
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
      ref: (...indices) => ({ array: index, indices: indices.map(toIndex) }),
    };
  }

  /** A static shared array of `shape`. */
  shared(name: string, dtype: ScalarName, shape: readonly number[]): MemoryHandle {
    return this.memory({ space: 'shared', name, dtype, shape, dynamic: false });
  }

  /** A dynamic shared array (sized by the launch). */
  dynamicShared(name: string, dtype: ScalarName): MemoryHandle {
    return this.memory({ space: 'shared', name, dtype, shape: [0], dynamic: true });
  }

  /** A per-thread local array of `shape`. */
  localArray(name: string, dtype: ScalarName, shape: readonly number[]): MemoryHandle {
    return this.memory({ space: 'local', name, dtype, shape, dynamic: false });
  }

  /** A const array of `shape` holding `data` in C order. */
  constArray(
    name: string,
    dtype: ScalarName,
    shape: readonly number[],
    data: readonly (number | bigint | boolean)[],
  ): MemoryHandle {
    return this.memory({ space: 'const', name, dtype, shape, dynamic: false, data });
  }

  /** Any memory of the kernel. */
  memory(memory: KernelMemory): MemoryHandle {
    const index = this.memories.length;
    this.memories.push(memory);
    const space: MemorySpace = memory.space;
    const ref = (indices: readonly Expr[]): ElementRef => ({ array: index, space, indices: indices.map(toIndex) });
    return {
      index,
      memory,
      load: (...indices) => ({ op: 'load', type: memory.dtype, ref: ref(indices) }),
      store: (indices, value) => ({ op: 'store', type: memory.dtype, ref: ref(indices), value }),
      shape: (d) => ({ op: 'dim', type: 'i64', array: index, space, what: 'shape', dim: d }),
      stride: (d) => ({ op: 'dim', type: 'i64', array: index, space, what: 'stride', dim: d }),
      ref: (...indices) => ref(indices),
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
  /** Linked device functions; push to add (`call` expressions index them). */
  readonly externals: ExternalCall[] = [];

  /** A linked device function of the kernel; gives its index for `call` expressions. */
  external(declaration: ExternalCall): number {
    this.externals.push(declaration);
    return this.externals.length - 1;
  }

  build(body: Stmt[]): TypedKernel {
    return {
      symbol: this.symbol,
      params: [...this.params],
      locals: [...this.locals],
      memories: [...this.memories],
      externals: [...this.externals],
      collectives: { ...NO_COLLECTIVES, ...this.collectives },
      body,
    };
  }
}

// ---- the nodes of collectives, atomics and the rest (typed-ir.ts) ----------

/** An atomic on `ref`, of the value's type; `compare` for `cas`. */
export const atomic = (fn: AtomicFunction, ref: ElementRef, value: Expr, compare?: Expr): Expr => ({
  op: 'atomic',
  type: value.type,
  fn,
  ref,
  value,
  ...(compare ? { compare } : {}),
});
export const warpVote = (mode: VoteMode, mask: Expr, predicate: Expr): Expr => ({
  op: 'vote',
  type: mode === 'ballot' ? 'u32' : 'bool',
  scope: 'warp',
  mode,
  mask,
  predicate,
});
export const blockVote = (mode: VoteMode, predicate: Expr): Expr => ({
  op: 'vote',
  type: mode === 'count' ? 'i32' : 'bool',
  scope: 'block',
  mode,
  predicate,
});
export const barrier = (scope: 'block' | 'warp' | 'grid', mask?: Expr): Stmt => ({
  op: 'barrier',
  scope,
  ...(mask ? { mask } : {}),
});
export const print = (format: string, ...args: Expr[]): Stmt => ({ op: 'print', format, args });
