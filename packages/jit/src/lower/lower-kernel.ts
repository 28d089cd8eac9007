import { countStage } from '../pipeline-counts.js';
import { withNestingBound } from '../errors.js';
// The `lower` stage: a TypedKernel to the text of an NVVM IR module.
import type { TypedFunction, TypedKernel } from '../typing/typed-ir.js';
import { FunctionBuilder } from './function-builder.js';
import { kernelAbi } from './kernel-abi.js';
import { identifierPart, memoryBytes, registerType, zeroLiteral } from './llvm-types.js';
import type { LoweringContext } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { lowerMemories } from './memory-lowering.js';
import { ModuleDeclarations } from './module-declarations.js';
import { DEFAULT_IR_VERSION, kernelModuleText, type IrVersion } from './nvvm-module.js';
import { lowerStatements } from './statement-lowering.js';
import { functionSymbol } from './expression-lowering.js';

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
  if (!C_IDENTIFIER.test(kernel.symbol))
    throw new LoweringError(`kernel symbol ${JSON.stringify(kernel.symbol)} is not a C identifier`);
  const builder = new FunctionBuilder();
  const declarations = new ModuleDeclarations();
  const abi = kernelAbi(kernel);
  const owned = new Set((kernel.functions ?? []).flatMap((f) => f.locals));
  const localSlots = allocateLocals(builder, kernel, (id) => !owned.has(id));
  const memories = lowerMemories(builder, declarations, kernel.memories ?? []);
  const ctx: LoweringContext = {
    builder,
    declarations,
    kernel,
    abi,
    localSlots,
    memories,
    fastMath: options.fastMath === true,
  };
  const functions = (kernel.functions ?? []).map((f) => lowerFunction(ctx, f));
  for (const binding of abi.bindings) {
    if (binding.kind !== 'scalar') continue;
    const slot = localSlots[binding.local];
    const local = kernel.locals[binding.local];
    if (slot === undefined || local?.type !== binding.type)
      throw new LoweringError(`scalar parameter's local ${binding.local} is missing or not of type ${binding.type}`);
    const t = registerType(binding.type);
    // A bool parameter arrives as a byte: any non-zero byte is true.
    const value =
      binding.type === 'bool'
        ? builder.compute(`icmp ne i8 ${binding.parameter.ref}, 0`, 'arg')
        : binding.parameter.ref;
    builder.emit(`store ${t} ${value}, ${t}* ${slot}, align ${memoryBytes(binding.type)}`);
  }
  lowerStatements(ctx, kernel.body);
  return kernelModuleText({
    symbol: kernel.symbol,
    parameterTypes: abi.parameters.map((p) => p.llvmType),
    parameterNames: abi.parameters.map((p) => p.ref),
    body: builder.body(),
    functions,
    declarations: declarations.lines(),
    globals: declarations.globalLines(),
    irVersion: options.irVersion ?? DEFAULT_IR_VERSION,
    comment: `kernel ${kernel.symbol}, lowered by @cuda-js/jit`,
  });
}

/** An alloca of each local that `mine` admits, zeroed in the entry block; the slots by local id (empty for the others). */
function allocateLocals(builder: FunctionBuilder, kernel: TypedKernel, mine: (id: number) => boolean): string[] {
  return kernel.locals.map((local, id) => {
    if (!mine(id)) return '';
    const slot = `%l${id}.${identifierPart(local.name)}`;
    const t = registerType(local.type);
    const align = memoryBytes(local.type);
    builder.emitInEntry(`${slot} = alloca ${t}, align ${align}`);
    // Zero first, so that a read before any write is deterministic rather than undef.
    builder.emitInEntry(`store ${t} ${zeroLiteral(local.type)}, ${t}* ${slot}, align ${align}`);
    return slot;
  });
}

/**
 * A recursive function (TypedFunction) as an internal function of the
 * module: `define internal <returns> @"<symbol>"(<params>)`, its locals in
 * its own allocas (each call has its own: the GPU keeps them on the
 * thread's stack), returning its result local when the body ends.
 */
function lowerFunction(kernelCtx: LoweringContext, f: TypedFunction): string {
  const builder = new FunctionBuilder();
  const mine = new Set(f.locals);
  const localSlots = allocateLocals(builder, kernelCtx.kernel, (id) => mine.has(id));
  const ctx: LoweringContext = { ...kernelCtx, builder, localSlots, memories: [] };
  const params = f.params.map((id, i) => {
    const local = kernelCtx.kernel.locals[id];
    if (local === undefined || !mine.has(id))
      throw new LoweringError(`function ${f.name}: parameter local ${id} is not its own`);
    const t = registerType(local.type);
    builder.emit(`store ${t} %a${i}, ${t}* ${localSlots[id]!}, align ${memoryBytes(local.type)}`);
    return `${t} %a${i}`;
  });
  lowerStatements(ctx, f.body);
  let returns = 'void';
  if (f.result === undefined) builder.terminate('ret void');
  else {
    const local = kernelCtx.kernel.locals[f.result];
    if (local === undefined || local.type !== f.returns || !mine.has(f.result))
      throw new LoweringError(`function ${f.name}: its result local is not its own of type ${f.returns}`);
    returns = registerType(local.type);
    const value = builder.compute(
      `load ${returns}, ${returns}* ${localSlots[f.result]!}, align ${memoryBytes(local.type)}`,
    );
    builder.terminate(`ret ${returns} ${value}`);
  }
  return `define internal ${returns} @${functionSymbol(f)}(${params.join(', ')}) ${builder.body()}`;
}
