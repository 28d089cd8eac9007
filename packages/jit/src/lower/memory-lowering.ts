// The kernel's own memories (typed-ir.ts's KernelMemory), each a compact
// C-order array addressed like a parameter (array-addressing.ts):
// - static shared: a module global `internal addrspace(3) global [N x T] undef`;
// - dynamic shared: the one `external addrspace(3) global [0 x i8]` that every
//   dynamic array starts at (they alias, as in numba); its extent is
//   `%dynamic_smem_size / element bytes`;
// - local: an alloca `[N x T]` in the entry block (one per thread);
// - const: `internal addrspace(4) constant [N x T] [...]`, the data in C order.
// Contents of shared and local memory are undefined until written, as in CUDA.
import type { KernelMemory } from '../typing/typed-ir.js';
import type { ArrayAccess } from './array-addressing.js';
import type { FunctionBuilder } from './function-builder.js';
import { asmValue } from './inline-asm.js';
import { constantLiteral, identifierPart, memoryBytes, memoryType, pointerType } from './llvm-types.js';
import type { LoweringContext } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import type { ModuleDeclarations } from './module-declarations.js';

/** The alignment of every memory: enough for any element and for 128-bit vector accesses. */
const MEMORY_ALIGN = 16;

/** The symbol of the dynamic shared memory, shared by every dynamic array of the kernel. */
export const DYNAMIC_SHARED_SYMBOL = 'shared$dynamic';

/** One {@link ArrayAccess} per memory of the kernel, by index, with its global or alloca made. */
export function lowerMemories(
  builder: FunctionBuilder,
  declarations: ModuleDeclarations,
  memories: readonly KernelMemory[],
): ArrayAccess[] {
  return memories.map((memory, index) => lowerMemory(builder, declarations, memory, index));
}

function lowerMemory(
  builder: FunctionBuilder,
  declarations: ModuleDeclarations,
  memory: KernelMemory,
  index: number,
): ArrayAccess {
  const { space, dtype, shape } = memory;
  const description = `${space} array ${memory.name}`;
  if (shape.length < 1 || shape.some((n) => !Number.isSafeInteger(n) || n < 0))
    throw new LoweringError(`${description} has shape [${shape.join(', ')}]`);
  if (memory.dynamic && (space !== 'shared' || shape.length !== 1 || shape[0] !== 0))
    throw new LoweringError(`${description} is dynamic, which only a 1-D shared array of shape [0] is`);
  const t = memoryType(dtype);
  const count = shape.reduce((a, n) => a * n, 1);
  const arrayType = `[${count} x ${t}]`;
  const name = `${space}$${index}$${identifierPart(memory.name)}`;
  const firstElement = (symbol: string, addressSpace: 3 | 4): string =>
    `getelementptr inbounds (${arrayType}, ${pointerType(arrayType, addressSpace)} ${symbol}, i64 0, i64 0)`;
  const staticExtent = (_ctx: LoweringContext, dim: number): string | undefined =>
    dim >= 0 && dim < shape.length ? String(shape[dim]) : undefined;
  const common = { description, dtype, ndim: shape.length, layout: 'C' as const, memory: space, strides: undefined };

  if (memory.data !== undefined && space !== 'const')
    throw new LoweringError(`${description} has data; only const arrays do`);
  switch (space) {
    case 'shared': {
      if (memory.dynamic) {
        const symbol = declarations.defineGlobal(
          DYNAMIC_SHARED_SYMBOL,
          `external addrspace(3) global [0 x i8], align ${MEMORY_ALIGN}`,
        );
        const base = `bitcast ([0 x i8] addrspace(3)* ${symbol} to ${pointerType(t, 3)})`;
        const extent = (ctx: LoweringContext, dim: number): string | undefined =>
          dim === 0 ? dynamicSharedExtent(ctx, memoryBytes(dtype)) : undefined;
        return { ...common, base, addressSpace: 3, extent };
      }
      const symbol = declarations.defineGlobal(
        name,
        `internal addrspace(3) global ${arrayType} undef, align ${MEMORY_ALIGN}`,
      );
      return { ...common, base: firstElement(symbol, 3), addressSpace: 3, extent: staticExtent };
    }
    case 'local': {
      const slot = `%m${index}.${identifierPart(memory.name)}`;
      builder.emitInEntry(`${slot}.alloca = alloca ${arrayType}, align ${MEMORY_ALIGN}`);
      builder.emitInEntry(`${slot} = getelementptr inbounds ${arrayType}, ${arrayType}* ${slot}.alloca, i64 0, i64 0`);
      return { ...common, base: slot, addressSpace: 0, extent: staticExtent };
    }
    case 'const': {
      const data = memory.data;
      if (data === undefined || data.length !== count)
        throw new LoweringError(`${description} of ${count} elements has ${data?.length ?? 'no'} data`);
      // A bool element is a byte: 1 or 0.
      const literal = (v: number | bigint | boolean): string =>
        dtype === 'bool' ? (constantLiteral('bool', v) === 'true' ? '1' : '0') : constantLiteral(dtype, v);
      const initializer = count === 0 ? 'zeroinitializer' : `[${data.map((v) => `${t} ${literal(v)}`).join(', ')}]`;
      const symbol = declarations.defineGlobal(
        name,
        `internal addrspace(4) constant ${arrayType} ${initializer}, align ${MEMORY_ALIGN}`,
      );
      return { ...common, base: firstElement(symbol, 4), addressSpace: 4, extent: staticExtent };
    }
  }
  throw new LoweringError(`${description}: unknown memory space '${space}'`);
}

/** The extent of a dynamic shared array of `elementBytes` elements: `floor(%dynamic_smem_size / elementBytes)` as i64. */
function dynamicSharedExtent(ctx: LoweringContext, elementBytes: number): string {
  // Not volatile: the size is fixed for the launch, so the optimizer may merge and hoist the reads.
  const bytes = asmValue(ctx, 'i32', {
    template: 'mov.u32 $0, %dynamic_smem_size;',
    constraints: '=r',
    sideEffect: false,
  });
  const wide = ctx.builder.compute(`zext i32 ${bytes} to i64`);
  return elementBytes === 1 ? wide : ctx.builder.compute(`udiv i64 ${wide}, ${elementBytes}`);
}
