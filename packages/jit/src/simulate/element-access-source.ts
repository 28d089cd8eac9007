import type { Layout, ScalarName } from '../typing/jit-types.js';
import type { AtomicFunction, Loc, MemorySpace } from '../typing/typed-ir.js';
import { ELEMENT_TYPES } from './element-types.js';
import { bigintCode, numberCode, type GeneratedValue } from './generated-value.js';
import { isRepeatable } from './js-literal.js';
import type { SourceContext } from './source-context.js';

/**
 * An array as generated code addresses it: an array parameter (its typed
 * array over the whole buffer, element 0's index, extents and steps read
 * once per launch) or one of the kernel's memories (compact C order from
 * element 0; shared ones with a race shadow).
 */
export interface ArrayAccess {
  /** The parameter index, or the memory index with `space`. */
  readonly array: number;
  readonly space?: MemorySpace;
  readonly dtype: ScalarName;
  readonly layout: Layout;
  /** The typed array. */
  readonly data: string;
  /** Element 0's index in `data`; undefined for 0. */
  readonly offset?: string;
  /** Per dimension, the extent and the step in elements (code: a name or a literal). */
  readonly extents: readonly string[];
  readonly steps: readonly string[];
  /** The race shadow of a shared array, and its units per element. */
  readonly shadow?: { readonly name: string; readonly units: number };
  /** The name of the thread's linear index in its block (for the shadow). */
  readonly thread?: string;
}

/** A checked element address: `guard` is true when every index is in bounds; then `index` is the element's index in `data`. */
interface CheckedElement {
  readonly guard: string;
  readonly index: string;
  readonly fail: string;
  readonly site: number;
}

/**
 * Indices are evaluated once each, into temporaries unless they are a local
 * or a constant, then checked against the extents: two comparisons per
 * dimension, which the JIT keeps next to the access.
 */
export function checkedElement(
  access: ArrayAccess,
  indices: readonly GeneratedValue[],
  loc: Loc | undefined,
  context: SourceContext,
  atomic?: AtomicFunction,
): CheckedElement {
  const ndim = access.extents.length;
  if (indices.length !== ndim)
    throw new Error(
      `simulator: an array of ${ndim} dimension(s) takes ${ndim} indices, the typed IR has ${indices.length}`,
    );
  const site = context.addFaultSite({
    kind: 'bounds',
    loc,
    array: access.array,
    ...(access.space === undefined ? {} : { space: access.space }),
    ...(atomic === undefined ? {} : { atomic }),
  });
  const setup: string[] = [];
  const names = indices.map((index) => {
    const code = numberCode(index);
    if (isRepeatable(code)) return code;
    const t = context.temporary('0');
    setup.push(`${t} = ${code}`);
    return t;
  });
  const checks = names.map((name, k) => `${name} >= 0 && ${name} < ${access.extents[k]}`).join(' && ');
  const guard = setup.length > 0 ? `(${setup.join(', ')}, ${checks})` : checks;
  // Compact layouts step by 1 along their fastest dimension: no multiplication there.
  const unitDim = access.layout === 'C' ? ndim - 1 : access.layout === 'F' ? 0 : -1;
  const terms = names.map((name, k) => (k === unitDim ? name : `${name} * ${access.steps[k]}`));
  const index = [...(access.offset === undefined ? [] : [access.offset]), ...terms].join(' + ');
  const fail = `outOfBounds(${site}, [${names.join(', ')}], [${access.extents.join(', ')}])`;
  return { guard, index, fail, site };
}

/** The element index in a name that may be repeated (a temporary where it is an expression). */
function indexName(index: string, context: SourceContext, setup: string[]): string {
  if (isRepeatable(index)) return index;
  const t = context.temporary('0');
  setup.push(`${t} = ${index}`);
  return t;
}

/** The call that records an access in the array's race shadow. */
export function shadowCall(
  access: ArrayAccess,
  what: 'read' | 'write' | 'atomic',
  index: string,
  site: number,
): string {
  const shadow = access.shadow!;
  const thread = access.thread ?? 'lin';
  if (shadow.units === 1) return `${shadow.name}.${what}(${index}, ${thread}, ${site})`;
  return `${shadow.name}.${what}Span(${index} * ${shadow.units}, ${shadow.units}, ${thread}, ${site})`;
}

/** Source for reading an element. */
export function loadSource(
  access: ArrayAccess,
  indices: readonly GeneratedValue[],
  loc: Loc | undefined,
  context: SourceContext,
): GeneratedValue {
  const { guard, index, fail, site } = checkedElement(access, indices, loc, context);
  const steps: string[] = [];
  const at = access.shadow === undefined ? index : indexName(index, context, steps);
  if (access.shadow !== undefined) steps.push(shadowCall(access, 'read', at, site));
  const element = `${access.data}[${at}]`;
  const bits = ELEMENT_TYPES[access.dtype].bits;
  steps.push(access.dtype === 'bool' ? `(${element} !== 0)` : bits ? `${bits.decode}(${element})` : element);
  const read = steps.length === 1 ? steps[0]! : `(${steps.join(', ')})`;
  return { code: `(${guard} ? ${read} : ${fail})`, type: access.dtype };
}

/**
 * Source for writing an element; its value is the stored value. The value is
 * evaluated after the indices are checked. A shared array's write is
 * recorded in its shadow after the value is evaluated (the value may wait
 * at a collective), just before the element is written.
 */
export function storeSource(
  access: ArrayAccess,
  indices: readonly GeneratedValue[],
  value: GeneratedValue,
  loc: Loc | undefined,
  context: SourceContext,
): GeneratedValue {
  if (access.space === 'const') throw new Error(`simulator: the typed IR stores to const array ${access.array}`);
  const { guard, index, fail, site } = checkedElement(access, indices, loc, context);
  const dtype = access.dtype;
  const big = dtype === 'i64' || dtype === 'u64';
  const valueCode = big ? bigintCode(value) : value.code;
  const bits = ELEMENT_TYPES[dtype].bits;
  let write: string;
  if (access.shadow !== undefined) {
    const steps: string[] = [];
    const at = indexName(index, context, steps);
    const t = context.temporary(dtype === 'bool' ? 'false' : big ? '0n' : '0');
    steps.push(`${t} = ${valueCode}`, shadowCall(access, 'write', at, site));
    if (dtype === 'bool') steps.push(`${access.data}[${at}] = ${t} ? 1 : 0`, t);
    else if (bits) steps.push(`${access.data}[${at}] = ${bits.encode}(${t})`, t);
    else steps.push(`${access.data}[${at}] = ${t}`);
    write = `(${steps.join(', ')})`;
  } else if (dtype === 'bool') {
    // Bools are stored as bytes 0 and 1; the expression's value stays the boolean.
    const t = context.temporary('false');
    write = `(${access.data}[${index}] = (${t} = ${valueCode}) ? 1 : 0, ${t})`;
  } else if (bits) {
    // f16 and bf16 are stored as their bits; the expression's value stays the number.
    const t = context.temporary('0');
    write = `(${access.data}[${index}] = ${bits.encode}(${t} = ${valueCode}), ${t})`;
  } else {
    write = `(${access.data}[${index}] = ${valueCode})`; // the value is in the dtype's range: stored exactly
  }
  return { code: `(${guard} ? ${write} : ${fail})`, type: dtype };
}
