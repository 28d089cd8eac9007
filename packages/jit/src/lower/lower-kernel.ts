import { countStage } from '../pipeline-counts.js';
import { withNestingBound } from '../errors.js';
// The `lower` stage: a TypedKernel to the text of an NVVM IR module.
import type { TypedKernel } from '../types/typed-ir.js';
import { FunctionBuilder } from './function-builder.js';
import { kernelAbi } from './kernel-abi.js';
import { identifierPart, memoryBytes, registerType, zeroLiteral } from './llvm-types.js';
import type { LoweringContext } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { lowerMemories } from './memory-lowering.js';
import { ModuleDeclarations } from './module-declarations.js';
import { DEFAULT_IR_VERSION, kernelModuleText, type IrVersion } from './nvvm-module.js';
import { lowerStatements } from './statement-lowering.js';

export interface LowerOptions {
  /**
   * The NVVM IR version to state in `!nvvmir.version`: the compiling
   * libNVVM's (`nvvmIRVersion()` of @cuda-js/program). Default 2.0, what
   * libNVVM 12 and 13 read.
   */
  readonly irVersion?: IrVersion;
  /**
   * numba's `fastmath=True` for the math functions: f32 sin, cos, tan, exp,
   * log, log2, log10 and pow call libdevice's fast approximate forms
   * (`__nv_fast_sinf`, ...: PTX's `sin.approx`, `ex2.approx`, `lg2.approx`).
   * The compile options' `fastMath` sets libNVVM's flags (ftz, approximate
   * division and square root, FMA); the jit passes one value to both.
   */
  readonly fastMath?: boolean;
}

const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The NVVM IR module (text) of one kernel: a function `@<symbol>` with the
 * kernel ABI of {@link TypedKernel}, marked as a kernel. Locals live in
 * allocas of the entry block, zero-initialized, which libNVVM's optimizer
 * turns into registers. Math functions are left as calls to libdevice's
 * `__nv_*`, so the module must be compiled with libdevice linked. The
 * kernel's shared and const arrays, printf's format strings and the grid
 * barrier's counter are globals of the module, under symbols with a `$`
 * (which no C identifier has, so none collides with the kernel's).
 *
 * @throws {LoweringError} for typed IR that breaks its own contract
 */
export function lowerKernel(kernel: TypedKernel, options: LowerOptions = {}): string {
  countStage('lowered');
  return withNestingBound('lowering', () => lowerKernelUnbounded(kernel, options));
}

function lowerKernelUnbounded(kernel: TypedKernel, options: LowerOptions = {}): string {
  if (!C_IDENTIFIER.test(kernel.symbol)) throw new LoweringError(`kernel symbol ${JSON.stringify(kernel.symbol)} is not a C identifier`);
  const builder = new FunctionBuilder();
  const declarations = new ModuleDeclarations();
  const abi = kernelAbi(kernel);
  const localSlots = kernel.locals.map((local, id) => {
    const slot = `%l${id}.${identifierPart(local.name)}`;
    const t = registerType(local.type);
    const align = memoryBytes(local.type);
    builder.emitInEntry(`${slot} = alloca ${t}, align ${align}`);
    // Zero first, so that a read before any write is deterministic rather than undef.
    builder.emitInEntry(`store ${t} ${zeroLiteral(local.type)}, ${t}* ${slot}, align ${align}`);
    return slot;
  });
  const memories = lowerMemories(builder, declarations, kernel.memories ?? []);
  const ctx: LoweringContext = { builder, declarations, kernel, abi, localSlots, memories, fastMath: options.fastMath === true };
  for (const binding of abi.bindings) {
    if (binding.kind !== 'scalar') continue;
    const slot = localSlots[binding.local];
    const local = kernel.locals[binding.local];
    if (slot === undefined || local?.type !== binding.type) throw new LoweringError(`scalar parameter's local ${binding.local} is missing or not of type ${binding.type}`);
    const t = registerType(binding.type);
    // A bool parameter arrives as a byte: any non-zero byte is true.
    const value = binding.type === 'bool' ? builder.compute(`icmp ne i8 ${binding.parameter.ref}, 0`, 'arg') : binding.parameter.ref;
    builder.emit(`store ${t} ${value}, ${t}* ${slot}, align ${memoryBytes(binding.type)}`);
  }
  lowerStatements(ctx, kernel.body);
  return kernelModuleText({
    symbol: kernel.symbol,
    parameterTypes: abi.parameters.map((p) => p.llvmType),
    parameterNames: abi.parameters.map((p) => p.ref),
    body: builder.body(),
    declarations: declarations.lines(),
    globals: declarations.globalLines(),
    irVersion: options.irVersion ?? DEFAULT_IR_VERSION,
    comment: `kernel ${kernel.symbol}, lowered by @cuda-js/jit`,
  });
}
