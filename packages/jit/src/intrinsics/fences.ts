/**
 * The memory fences: `cuda.<cuda>()` statements (typed-ir.ts's `fence`
 * node, keyed by its `scope`). The simulator form is nothing: its threads
 * run one at a time and see each other's writes at once. One row declares a
 * fence for every stage: the `cuda` stub and its type, the typing rule, the
 * lowering and the simulator.
 */
import type { NvvmForm } from './forms.js';

export interface FenceRow {
  /** Its name under `cuda`. */
  readonly cuda: string;
  /** numba's spelling. */
  readonly numba: string;
  /** The NVVM form (`membar.*`, which sm_70 and later run as `fence.sc.*`); it gives nothing. */
  readonly nvvm: NvvmForm;
  /** What the simulator's code holds for it (a comment: there is nothing to wait for). */
  readonly simulator: string;
}

export const FENCES = Object.freeze({
  /** Orders the thread's memory accesses for the block. */
  block: {
    cuda: 'threadfence_block',
    numba: 'cuda.threadfence_block',
    nvvm: { llvm: ['call void @llvm.nvvm.membar.cta()'] },
    simulator: '// fence (block)',
  },
  /** Orders the thread's memory accesses for the device. */
  device: {
    cuda: 'threadfence',
    numba: 'cuda.threadfence',
    nvvm: { llvm: ['call void @llvm.nvvm.membar.gl()'] },
    simulator: '// fence (device)',
  },
  /** Orders the thread's memory accesses for the system (host and peer devices). */
  system: {
    cuda: 'threadfence_system',
    numba: 'cuda.threadfence_system',
    nvvm: { llvm: ['call void @llvm.nvvm.membar.sys()'] },
    simulator: '// fence (system)',
  },
} as const satisfies Record<string, FenceRow>);

/** A fence's scope (typed-ir.ts's `fence` node). */
export type FenceScope = keyof typeof FENCES;

/** The row of fence scope `scope`, or undefined. */
export function fenceRow(scope: string): FenceRow | undefined {
  return Object.hasOwn(FENCES, scope) ? (FENCES as Readonly<Record<string, FenceRow>>)[scope] : undefined;
}
