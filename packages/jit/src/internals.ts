/**
 * The compiler's typed IR (`@cuda-js/jit/internals`): what `jit(...).inspect()`
 * shows as `typed`, for tools that read it. It is no part of the stable
 * surface: node kinds and fields change with the compiler, without a major
 * version. Kernels need none of it; they import from `@cuda-js/jit`.
 *
 * @packageDocumentation
 */
export {
  MATH_FUNCTIONS,
  ATOMIC_TYPES,
  SHUFFLE_TYPES,
  type TypedKernel,
  type TypedFunction,
  type KernelParam,
  type ArrayUse,
  type LocalVariable,
  type Stmt,
  type Expr,
  type Loc,
  type ElementRef,
  type CallArgument,
  type ExternalCall,
  type TypedFunction,
  type KernelMemory,
  type MemorySpace,
  type KernelCollectives,
  type AtomicFunction,
  type ShuffleMode,
  type VoteMode,
  type LaneMask,
  type BitFunction,
  type MathFunction,
  type SpecialRegister,
  type UnaryOperator,
  type BinaryOperator,
  type CompareOperator,
} from './types/typed-ir.js';
