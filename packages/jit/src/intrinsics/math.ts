/**
 * The math functions that the `cuda` object has (`cuda.fma(a, b, c)`,
 * `cuda.cbrt(x)`), as numba's `cuda` module does: each is a function of
 * MATH_FUNCTIONS (typed-ir.ts), whose row there holds its arity, its NVVM
 * form (libdevice or a formula) and its simulator form (`Math.*` or the same
 * formula); typed as `Math.*` calls are (the `math` node). One row declares
 * a `cuda` member for every stage: the stub and its type (its doc comment is
 * the row's), the typing rule, the lowering and the simulator.
 */
import type { MathFunction } from '../typing/typed-ir.js';

export interface CudaMathRow {
  readonly numba: string;
  /** The MATH_FUNCTIONS function it is. */
  readonly fn: MathFunction;
}

export const CUDA_MATH = Object.freeze({
  /** `a * b + c` with one rounding. */
  fma: { numba: 'cuda.fma', fn: 'fma' },
  /** The cube root. */
  cbrt: { numba: 'cuda.cbrt', fn: 'cbrt' },
} as const satisfies Record<string, CudaMathRow>);
