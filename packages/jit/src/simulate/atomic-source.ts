import type { ScalarName } from '../typing/jit-types.js';
import { type AtomicFunction, type AtomicRow, atomicRow } from '../intrinsics/atomics.js';
import { simulatorText } from '../intrinsics/forms.js';
import type { Loc } from '../typing/typed-ir.js';
import { type ArrayAccess, checkedElement, shadowCall } from './element-access-source.js';
import { ELEMENT_TYPES } from './element-types.js';
import { bigintCode, type GeneratedValue } from './generated-value.js';
import { isRepeatable } from './js-literal.js';
import { simulatorExpression } from './simulator-form.js';
import type { SourceContext } from './source-context.js';

/** The new value of an atomic from the old one (`o`), the value (`v`) and the compared value (`c`, cas only): its row's simulator formula. */
function updated(row: AtomicRow, fn: AtomicFunction, type: ScalarName, o: string, v: string, c: string): string {
  const form = simulatorText(row.update.simulator, type);
  if (form === undefined) throw new Error(`simulator: atomic '${fn}' has no formula for ${type}`);
  const code = simulatorExpression(form, [], { o, v, c });
  if (!row.update.round) return code;
  switch (type) {
    case 'i32':
      return `((${code}) | 0)`;
    case 'u32':
      return `((${code}) >>> 0)`;
    case 'i64':
      return `BigInt.asIntN(64, ${code})`;
    case 'u64':
      return `BigInt.asUintN(64, ${code})`;
    case 'f32':
      return `Math.fround(${code})`;
    case 'f16':
      return `roundToFloat16(${code})`;
    case 'bf16':
      return `roundToBfloat16(${code})`;
    default:
      return `(${code})`;
  }
}

/**
 * Source for an atomic read-modify-write; its value is the element's old
 * value. The indices are checked first, then `compare` (cas) and `value` are
 * evaluated, in the order of the call's arguments, then the element is read
 * and written in one step: threads run one at a time between collectives,
 * so nothing comes between the two.
 */
export function atomicSource(
  fn: AtomicFunction,
  access: ArrayAccess,
  indices: readonly GeneratedValue[],
  value: GeneratedValue,
  compare: GeneratedValue | undefined,
  loc: Loc | undefined,
  context: SourceContext,
): GeneratedValue {
  const type = access.dtype;
  if (access.space === 'const') throw new Error(`simulator: the typed IR has an atomic on const array ${access.array}`);
  const row = atomicRow(fn);
  if (!row?.types.includes(type))
    throw new Error(
      `simulator: the typed IR has atomic '${fn}' on ${type}; it takes ${row?.types.join(', ') ?? 'nothing'}`,
    );
  const compares = row.operands === 'compare';
  if (compares !== (compare !== undefined))
    throw new Error(`simulator: atomic '${fn}' ${compares ? 'needs' : 'takes no'} compare value`);
  const { guard, index, fail, site } = checkedElement(access, indices, loc, context, fn);
  const big = type === 'i64' || type === 'u64';
  const zero = big ? '0n' : '0';
  const code = (g: GeneratedValue): string => (big ? bigintCode(g) : g.code);
  const steps: string[] = [];
  let at = index;
  if (!isRepeatable(index)) {
    at = context.temporary('0');
    steps.push(`${at} = ${index}`);
  }
  let c = '';
  if (compare !== undefined) {
    c = context.temporary(zero);
    steps.push(`${c} = ${code(compare)}`);
  }
  const v = context.temporary(zero);
  steps.push(`${v} = ${code(value)}`);
  if (access.shadow !== undefined) steps.push(shadowCall(access, 'atomic', at, site));
  const o = context.temporary(zero);
  const element = `${access.data}[${at}]`;
  // f16 and bf16 elements are their bits: read as values, written back as bits
  const bits = ELEMENT_TYPES[type].bits;
  const next = updated(row, fn, type, o, v, c);
  steps.push(
    `${o} = ${bits ? `${bits.decode}(${element})` : element}`,
    `${element} = ${bits ? `${bits.encode}(${next})` : next}`,
    o,
  );
  return { code: `(${guard} ? (${steps.join(', ')}) : ${fail})`, type };
}
