/**
 * Arrays held in local variables: `let a = x, b = y; ... const t = a; a = b;
 * b = t;` (ping-pong buffers), `let data = even ? buf0 : buf1`. Such a
 * variable is an i32 local, the selector, whose value is the index of the
 * array it holds among the arrays ever assigned to it (its candidates,
 * found over the typer's rounds; they have one dtype and one rank). Each
 * access through it is typed once per candidate and the selector chooses
 * among them at run time (lazy `select`s), so neither backend needs to know
 * of array variables: the typed IR names only parameters and memories.
 */
import type { ArrayChoice, ArrayView } from './array-bindings.js';
import type { Expr, Loc } from './typed-ir.js';

/** Which array a view is: a parameter, or a memory of a space. */
function keyOf(view: ArrayView): string {
  return `${view.space ?? 'param'}:${view.array}`;
}

/** The candidates of one array variable, kept from round to round (new ones are appended: indices are stable). */
export class ArrayLocal {
  readonly views: ArrayView[] = [];
  readonly #keys: string[] = [];

  indexOf(view: ArrayView): number {
    return this.#keys.indexOf(keyOf(view));
  }

  /** Adds `view` if it is new; gives whether it was. Why it does not fit is `incompatible`'s message. */
  add(view: ArrayView, incompatible: (first: ArrayView) => never): boolean {
    if (this.indexOf(view) !== -1) return false;
    const first = this.views[0];
    if (first && (first.dtype !== view.dtype || first.ndim !== view.ndim)) incompatible(first);
    this.views.push(view);
    this.#keys.push(keyOf(view));
    return true;
  }
}

/** The view a variable of these candidates stands for: one of them, chosen by the i32 local `selector`. */
export function choiceView(name: string, selector: number, views: readonly ArrayView[]): ArrayView {
  const first = views[0]!;
  if (views.length === 1) return { ...first, name };
  const readOnly = views.find((v) => v.readOnly !== undefined);
  const choice: ArrayChoice = { selector, views };
  return {
    ...first,
    name,
    description: `one of ${views.map((v) => `'${v.name}'`).join(', ')} (${first.description})`,
    readOnly: readOnly
      ? `'${name}' may hold '${readOnly.name}', which cannot be written: ${readOnly.readOnly}`
      : undefined,
    extents: views.every((v) => v.extents && v.extents.join() === first.extents?.join()) ? first.extents : undefined,
    choice,
  };
}

/** The views a choice view may be (itself, for a plain one). */
export function viewsOf(view: ArrayView): readonly ArrayView[] {
  return view.choice?.views ?? [view];
}

export const selectorRead = (selector: number, loc: Loc): Expr => ({ op: 'local', type: 'i32', id: selector, loc });

export const selectorConstant = (index: number, loc: Loc): Expr => ({ op: 'const', type: 'i32', value: index, loc });

/** `selector == k`. */
export const selectorIs = (selector: number, k: number, loc: Loc): Expr => ({
  op: 'compare',
  type: 'bool',
  operator: 'eq',
  operandType: 'i32',
  left: selectorRead(selector, loc),
  right: selectorConstant(k, loc),
  loc,
});

/** The selector value, for `target`'s candidates, of the array that `source` (a view, maybe a choice) holds now. */
export function selectorFor(target: ArrayLocal, source: ArrayView, loc: Loc): Expr {
  const choice = source.choice;
  if (!choice) return selectorConstant(target.indexOf(source), loc);
  const indices = choice.views.map((v) => target.indexOf(v));
  if (indices.every((ix, k) => ix === k)) return selectorRead(choice.selector, loc);
  let result = selectorConstant(indices[indices.length - 1]!, loc);
  for (let k = indices.length - 2; k >= 0; k--) {
    result = {
      op: 'select',
      type: 'i32',
      test: selectorIs(choice.selector, k, loc),
      then: selectorConstant(indices[k]!, loc),
      otherwise: result,
      loc,
    };
  }
  return result;
}
