import type { ScalarName } from '../typing/jit-types.js';
import type { TypedKernel } from '../typing/typed-ir.js';
import type { ArrayAccess } from './array-addressing.js';
import type { FunctionBuilder } from './function-builder.js';
import type { KernelAbi } from './kernel-abi.js';
import type { ModuleDeclarations } from './module-declarations.js';

/** A computed value: its operand text and its type in the kernel language (signedness included). */
export interface TypedValue {
  readonly ref: string;
  readonly type: ScalarName;
}

/** What every lowering step reads and writes. */
export interface LoweringContext {
  readonly builder: FunctionBuilder;
  readonly declarations: ModuleDeclarations;
  readonly kernel: TypedKernel;
  readonly abi: KernelAbi;
  /** The alloca of each local variable, by id. */
  readonly localSlots: readonly string[];
  /** The kernel's shared, local and const arrays, by index in `kernel.memories`. */
  readonly memories: readonly ArrayAccess[];
  /** Math functions take libdevice's fast approximate forms where numba's `fastmath` does (lower-kernel.ts's LowerOptions). */
  readonly fastMath: boolean;
}
