/**
 * `cuda.mma.<name>(d, a, b, c)`: a warp's matrix multiply-accumulate (a row
 * of intrinsics/mma.ts). Each operand is a 1-D array of the kernel (a local
 * array, as a fragment is a thread's registers; a shared or global one is
 * read and written element by element) of the row's fragment type with at
 * least the row's register count of elements; `d` is written.
 */
import type { ESTree } from 'meriyah';
import { elementRefOf } from './array-bindings.js';
import type { ElementRef, Expr } from './typed-ir.js';
import { typed, type Node, type Typed, type TyperContext } from './typer-context.js';
import { MMA_FUNCTIONS, type MmaRow, type MmaShape } from '../intrinsics/mma.js';

/** How a call of mma `name` is written, for messages and argument counts. */
export const mmaUsage = (name: string): string => `mma.${name}(d, a, b, c)`;

/** The fragment `which` of the call: `count` element refs of a 1-D array of `type`. */
function fragment(c: TyperContext, name: string, row: MmaRow, which: 'a' | 'b' | 'c' | 'd', node: Node): ElementRef[] {
  const { count, type } = row.fragments[which];
  const what = `cuda.mma.${name}'s ${which} (${count} × ${type})`;
  const view = c.arrayOf(node);
  if (!view) return c.typeError(node, `${what} is an array of the kernel: cuda.local.array(${count}, cuda.${type})`);
  if (view.choice) c.typeError(node, `${what}: '${view.name}' holds one of several arrays; name one array`);
  if (view.dtype !== type || view.ndim !== 1)
    c.typeError(node, `${what} is a 1-D array of ${type}; '${view.name}' is ${view.description}`);
  if (view.extents !== undefined && view.extents[0]! < count)
    c.typeError(node, `${what} needs ${count} elements; '${view.name}' has ${view.extents[0]}`);
  if (which === 'd') {
    if (view.space === 'const' || view.readOnly)
      c.typeError(node, view.readOnly ?? `${what} is written; '${view.name}' is read-only`);
    c.markWritten(view);
  }
  return Array.from({ length: count }, (_, i) =>
    elementRefOf(view, [{ op: 'const', type: 'i64', value: BigInt(i) } as Expr]),
  );
}

export function mmaCall(c: TyperContext, name: string, args: readonly Node[], call: ESTree.CallExpression): Typed {
  const row = MMA_FUNCTIONS[name as keyof typeof MMA_FUNCTIONS] as MmaRow;
  c.useCollective('warp');
  const loc = c.loc(call);
  const [dNode, aNode, bNode, cNode] = args as [Node, Node, Node, Node];
  const d = fragment(c, name, row, 'd', dNode);
  const load = (refs: ElementRef[], which: 'a' | 'b' | 'c'): Expr[] =>
    refs.map((ref): Expr => ({ op: 'load', type: row.fragments[which].type, ref, loc }));
  const a = load(fragment(c, name, row, 'a', aNode), 'a');
  const b = load(fragment(c, name, row, 'b', bNode), 'b');
  const cc = load(fragment(c, name, row, 'c', cNode), 'c');
  return typed({ op: 'mma', type: 'i32', shape: row.shape as MmaShape, a, b, c: cc, d, loc });
}
