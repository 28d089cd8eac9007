/**
 * `cuda.atomic.<fn>(array, index, value)` and
 * `cuda.atomic.cas(array, index, expected, value)`: an atomic on one element
 * of an array parameter or a shared or local array, giving its old value.
 * `index` is an integer for a 1-D array, `[i, j, ...]` for an n-D one.
 */
import type { ESTree } from 'meriyah';
import type { ArrayView } from './array-bindings.js';
import type { ScalarName } from './jit-types.js';
import { ATOMIC_FUNCTIONS, type AtomicFunction } from '../intrinsics/atomics.js';
import { typed, type Node, type Typed, type TyperContext } from './typer-context.js';

/** The atomics' names, the rows of intrinsics/atomics.ts. */
export const ATOMIC_NAMES = Object.freeze(Object.keys(ATOMIC_FUNCTIONS) as AtomicFunction[]);

/** How a call of atomic `fn` is written, for messages and argument counts. */
export function atomicUsage(fn: AtomicFunction): string {
  return ATOMIC_FUNCTIONS[fn].operands === 'compare'
    ? `atomic.${fn}(array, index, expected, value)`
    : `atomic.${fn}(array, index, value)`;
}

/** The index nodes of an atomic's `index` argument: `i`, or the elements of `[i, j]`. */
function indexNodes(c: TyperContext, node: Node): Node[] {
  if (node.type !== 'ArrayExpression') return [node];
  return (node as ESTree.ArrayExpression).elements.map((e) =>
    e === null || e.type === 'SpreadElement'
      ? c.typeError(node, 'an index list names one index per dimension: [i, j]')
      : e,
  );
}

export function atomicCall(
  c: TyperContext,
  fn: AtomicFunction,
  args: readonly Node[],
  call: ESTree.CallExpression,
): Typed {
  const arrayNode = args[0]!;
  const name = `cuda.atomic.${fn}`;
  const held = c.arrayOf(arrayNode);
  if (!held)
    return c.typeError(arrayNode, `${name} works on an element of an array (a parameter, or a shared or local array)`);
  return c.eachArray(held, call, (view) => atomicOn(c, fn, view, args, call));
}

function atomicOn(
  c: TyperContext,
  fn: AtomicFunction,
  view: ArrayView,
  args: readonly Node[],
  call: ESTree.CallExpression,
): Typed {
  const [arrayNode, indexNode] = args as [Node, Node];
  const name = `cuda.atomic.${fn}`;
  if (view.space === 'const')
    c.typeError(
      arrayNode,
      `'${view.name}' is constant memory (cuda.const.arrayLike): atomics need memory they can write`,
    );
  if (view.readOnly) c.typeError(arrayNode, view.readOnly);
  const allowed: readonly ScalarName[] = ATOMIC_FUNCTIONS[fn].types;
  if (!allowed.includes(view.dtype))
    c.typeError(arrayNode, `${name} works on arrays of ${allowed.join(', ')}; '${view.name}' is ${view.description}`);
  const indices = indexNodes(c, indexNode);
  if (indices.length !== view.ndim) {
    const how = view.ndim === 1 ? 'one index' : `[${['i', 'j', 'k'].slice(0, view.ndim).join(', ')}]`;
    c.typeError(
      indexNode,
      `'${view.name}' is ${view.description} (${view.ndim}-D): ${name} takes ${how} there, ${indices.length} given`,
    );
  }
  const ref = c.elementRef(view, indices, indexNode);
  c.markWritten(view);
  const operand = (node: Node) => c.to(c.expression(node), view.dtype, node);
  const loc = c.loc(call);
  if (ATOMIC_FUNCTIONS[fn].operands === 'compare') {
    const compare = operand(args[2]!);
    return typed({ op: 'atomic', type: view.dtype, fn, ref, value: operand(args[3]!), compare, loc });
  }
  return typed({ op: 'atomic', type: view.dtype, fn, ref, value: operand(args[2]!), loc });
}
