/**
 * A grid, block or cluster shape: `256`, `[16, 16]`, `[4, 4, 4]` or
 * `{ x, y, z }`; a dimension left out is 1. The occupancy queries here and
 * `@cuda-js/core`'s `LaunchConfig` take the same forms.
 */
export type Dim3 =
  | number
  | readonly [number]
  | readonly [number, number]
  | readonly [number, number, number]
  | { readonly x: number; readonly y?: number; readonly z?: number };

/**
 * Why a value is no {@link Dim3} (see {@link readDim3}): not one of its forms
 * (`'form'`), or an extent that is no integer in [1, 2^32-1] (`'extent'`).
 */
export type Dim3Fault = 'form' | 'extent';

/** The largest extent: `cuLaunchKernel` takes unsigned int dimensions. */
const MAX_EXTENT = 0xffffffff;

function extent(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_EXTENT;
}

/**
 * `[x, y, z]` of a {@link Dim3}, each element or field read once (a Proxy or
 * a getter cannot answer twice), or the {@link Dim3Fault} that makes it none,
 * so that each caller throws the error its API documents.
 */
export function readDim3(value: unknown): [number, number, number] | Dim3Fault {
  let x: unknown;
  let y: unknown = 1;
  let z: unknown = 1;
  if (typeof value === 'number') x = value;
  else if (Array.isArray(value)) {
    const n: unknown = value.length;
    if (typeof n !== 'number' || n < 1 || n > 3) return 'form';
    x = value[0];
    if (n > 1) y = value[1];
    if (n > 2) z = value[2];
  } else if (value !== null && typeof value === 'object') {
    // { x: 1, w: 2 } is no dimension: a key other than x, y, z was ignored before
    for (const key of Object.keys(value)) if (key !== 'x' && key !== 'y' && key !== 'z') return 'form';
    const { x: vx, y: vy, z: vz } = value as { x?: unknown; y?: unknown; z?: unknown };
    x = vx;
    y = vy ?? 1;
    z = vz ?? 1;
  } else return 'form';
  return extent(x) && extent(y) && extent(z) ? [x, y, z] : 'extent';
}
