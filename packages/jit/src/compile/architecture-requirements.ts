// What the tensor-core intrinsics need of the architecture a kernel is
// compiled for: the rows' `minArch` (intrinsics/mma.ts, packs.ts), checked
// before libNVVM so that the refusal names the intrinsic (ptxas would name
// only the PTX instruction).
import { parseArchitecture } from '@cuda-js/program';
import { ArchitectureTooOldError } from '../errors.js';
import { MMA_FUNCTIONS, type MmaRow } from '../intrinsics/mma.js';
import { PACKS, type PackRow } from '../intrinsics/packs.js';
import { forEachDeepExpr } from '../simulate/ir-traversal.js';
import type { TypedKernel } from '../typing/typed-ir.js';

/** The intrinsic of `shape`/`to` as kernels call it, its PTX instruction and the lowest architecture it has. */
function requirement(e: {
  op: string;
  shape?: string;
  to?: string;
}): { name: string; ptx: string; min: number } | undefined {
  if (e.op === 'mma') {
    const entry = Object.entries(MMA_FUNCTIONS).find(([, row]: [string, MmaRow]) => row.shape === e.shape);
    return entry && { name: `cuda.mma.${entry[0]}`, ptx: entry[1].instruction, min: entry[1].minArch };
  }
  if (e.op === 'pack') {
    const entry = Object.entries(PACKS).find(([, row]: [string, PackRow]) => row.to === e.to);
    return entry && { name: `cuda.${entry[0]}`, ptx: `cvt.rn.${entry[1].to}x2.f32`, min: entry[1].minArch };
  }
  return undefined;
}

/**
 * @throws `ArchitectureTooOldError` when `kernel` uses an intrinsic that
 * `arch` lacks (an unknown or absent `arch` is left to the compile step).
 */
export function checkArchitecture(kernel: TypedKernel, arch: string | number | undefined): void {
  if (arch === undefined) return;
  let target: number;
  try {
    const a = parseArchitecture(arch);
    target = a.major * 10 + a.minor;
  } catch {
    return;
  }
  forEachDeepExpr(kernel.body, (e) => {
    const need = requirement(e as { op: string });
    if (need && target < need.min)
      throw new ArchitectureTooOldError(
        `${need.name} (${need.ptx}) needs sm_${need.min} or later; kernel '${kernel.symbol}' is compiled for sm_${target}`,
      );
  });
}
