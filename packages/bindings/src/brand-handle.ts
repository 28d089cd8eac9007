import type { Handle } from './types.js';

/**
 * Brands a plain `bigint` that a caller gave as a handle (`CUstream`,
 * `CUevent`, ...) once, at the public boundary, after it was checked to be a
 * bigint: the one place where a user's number becomes a typed handle, so that
 * the driver calls after it need no casts. No run-time cost (handles are
 * plain bigints at run time); it checks nothing about what the handle names.
 */
export function brandHandle<H extends Handle<string>>(value: bigint): H {
  if (typeof value !== 'bigint') throw new TypeError(`a CUDA handle must be a bigint, got ${typeof value}`);
  return value as H;
}
