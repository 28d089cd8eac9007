import type { ArrayType } from '../types/jit-types.js';
import type { Loc } from '../types/typed-ir.js';
import { arrayVariables as v } from './array-variables.js';
import { bigintCode, numberCode, type GeneratedValue } from './generated-value.js';
import { isRepeatable } from './js-literal.js';
import type { SourceContext } from './source-context.js';

/** A checked element address: `guard` is true when every index is in bounds; then `element` names the element. */
interface CheckedElement {
  readonly guard: string;
  readonly element: string;
  readonly fail: string;
}

/**
 * Indices are evaluated once each, into temporaries unless they are a local
 * or a constant, then checked against the extents: two comparisons per
 * dimension, which the JIT keeps next to the access.
 */
function checkedElement(p: number, type: ArrayType, indices: readonly GeneratedValue[], loc: Loc | undefined, context: SourceContext): CheckedElement {
  if (indices.length !== type.ndim) throw new Error(`simulator: ${type.name} takes ${type.ndim} indices, the typed IR has ${indices.length}`);
  const site = context.addFaultSite({ kind: 'bounds', loc, array: p });
  const setup: string[] = [];
  const names = indices.map((index) => {
    const code = numberCode(index);
    if (isRepeatable(code)) return code;
    const t = context.temporary('0');
    setup.push(`${t} = ${code}`);
    return t;
  });
  const checks = names.map((name, k) => `${name} >= 0 && ${name} < ${v.extent(p, k)}`).join(' && ');
  const guard = setup.length > 0 ? `(${setup.join(', ')}, ${checks})` : checks;
  // Compact layouts step by 1 along their fastest dimension: no multiplication there.
  const unitDim = type.layout === 'C' ? type.ndim - 1 : type.layout === 'F' ? 0 : -1;
  const terms = names.map((name, k) => (k === unitDim ? name : `${name} * ${v.step(p, k)}`));
  const element = `${v.data(p)}[${v.offset(p)} + ${terms.join(' + ')}]`;
  const fail = `outOfBounds(${site}, [${names.join(', ')}], [${names.map((_, k) => v.extent(p, k)).join(', ')}])`;
  return { guard, element, fail };
}

/** Source for reading an element of array parameter `p`. */
export function loadSource(p: number, type: ArrayType, indices: readonly GeneratedValue[], loc: Loc | undefined, context: SourceContext): GeneratedValue {
  const { guard, element, fail } = checkedElement(p, type, indices, loc, context);
  const read = type.dtype === 'bool' ? `(${element} !== 0)` : element;
  return { code: `(${guard} ? ${read} : ${fail})`, type: type.dtype };
}

/** Source for writing an element of array parameter `p`; its value is the stored value. The value is evaluated after the indices are checked. */
export function storeSource(p: number, type: ArrayType, indices: readonly GeneratedValue[], value: GeneratedValue, loc: Loc | undefined, context: SourceContext): GeneratedValue {
  const { guard, element, fail } = checkedElement(p, type, indices, loc, context);
  let write: string;
  if (type.dtype === 'bool') {
    // Bools are stored as bytes 0 and 1; the expression's value stays the boolean.
    const t = context.temporary('false');
    write = `(${element} = (${t} = ${value.code}) ? 1 : 0, ${t})`;
  } else if (type.dtype === 'i64' || type.dtype === 'u64') {
    write = `(${element} = ${bigintCode(value)})`;
  } else {
    write = `(${element} = ${value.code})`; // the value is in the dtype's range: stored exactly
  }
  return { code: `(${guard} ? ${write} : ${fail})`, type: type.dtype };
}
