/**
 * Memories that a kernel declares (typed-ir.ts's KernelMemory):
 * `const s = cuda.shared.array(shape, dtype)`, `cuda.local.array(shape, dtype)`
 * and `cuda.const.arrayLike(HOST_ARRAY)`, and the limits of each space.
 * Each declaration is one memory (in a loop too); one in a device function
 * is one memory per call site, as each call is inlined.
 */
import type { ESTree } from 'meriyah';
import { KernelTypeError } from '../errors.js';
import type { SourceLocator } from '../errors.js';
import { CASTS } from './intrinsics.js';
import { SCALARS, type ScalarName } from './jit-types.js';
import type { KernelMemory, Loc, MemorySpace } from './typed-ir.js';
import { isLiteralType, literalValue, type Node, type TyperContext } from './typer-context.js';
import { nameTable } from './name-table.js';

/** `cuda.<path>(...)` calls that make a memory, by the space they make. */
export const MEMORY_MAKERS: Readonly<Record<string, MemorySpace>> = nameTable({
  'shared.array': 'shared',
  'local.array': 'local',
  'const.arrayLike': 'const',
});

/** Static shared memory of a block (48 KiB without an opt-in), constant memory of a module (64 KiB), local memory of a thread (512 KiB). */
const LIMITS: Readonly<Record<MemorySpace, number>> = Object.freeze({
  shared: 48 * 1024,
  const: 64 * 1024,
  local: 512 * 1024,
});

const MAX_ELEMENTS = 2 ** 31 - 1;

/** Float16Array, in engines that have one (Node 20 has none); its elements are numbers. */
const Float16ArrayClass = (globalThis as { Float16Array?: new (n: number) => ArrayLike<number> }).Float16Array;

/** The element type of each typed-array class that a const array may be made of. */
const TYPED_ARRAY_DTYPES: readonly (readonly [new (n: number) => ArrayLike<number | bigint>, ScalarName])[] = [
  [Float32Array, 'f32'],
  [Float64Array, 'f64'],
  [Int8Array, 'i8'],
  [Uint8Array, 'u8'],
  [Uint8ClampedArray, 'u8'],
  [Int16Array, 'i16'],
  [Uint16Array, 'u16'],
  [Int32Array, 'i32'],
  [Uint32Array, 'u32'],
  [BigInt64Array, 'i64'],
  [BigUint64Array, 'u64'],
  ...(Float16ArrayClass ? [[Float16ArrayClass, 'f16'] as const] : []),
];

const DTYPE_NAMES = Object.keys(CASTS).filter((n) => n !== 'Number' && n !== 'Boolean');

/** The memory that `const name = cuda.<maker>(...args)` declares. */
export function declareMemory(
  c: TyperContext,
  space: MemorySpace,
  name: string,
  call: ESTree.CallExpression,
): KernelMemory {
  const args = call.arguments;
  if (space === 'const') {
    if (args.length !== 1)
      c.typeError(call, 'cuda.const.arrayLike(HOST_ARRAY) takes one host array, named in the constants');
    const { dtype, data } = hostArrayContents(c, args[0]!);
    return { space, name, dtype, shape: [data.length], dynamic: false, data };
  }
  if (args.length !== 2)
    c.typeError(
      call,
      `cuda.${space}.array(shape, dtype) takes a shape and an element type, ${args.length} argument(s) given`,
    );
  const { shape, dynamic } = shapeOf(c, space, args[0]!);
  return { space, name, dtype: dtypeOf(c, args[1]!), shape, dynamic };
}

function shapeOf(c: TyperContext, space: MemorySpace, node: Node): { shape: number[]; dynamic: boolean } {
  const listed = node.type === 'ArrayExpression';
  const elements = listed ? (node as ESTree.ArrayExpression).elements : [node as ESTree.Expression];
  if (elements.length < 1 || elements.length > 3)
    c.typeError(node, `a ${space} array has 1 to 3 dimensions; the shape lists ${elements.length}`);
  const shape = elements.map((element) => {
    if (element === null || element.type === 'SpreadElement')
      return c.typeError(node, 'a shape lists its extents: [n] or [n, m] (no holes or spreads)');
    const extent = c.expression(element);
    const value = literalValue(extent);
    if (extent.type !== 'int-literal' || value === undefined) {
      const got =
        value !== undefined
          ? `the float ${value}`
          : isLiteralType(extent.type)
            ? 'a variable'
            : `a ${extent.type} value`;
      return c.typeError(
        element,
        `the shape of a ${space} array must be constant integers (numbers, or names from the constants), got ${got}`,
      );
    }
    return value;
  });
  if (!listed && shape[0] === 0) {
    if (space !== 'shared')
      c.typeError(
        node,
        'a local array needs a constant size above 0 (only shared arrays are sized by the launch, with shape 0)',
      );
    return { shape: [0], dynamic: true };
  }
  let total = 1;
  shape.forEach((extent, k) => {
    if (extent < 1) {
      const advice =
        space === 'shared' && listed ? ' (a dynamic shared array is written cuda.shared.array(0, dtype))' : '';
      c.typeError(elements[k]!, `the extents of a ${space} array must be above 0, got ${extent}${advice}`);
    }
    total *= extent;
  });
  if (total > MAX_ELEMENTS) c.typeError(node, `a ${space} array of ${total} elements is too large`);
  return { shape, dynamic: false };
}

