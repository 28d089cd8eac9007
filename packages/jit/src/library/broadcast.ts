// numpy's broadcasting, for the ufunc builders (vectorize, guvectorize):
// the common shape of the operands, each operand's strides over it (0 where
// it is broadcast), and the merging of dimensions that one flat index can
// walk, so that kernels of at most 3 dimensions cover inputs of any rank.
import { KernelArgumentError } from '../errors.js';

/**
 * The shape that `shapes` broadcast to (numpy's rules: aligned at the last
 * dimension, an extent of 1 stretches, other extents must agree).
 *
 * @param what names the operation in the error
 * @throws {KernelArgumentError} when two extents differ and neither is 1
 */
export function broadcastShape(shapes: readonly (readonly number[])[], what: string): number[] {
  const ndim = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(ndim).fill(1);
  for (const shape of shapes) {
    const lead = ndim - shape.length;
    for (let d = 0; d < shape.length; d++) {
      const extent = shape[d]!;
      const known = out[lead + d]!;
      if (extent === known || extent === 1) continue;
      if (known !== 1) {
        throw new KernelArgumentError(
          `${what}: shapes ${shapes.map((s) => `[${s.join(', ')}]`).join(', ')} do not broadcast (dimension ${lead + d}: ${known} and ${extent})`,
        );
      }
      out[lead + d] = extent;
    }
  }
  return out;
}

/** The strides (in elements) of an operand of `shape` and `strides` read over `target`: 0 along the dimensions it is broadcast in. */
export function broadcastStrides(
  shape: readonly number[],
  strides: readonly number[],
  target: readonly number[],
): number[] {
  const lead = target.length - shape.length;
  return target.map((extent, d) => (d < lead || (shape[d - lead] === 1 && extent !== 1) ? 0 : strides[d - lead]!));
}

/** A loop nest over one shape, with each operand's strides along it. */
export interface LoopNest {
  readonly shape: readonly number[];
  /** One list of strides per operand, each as long as `shape`. */
  readonly strides: readonly (readonly number[])[];
}

/**
 * The same loop nest with adjacent dimensions merged wherever every operand
 * steps through them as through one (numpy's iterator coalescing):
 * dimensions of extent 1 go, and `d, d+1` merge when each operand's
 * `stride[d] == shape[d+1] * stride[d+1]`. Compact arrays become one
 * dimension; a row broadcast over a matrix stays two.
 */
export function coalesce(nest: LoopNest): LoopNest {
  const shape: number[] = [];
  const strides: number[][] = nest.strides.map(() => []);
  for (let d = 0; d < nest.shape.length; d++) {
    const extent = nest.shape[d]!;
    if (extent === 1) continue;
    const last = shape.length - 1;
    if (last >= 0 && nest.strides.every((s, k) => strides[k]![last] === extent * s[d]!)) {
      shape[last] = shape[last]! * extent;
      nest.strides.forEach((s, k) => (strides[k]![last] = s[d]!));
      continue;
    }
    shape.push(extent);
    nest.strides.forEach((s, k) => strides[k]!.push(s[d]!));
  }
  return { shape, strides };
}
