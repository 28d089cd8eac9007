/**
 * Test helpers: the shared typed-IR constructors, a kernel builder that
 * hands out ids, a locator over a made-up source text, and `evaluate`,
 * which runs one expression in one thread.
 * Not shipped (packages/jit/tsconfig.json excludes it).
 */
import { bfloat16Bits, float16Bits } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { SimulatorError, type SourceLocator, type SourcePosition } from '../errors.js';
import {
  compare,
  convert,
  exprStmt as expr,
  get,
  globalIndexX,
  i32,
  index,
  ifStmt as when,
  load,
  set,
  store,
} from '../typing/ir-builders.test-support.js';
import { arrayType, type Layout, type ScalarName } from '../typing/jit-types.js';
import {
  NO_COLLECTIVES,
  type AtomicFunction,
  type Expr,
  type ExternalCall,
  type KernelCollectives,
  type KernelMemory,
  type KernelParam,
  type LocalVariable,
  type Loc,
  type MemorySpace,
  type Stmt,
  type TypedKernel,
  type VoteMode,
} from '../typing/typed-ir.js';
import { SimulatedKernel } from './simulated-kernel.js';

// The shared constructors (../typing/ir-builders.test-support.ts), with the
// short names these tests use for some of them.
export * from '../typing/ir-builders.test-support.js';
export {
  constant as c,
  exprStmt as expr,
  ifStmt as when,
  returnStmt as ret,
} from '../typing/ir-builders.test-support.js';

// ---- kernels ---------------------------------------------------------------

/** Builds a TypedKernel: parameters first (their locals too), then further locals, then the body. */
export class KernelBuilder {
  readonly #params: KernelParam[] = [];
  readonly #locals: LocalVariable[] = [];
  /** Shared, local and const arrays; push to add (ElementRefs with a space index them). */
  readonly memories: KernelMemory[] = [];
  /** Collectives the built kernel declares. */
  collectives: Partial<KernelCollectives> = {};

  /** A scalar parameter; gives the id of the local that holds it. */
  scalar(name: string, type: ScalarName): number {
    const local = this.local(name, type);
    this.#params.push({ kind: 'scalar', name, type, local });
    return local;
  }

