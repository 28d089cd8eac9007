// A JS array of numbers or bigints (nested for n-D, rectangular) as a host
// view, so that the array makers take lists as numba's cuda.to_device does:
// numbers give float64 (JS's numbers), bigints int64.
import { StridedMemoryView } from '@cuda-js/memory-view';
import { KernelArgumentError } from '../errors.js';

/** The view of a (nested) JS array, or undefined for anything that is not an Array. */
export function viewOfList(value: unknown, what: string): StridedMemoryView | undefined {
  if (!Array.isArray(value)) return undefined;
  const shape: number[] = [];
  for (let level: unknown = value; Array.isArray(level); level = level[0]) {
    shape.push(level.length);
    if (level.length === 0) break;
  }
  const flat: unknown[] = [];
  const walk = (node: unknown, depth: number, path: string): void => {
    if (depth === shape.length) {
      if (Array.isArray(node)) throw new KernelArgumentError(`${what}: the list is not rectangular (${path} is a list, a value was expected)`);
      flat.push(node);
      return;
    }
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      throw new KernelArgumentError(`${what}: the list is not rectangular (${path || 'the list'} should be a list of ${shape[depth]})`);
    }
    for (let i = 0; i < node.length; i++) walk(node[i], depth + 1, `${path}[${i}]`);
  };
  walk(value, 0, '');
  if (flat.every((v) => typeof v === 'number')) return StridedMemoryView.fromAny(Float64Array.from(flat as number[])).view({ shape });
  if (flat.every((v) => typeof v === 'bigint')) return StridedMemoryView.fromAny(BigInt64Array.from(flat as bigint[])).view({ shape });
  throw new KernelArgumentError(`${what}: a list's elements must be all numbers (float64) or all bigints (int64); use a typed array for another dtype`);
}
