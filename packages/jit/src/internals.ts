/**
 * The compiler's typed IR (`@cuda-js/jit/internals`): what `jit(...).inspect()`
 * shows as `typed`, for tools that read it. It is no part of the stable
 * surface: node kinds and fields change with the compiler, without a major
 * version. Kernels need none of it; they import from `@cuda-js/jit`.
 *
 * @packageDocumentation
 */
// Every type of the typed IR (a node kind added there is documented here without a second list), and its tables.
export type * from './typing/typed-ir.js';
export { MATH_FUNCTIONS, ATOMIC_TYPES, SHUFFLE_TYPES } from './typing/typed-ir.js';