  /** An array parameter; gives its parameter index. */
  array(
    name: string,
    dtype: ScalarName,
    ndim: 1 | 2 | 3 = 1,
    layout: Layout = 'C',
    options: { readonly?: boolean } = {},
  ): number {
    const readonly = options.readonly ?? false;
    this.#params.push({
      kind: 'array',
      name,
      type: arrayType(dtype, ndim, layout, readonly),
      use: { shape: true, strides: layout === 'A', written: !readonly },
    });
    return this.#params.length - 1;
  }

  /** A local variable; gives its id. */
  local(name: string, type: ScalarName): number {
    this.#locals.push({ name, type });
    return this.#locals.length - 1;
  }

  /** A static shared array (`cuda.shared.array(shape, dtype)`); gives its memory index. */
  shared(name: string, dtype: ScalarName, shape: number | readonly number[]): number {
    return this.#memory({
      space: 'shared',
      name,
      dtype,
      shape: typeof shape === 'number' ? [shape] : [...shape],
      dynamic: false,
    });
  }

  /** A dynamic shared array (shape 0: sized by the launch's sharedMemory); gives its memory index. */
  dynamicShared(name: string, dtype: ScalarName): number {
    return this.#memory({ space: 'shared', name, dtype, shape: [0], dynamic: true });
  }

  /** A per-thread array (`cuda.local.array(shape, dtype)`); gives its memory index. */
  localArray(name: string, dtype: ScalarName, shape: number | readonly number[]): number {
    return this.#memory({
      space: 'local',
      name,
      dtype,
      shape: typeof shape === 'number' ? [shape] : [...shape],
      dynamic: false,
    });
  }

  /** A const array with its data in C order; gives its memory index. */
  constArray(
    name: string,
    dtype: ScalarName,
    shape: number | readonly number[],
    data: readonly (number | bigint | boolean)[],
  ): number {
    return this.#memory({
      space: 'const',
      name,
      dtype,
      shape: typeof shape === 'number' ? [shape] : [...shape],
      dynamic: false,
      data,
    });
  }

  #memory(m: KernelMemory): number {
    this.memories.push(m);
    return this.memories.length - 1;
  }

  /** Linked device functions; push to add (`call` expressions index them). */
  readonly externals: ExternalCall[] = [];

  /** A linked device function of the kernel; gives its index for `call` expressions. */
  external(declaration: ExternalCall): number {
    this.externals.push(declaration);
    return this.externals.length - 1;
  }

  build(body: readonly Stmt[], symbol = 'kernel'): TypedKernel {
    return {
      symbol,
      params: [...this.#params],
      locals: [...this.#locals],
      memories: [...this.memories],
      externals: [...this.externals],
      collectives: { ...NO_COLLECTIVES, ...this.collectives },
      body,
    };
  }
}

// ---- positions -------------------------------------------------------------

/** Positions within a made-up kernel text, in a made-up file. */
export class TextLocator implements SourceLocator {
  constructor(
    readonly text: string,
    readonly file = 'kernels/test-kernel.js',
  ) {}

  position(loc: Loc): SourcePosition {
    const before = this.text.slice(0, loc.start);
    const line = before.split('\n').length;
    const lineStart = before.lastIndexOf('\n') + 1;
    const lineEnd = this.text.indexOf('\n', lineStart);
    const lineText = this.text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
    const column = loc.start - lineStart + 1;
    return { file: this.file, line, column, snippet: `${lineText}\n${' '.repeat(column - 1)}^` };
  }

  /** The loc of the `occurrence`-th appearance of `fragment` in the text. */
  loc(fragment: string, occurrence = 0): Loc {
    let start = -1;
    for (let i = 0; i <= occurrence; i++) start = this.text.indexOf(fragment, start + 1);
    if (start < 0) throw new Error(`'${fragment}' is not in the test kernel's text`);
    return { start, end: start + fragment.length };
  }
}

export const NO_POSITIONS = new TextLocator('');

// ---- one-expression kernels ------------------------------------------------

type Evaluated<T extends ScalarName> = T extends 'bool' ? boolean : T extends 'i64' | 'u64' ? bigint : number;

/**
 * Runs `make(params)` in one thread and gives its value. Numbers come back
 * through an f64 array (by a `convert` to f64, which is exact and generates
 * no code for f32 and 32-bit integers), so a missing rounding or wrap in the
 * generated code shows; 64-bit integers through a bigint array, checked
 * against their f64 conversion for the same reason.
 */
export function evaluate<T extends ScalarName>(
  type: T,
  make: (scalars: readonly Expr[]) => Expr,
  scalarArgs: readonly { type: ScalarName; value: unknown }[] = [],
): Evaluated<T> {
  const b = new KernelBuilder();
  const scalars = scalarArgs.map((s, i) => get(b.scalar(`s${i}`, s.type), s.type));
  const e = make(scalars);
  if (e.type !== type) throw new Error(`evaluate: the expression is ${e.type}, not ${type}`);
  const wide = type === 'i64' || type === 'u64';
  const outF64 = b.array('outF64', 'f64');
  const outBig = b.array('outBig', type === 'u64' ? 'u64' : 'i64');
  const value = b.local('value', type);
  const body: Stmt[] = [
    expr(set(value, e)),
    expr(store(outF64, 'f64', [i32(0)], type === 'f64' ? get(value, type) : convert('f64', get(value, type)))),
  ];
  if (wide) body.push(expr(store(outBig, type, [i32(0)], get(value, type))));
  const kernel = new SimulatedKernel(b.build(body), NO_POSITIONS);
  const f = new Float64Array(1);
  const big = type === 'u64' ? new BigUint64Array(1) : new BigInt64Array(1);
  kernel.run([1, 1, 1], [1, 1, 1], [...scalarArgs.map((s) => s.value), f, big]);
  if (wide) {
    const result = big[0]!;
    if (Number(result) !== f[0])
      throw new Error(
        `evaluate: the ${type} value ${result} converts to ${f[0]} in the generated code, not to ${Number(result)}`,
      );
    return result as Evaluated<T>;
  }
  if (type === 'bool') return (f[0] === 1) as Evaluated<T>;
  return f[0]! as Evaluated<T>;
}

type HostValue = number | bigint | boolean;

function hostArray(type: ScalarName, values: readonly HostValue[]): ArrayBufferView | StridedMemoryView {
  switch (type) {
    case 'f16':
      return StridedMemoryView.fromAny(Uint16Array.from(values, (v) => float16Bits(Number(v)))).view({
        dtype: 'float16',
      });
    case 'bf16':
      return StridedMemoryView.fromAny(Uint16Array.from(values, (v) => bfloat16Bits(Number(v)))).view({
        dtype: 'bfloat16',
      });
    case 'bool':
      return Uint8Array.from(values, (v) => (v ? 1 : 0));
    case 'i64':
      return BigInt64Array.from(values, (v) => BigInt(v));
    case 'u64':
      return BigUint64Array.from(values, (v) => BigInt(v));
    case 'i8':
      return Int8Array.from(values, Number);
    case 'u8':
      return Uint8Array.from(values, Number);
    case 'i16':
      return Int16Array.from(values, Number);
    case 'u16':
      return Uint16Array.from(values, Number);
    case 'i32':
      return Int32Array.from(values, Number);
    case 'u32':
      return Uint32Array.from(values, Number);
    case 'f32':
      return Float32Array.from(values, Number);
    case 'f64':
      return Float64Array.from(values, Number);
  }
}

/**
 * Runs `make(inputs)` in one thread per row (blocks of 32), each input
 * loaded from an array of its type, and gives the values as `evaluate`
 * does. For property tests: one kernel for many cases.
 */
export function evaluateMany<T extends ScalarName>(
  type: T,
  inputTypes: readonly ScalarName[],
  make: (inputs: readonly Expr[]) => Expr,
  rows: readonly (readonly HostValue[])[],
): Evaluated<T>[] {
  const b = new KernelBuilder();
  const n = b.scalar('n', 'i32');
  const inputs = inputTypes.map((t, k) => b.array(`in${k}`, t, 1, 'C', { readonly: true }));
  const wide = type === 'i64' || type === 'u64';
  const outF64 = b.array('outF64', 'f64');
  const outBig = b.array('outBig', type === 'u64' ? 'u64' : 'i64');
  const i = b.local('i', 'i32');
  const value = b.local('value', type);
  const iv = get(i, 'i32');
  const e = make(inputTypes.map((t, k) => load(inputs[k]!, t, [iv])));
  if (e.type !== type) throw new Error(`evaluateMany: the expression is ${e.type}, not ${type}`);
  const body: Stmt[] = [
    expr(set(value, e)),
    expr(store(outF64, 'f64', [iv], type === 'f64' ? get(value, type) : convert('f64', get(value, type)))),
  ];
  if (wide) body.push(expr(store(outBig, type, [iv], get(value, type))));
  const kernel = new SimulatedKernel(
    b.build([expr(set(i, globalIndexX())), when(compare('lt', iv, get(n, 'i32')), body)]),
    NO_POSITIONS,
  );
  const count = rows.length;
  const f = new Float64Array(count);
  const big = type === 'u64' ? new BigUint64Array(count) : new BigInt64Array(count);
  const arrays = inputTypes.map((t, k) =>
    hostArray(
      t,
      rows.map((r) => r[k]!),
    ),
  );
  kernel.run([Math.max(1, Math.ceil(count / 32)), 1, 1], [32, 1, 1], [count, ...arrays, f, big]);
  return rows.map((_, r) => {
    if (wide) {
      const v = big[r]!;
      if (Number(v) !== f[r])
        throw new Error(`evaluateMany: the ${type} value ${v} converts to ${f[r]} in the generated code`);
      return v as Evaluated<T>;
    }
    return (type === 'bool' ? f[r] === 1 : f[r]) as Evaluated<T>;
  });
}

// ---- the kernel's own memories, atomics and collectives ---------------------

const at = (loc?: Loc): { loc?: Loc } => (loc ? { loc } : {});

/** Loads an element of memory `k` of `space`; indices converted to i64 as the typer does. */
export const mload = (space: MemorySpace, k: number, dtype: ScalarName, indices: readonly Expr[], loc?: Loc): Expr => ({
  op: 'load',
  type: dtype,
  ref: { array: k, space, indices: indices.map(index) },
  ...at(loc),
});
/** Stores to an element of memory `k` of `space`. */
export const mstore = (
  space: MemorySpace,
  k: number,
  dtype: ScalarName,
  indices: readonly Expr[],
  value: Expr,
  loc?: Loc,
): Expr => ({
  op: 'store',
  type: dtype,
  ref: { array: k, space, indices: indices.map(index) },
  value,
  ...at(loc),
});
/** The extent or stride of memory `k`. */
export const mdim = (space: MemorySpace, k: number, what: 'shape' | 'stride', d: number): Expr => ({
  op: 'dim',
  type: 'i64',
  array: k,
  space,
  what,
  dim: d,
});

/** An atomic on an element of array parameter `array` (no `space`) or memory `array` of `space`; gives the old value. */
export const atomic = (
  fn: AtomicFunction,
  target: { array: number; space?: MemorySpace },
  dtype: ScalarName,
  indices: readonly Expr[],
  value: Expr,
  compareValue?: Expr,
  loc?: Loc,
): Expr => ({
  op: 'atomic',
  type: dtype,
  fn,
  ref: { array: target.array, ...(target.space ? { space: target.space } : {}), indices: indices.map(index) },
  value,
  ...(compareValue ? { compare: compareValue } : {}),
  ...at(loc),
});

export const syncthreads = (loc?: Loc): Stmt => ({ op: 'barrier', scope: 'block', ...at(loc) });
export const syncwarp = (mask: Expr, loc?: Loc): Stmt => ({ op: 'barrier', scope: 'warp', mask, ...at(loc) });
export const gridSync = (loc?: Loc): Stmt => ({ op: 'barrier', scope: 'grid', ...at(loc) });
export const print = (format: string, args: readonly Expr[], loc?: Loc): Stmt => ({
  op: 'print',
  format,
  args,
  ...at(loc),
});

/** A vote: scope warp (all, any, eq, ballot; with a mask) or block (count, and, or). */
export const vote = (scope: 'warp' | 'block', mode: VoteMode, predicate: Expr, mask?: Expr, loc?: Loc): Expr => ({
  op: 'vote',
  type: mode === 'ballot' ? 'u32' : mode === 'count' ? 'i32' : 'bool',
  scope,
  mode,
  predicate,
  ...(mask ? { mask } : {}),
  ...at(loc),
});

/** The linear thread index in the block, `(tid.z * ntid.y + tid.y) * ntid.x + tid.x`, in i32. */
export const linearThread = (): Expr => {
  const r = (name: 'tid.x' | 'tid.y' | 'tid.z' | 'ntid.x' | 'ntid.y') =>
    ({ op: 'special', type: 'i32', register: name }) as const;
  const add = (a: Expr, c: Expr): Expr => ({ op: 'binary', type: 'i32', operator: 'add', left: a, right: c });
  const mul = (a: Expr, c: Expr): Expr => ({ op: 'binary', type: 'i32', operator: 'mul', left: a, right: c });
  return add(mul(add(mul(r('tid.z'), r('ntid.y')), r('tid.y')), r('ntid.x')), r('tid.x'));
};

/** The SimulatorError that `run` throws; a test failure when it throws nothing or something else. */
export function failure(run: () => void): SimulatorError {
  try {
    run();
  } catch (error) {
    if (error instanceof SimulatorError) return error;
    throw error;
  }
  throw new Error('the run did not fail');
}
