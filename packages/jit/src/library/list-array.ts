// A JS array of numbers or bigints (nested for n-D, rectangular) as a host
// view, so that the array makers take lists as numba's cuda.to_device does:
// numbers give float64 (JS's numbers), bigints int64.
import { StridedMemoryView } from '@cuda-js/memory-view';
import { KernelArgumentError } from '../errors.js';

/** The most levels of nesting: a view has at most 64 dimensions (and a list that contains itself nests for ever). */
const MAX_DEPTH = 64;

/**
 * The view of a (nested) JS array, or undefined for anything that is not an
 * Array. Read once, failing at the first element that is wrong (a hole, a
 * value of another kind, a row of another length), so that a sparse
 * `new Array(2 ** 31)` or a Proxy with a lying length costs nothing.
 *
 * @throws {KernelArgumentError} for a list that is not rectangular, nests deeper than 64 levels (or contains itself), or holds anything but all numbers or all bigints
 */
export function viewOfList(value: unknown, what: string): StridedMemoryView | undefined {
  if (!Array.isArray(value)) return undefined;
  const shape: number[] = [];
  for (let level: unknown = value; Array.isArray(level); level = level[0]) {
    if (shape.length === MAX_DEPTH)
      throw new KernelArgumentError(
        `${what}: the list nests deeper than ${MAX_DEPTH} levels (or contains itself); a view has at most ${MAX_DEPTH} dimensions`,
      );
    shape.push(level.length);
    if (level.length === 0) break;
  }
  const flat: (number | bigint)[] = [];
  let kind: 'number' | 'bigint' | undefined;
  const walk = (node: unknown, depth: number, path: string): void => {
    if (depth === shape.length) {
      if (Array.isArray(node))
        throw new KernelArgumentError(`${what}: the list is not rectangular (${path} is a list, a value was expected)`);
      const type = typeof node;
      if ((type !== 'number' && type !== 'bigint') || (kind !== undefined && type !== kind)) {
        throw new KernelArgumentError(
          `${what}: a list's elements must be all numbers (float64) or all bigints (int64), and ${path} is ${node === undefined ? 'a hole or undefined' : type}; use a typed array for another dtype`,
        );
      }
      kind = type;
      flat.push(node as number | bigint);
      return;
    }
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      throw new KernelArgumentError(
        `${what}: the list is not rectangular (${path || 'the list'} should be a list of ${shape[depth]})`,
      );
    }
    for (let i = 0; i < node.length; i++) walk(node[i], depth + 1, `${path}[${i}]`);
  };
  walk(value, 0, '');
  if (kind === 'bigint') return StridedMemoryView.fromAny(BigInt64Array.from(flat as bigint[])).view({ shape });
  return StridedMemoryView.fromAny(Float64Array.from(flat as number[])).view({ shape });
}
