/**
 * Test helpers: the shared typed-IR constructors, a kernel builder that
 * hands out ids, a locator over a made-up source text, and `evaluate`,
 * which runs one expression in one thread.
 * Not shipped (packages/jit/tsconfig.json excludes it).
 */
import type { SourceLocator, SourcePosition } from '../errors.js';
import { compare, convert, exprStmt as expr, get, globalIndexX, i32, ifStmt as when, load, set, store } from '../types/ir-builders.test-support.js';
import { arrayType, type Layout, type ScalarName } from '../types/jit-types.js';
import { NO_COLLECTIVES, type Expr, type KernelCollectives, type KernelMemory, type KernelParam, type LocalVariable, type Loc, type Stmt, type TypedKernel } from '../types/typed-ir.js';
import { SimulatedKernel } from './simulated-kernel.js';

// The shared constructors (../types/ir-builders.test-support.ts), with the
// short names these tests use for some of them.
export * from '../types/ir-builders.test-support.js';
export { constant as c, exprStmt as expr, ifStmt as when, returnStmt as ret } from '../types/ir-builders.test-support.js';

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
  array(name: string, dtype: ScalarName, ndim: 1 | 2 | 3 = 1, layout: Layout = 'C', options: { readonly?: boolean } = {}): number {
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

  build(body: readonly Stmt[], symbol = 'kernel'): TypedKernel {
    return { symbol, params: [...this.#params], locals: [...this.#locals], memories: [...this.memories], collectives: { ...NO_COLLECTIVES, ...this.collectives }, body };
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
export function evaluate<T extends ScalarName>(type: T, make: (scalars: readonly Expr[]) => Expr, scalarArgs: readonly { type: ScalarName; value: unknown }[] = []): Evaluated<T> {
  const b = new KernelBuilder();
  const scalars = scalarArgs.map((s, i) => get(b.scalar(`s${i}`, s.type), s.type));
  const e = make(scalars);
  if (e.type !== type) throw new Error(`evaluate: the expression is ${e.type}, not ${type}`);
  const wide = type === 'i64' || type === 'u64';
  const outF64 = b.array('outF64', 'f64');
  const outBig = b.array('outBig', type === 'u64' ? 'u64' : 'i64');
  const value = b.local('value', type);
  const body: Stmt[] = [expr(set(value, e)), expr(store(outF64, 'f64', [i32(0)], type === 'f64' ? get(value, type) : convert('f64', get(value, type))))];
  if (wide) body.push(expr(store(outBig, type, [i32(0)], get(value, type))));
  const kernel = new SimulatedKernel(b.build(body), NO_POSITIONS);
  const f = new Float64Array(1);
  const big = type === 'u64' ? new BigUint64Array(1) : new BigInt64Array(1);
  kernel.run([1, 1, 1], [1, 1, 1], [...scalarArgs.map((s) => s.value), f, big]);
  if (wide) {
    const result = big[0]!;
    if (Number(result) !== f[0]) throw new Error(`evaluate: the ${type} value ${result} converts to ${f[0]} in the generated code, not to ${Number(result)}`);
    return result as Evaluated<T>;
  }
  if (type === 'bool') return (f[0] === 1) as Evaluated<T>;
  return f[0]! as Evaluated<T>;
}

type HostValue = number | bigint | boolean;

function hostArray(type: ScalarName, values: readonly HostValue[]): ArrayBufferView {
  switch (type) {
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
export function evaluateMany<T extends ScalarName>(type: T, inputTypes: readonly ScalarName[], make: (inputs: readonly Expr[]) => Expr, rows: readonly (readonly HostValue[])[]): Evaluated<T>[] {
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
  const body: Stmt[] = [expr(set(value, e)), expr(store(outF64, 'f64', [iv], type === 'f64' ? get(value, type) : convert('f64', get(value, type))))];
  if (wide) body.push(expr(store(outBig, type, [iv], get(value, type))));
  const kernel = new SimulatedKernel(b.build([expr(set(i, globalIndexX())), when(compare('lt', iv, get(n, 'i32')), body)]), NO_POSITIONS);
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
      if (Number(v) !== f[r]) throw new Error(`evaluateMany: the ${type} value ${v} converts to ${f[r]} in the generated code`);
      return v as Evaluated<T>;
    }
    return (type === 'bool' ? f[r] === 1 : f[r]) as Evaluated<T>;
  });
}