function dtypeOf(c: TyperContext, node: Node): ScalarName {
  return (
    c.dtypeOf(node) ??
    c.typeError(
      node,
      `the element type of an array is a scalar type: ${DTYPE_NAMES.join(', ')} (or a constant that is one)`,
    )
  );
}

/** The element type and elements of the host array that `cuda.const.arrayLike(NAME)` names. */
function hostArrayContents(c: TyperContext, node: Node): { dtype: ScalarName; data: (number | bigint)[] } {
  const name = node.type === 'Identifier' ? (node as ESTree.Identifier).name : undefined;
  const value = name === undefined ? undefined : c.constant(name);
  if (name === undefined || value === undefined) {
    return c.typeError(
      node,
      `cuda.const.arrayLike takes the name of a host array passed in the constants (jit(fn, { constants: { TABLE } })), got ${name === undefined ? 'an expression' : `'${name}'`}`,
    );
  }
  const contents = hostArrayOf(value);
  if (typeof contents === 'string') return c.typeError(node, `cuda.const.arrayLike(${name}): ${contents}`);
  if (contents.data.length === 0) c.typeError(node, `cuda.const.arrayLike(${name}): the array is empty`);
  return contents;
}

/**
 * The element type and elements of a host array (a typed array, an array of
 * numbers or of bigints), or why it is none. The elements are read once each
 * (one snapshot: a Proxy or a getter answers once), after the length was read
 * once and bounded by what constant memory holds (a Proxy that reported a
 * length of 1e9 was walked to the end); a hole is refused (it read as NaN).
 */
export function hostArrayOf(value: unknown): { dtype: ScalarName; data: (number | bigint)[] } | string {
  let dtype: ScalarName | undefined;
  for (const [kind, kindDtype] of TYPED_ARRAY_DTYPES) {
    if (value instanceof kind) {
      dtype = kindDtype;
      break;
    }
  }
  if (dtype === undefined && !Array.isArray(value)) {
    const what = value === null ? 'null' : ArrayBuffer.isView(value) ? value.constructor.name : typeof value;
    return `a host array is a typed array (Float32Array, Int32Array, ...) or an array of numbers or bigints, got ${what}`;
  }
  const array = value as ArrayLike<unknown>;
  const length: unknown = array.length;
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0)
    return `the array's length is not a non-negative integer (${String(length)})`;
  if (length > LIMITS.const)
    return `the array has ${length} elements, more than constant memory holds (${LIMITS.const} bytes)`;
  const data: unknown[] = [];
  for (let i = 0; i < length; i++) {
    if (dtype === undefined && !Object.hasOwn(array, i)) return `the array has a hole at index ${i}`;
    data.push(array[i]);
  }
  if (dtype !== undefined) {
    const elementType = typeof (dtype === 'i64' || dtype === 'u64' ? 0n : 0);
    if (data.some((v) => typeof v !== elementType))
      return `the ${value?.constructor?.name ?? 'typed array'} answered elements that are not ${elementType}s`;
    return { dtype, data: data as (number | bigint)[] };
  }
  if (data.every((v) => typeof v === 'number')) return { dtype: 'f64', data: data as number[] };
  if (data.every((v) => typeof v === 'bigint')) {
    const outside = (data as bigint[]).find((v) => BigInt.asIntN(64, v) !== v);
    if (outside !== undefined) return `the bigint ${outside} is outside i64's range`;
    return { dtype: 'i64', data: data as bigint[] };
  }
  return 'an array for constant memory holds only numbers (f64) or only bigints (i64)';
}

/**
 * The constant memory of a host array that the kernel reads by its name in
 * the constants (`PRICES[i]`), as numba puts a global NumPy array in
 * constant memory: the memory `cuda.const.arrayLike(PRICES)` declares.
 */
export function capturedHostArray(c: TyperContext, name: string, value: unknown, node: Node): KernelMemory {
  const contents = hostArrayOf(value);
  if (typeof contents === 'string')
    return c.typeError(node, `the constant '${name}' is read as constant memory: ${contents}`);
  if (contents.data.length === 0)
    c.typeError(node, `the constant '${name}' is read as constant memory, but the array is empty`);
  return {
    space: 'const',
    name,
    dtype: contents.dtype,
    shape: [contents.data.length],
    dynamic: false,
    data: contents.data,
  };
}

/** Whether a constant is a host array (so that messages can say how kernels read one). */
export function isHostArray(value: unknown): boolean {
  return Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));
}

/** A declared memory and where it was declared (for the limits' messages). */
export interface DeclaredMemory {
  readonly memory: KernelMemory;
  readonly at: { readonly locator: SourceLocator; readonly loc: Loc };
}

/** Refuses memories beyond what a space holds, pointing at the declaration that crosses the limit. */
export function checkMemoryLimits(declared: readonly DeclaredMemory[]): void {
  const used: Record<MemorySpace, number> = { shared: 0, local: 0, const: 0 };
  for (const { memory, at } of declared) {
    if (memory.dynamic) continue;
    const bytes = memory.shape.reduce((a, b) => a * b, 1) * SCALARS[memory.dtype].bytes;
    used[memory.space] += bytes;
    const limit = LIMITS[memory.space];
    if (used[memory.space] > limit) {
      const what =
        memory.space === 'shared'
          ? 'static shared memory of a block'
          : memory.space === 'const'
            ? 'constant memory'
            : 'local memory of a thread';
      throw new KernelTypeError(
        `'${memory.name}' takes the kernel's ${what} to ${used[memory.space]} bytes, beyond ${limit}`,
        at,
      );
    }
  }
}
