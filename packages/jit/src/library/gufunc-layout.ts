// The layout string of a generalized ufunc (numba's and numpy's
// `'(m,n),(n,p)->(m,p)'`): the core dimensions of each input and output,
// by name. The loop dimensions are what an operand has before its core
// ones; they broadcast across the operands as a ufunc's shapes do.
import { JitError, KernelArgumentError } from '../errors.js';

/** A parsed layout: the core dimension names of each input and each output. */
export interface GufuncLayout {
  readonly inputs: readonly (readonly string[])[];
  readonly outputs: readonly (readonly string[])[];
  /** As written, for messages. */
  readonly text: string;
}

const NAME = /^[A-Za-z_]\w*$/;

/** `(n),()` as lists of names. */
function parseList(part: string, layout: string, side: string): string[][] {
  const text = part.trim();
  if (text === '')
    throw new JitError(`guvectorize layout '${layout}': the ${side} are missing (write '()' for a scalar)`);
  const groups: string[][] = [];
  const re = /\s*\(([^()]*)\)\s*(,|$)/y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m)
      throw new JitError(
        `guvectorize layout '${layout}': cannot read the ${side} '${text}'; write each as (name, ...), separated by commas: '(m,n),(n)->(m)'`,
      );
    const inner = m[1]!.trim();
    const names = inner === '' ? [] : inner.split(',').map((n) => n.trim());
    for (const n of names) {
      if (!NAME.test(n))
        throw new JitError(`guvectorize layout '${layout}': '${n}' is not a dimension name (a name such as n or m)`);
    }
    groups.push(names);
    at = re.lastIndex;
    if (m[2] === ',' && at >= text.length) throw new JitError(`guvectorize layout '${layout}': a ',' ends the ${side}`);
  }
  return groups;
}

/**
 * Reads a layout: `(n),()->(n)`, `(m,n),(n,p)->(m,p)`, `(n)->(),()`.
 *
 * @throws {JitError} for text that is not one
 */
export function parseGufuncLayout(layout: string): GufuncLayout {
  if (typeof layout !== 'string')
    throw new JitError(
      `guvectorize: the layout is a string such as '(n),()->(n)', got ${layout === null ? 'null' : typeof layout}`,
    );
  const sides = layout.split('->');
  if (sides.length !== 2)
    throw new JitError(`guvectorize layout '${layout}': expected inputs '->' outputs, as '(n),()->(n)'`);
  const inputs = parseList(sides[0]!, layout, 'inputs');
  const outputs = parseList(sides[1]!, layout, 'outputs');
  for (const group of [...inputs, ...outputs]) {
    if (new Set(group).size !== group.length)
      throw new JitError(`guvectorize layout '${layout}': a dimension is named twice in (${group.join(',')})`);
    if (group.length > 2)
      throw new JitError(
        `guvectorize layout '${layout}': (${group.join(',')}) has ${group.length} core dimensions; cuda-js takes at most 2 per operand (with the loop dimension, arrays of at most 3)`,
      );
  }
  return { inputs, outputs, text: layout };
}

/**
 * The extent of each core dimension name, from the inputs' core shapes,
 * checking that each name has one extent.
 *
 * @throws {KernelArgumentError} when two inputs give one name different extents
 */
export function coreExtents(
  layout: GufuncLayout,
  inputCores: readonly (readonly number[] | undefined)[],
  name: string,
): Map<string, number> {
  const extents = new Map<string, number>();
  layout.inputs.forEach((names, k) => {
    const core = inputCores[k];
    if (core === undefined) return;
    names.forEach((n, d) => {
      const extent = core[d]!;
      const known = extents.get(n);
      if (known !== undefined && known !== extent) {
        throw new KernelArgumentError(
          `${name}: core dimension '${n}' is ${known} in one input and ${extent} in input ${k + 1} (layout '${layout.text}')`,
        );
      }
      extents.set(n, extent);
    });
  });
  return extents;
}
