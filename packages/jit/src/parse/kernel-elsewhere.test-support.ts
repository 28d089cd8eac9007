// A kernel defined here and made a kernel by definition-site.test.ts: under
// vitest this file is transformed (types stripped) and source-mapped.
import { cuda } from '../index.js';

export interface Unused {
  readonly a: number;
}

export function scaleElsewhere(x: Float32Array, k: number): void {
  const i: number = cuda.grid(1);
  x[i] = x[i]! * (k as unknown as Float32Array).length; // K-elsewhere
}
