/**
 * Names of the per-array constants that a generated kernel reads once per
 * run, for the array parameter at index `p` and dimension `k`.
 */
export const arrayVariables = {
  /** The typed array over the whole buffer. */
  data: (p: number): string => `d${p}`,
  /** Element 0's index in `data`. */
  offset: (p: number): string => `o${p}`,
  /** The extent of dimension k. */
  extent: (p: number, k: number): string => `n${p}_${k}`,
  /** The stride in elements used to address dimension k (compact for 'C' and 'F' layouts, the view's for 'A'). */
  step: (p: number, k: number): string => `x${p}_${k}`,
  /** The view's stride in elements of dimension k, as `dim(stride)` reads it. */
  stride: (p: number, k: number): string => `s${p}_${k}`,
} as const;
