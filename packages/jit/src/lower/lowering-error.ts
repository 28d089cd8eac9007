import { JitError } from '../errors.js';

/**
 * Typed IR that breaks its own contract (a `div` on booleans, an index count
 * that is not the array's ndim, ...): a bug of the stage that made the IR,
 * never of the user's kernel, so it carries no source position.
 */
export class LoweringError extends JitError {
  override name = 'LoweringError';

  constructor(detail: string) {
    super(`internal error while lowering to NVVM IR: ${detail}`);
  }
}
