import * as generated from './generated/nccl.js';
import type { GeneratedNcclFunctions } from './generated/nccl.js';
import { namespaceFallback, native } from './native.js';
import { constantsOf, enumsOf, type ConstantsOf, type EnumsOf } from './enums-of.js';

/**
 * NCCL's functions (communicators, collectives, send/recv, groups), its enums
 * (`ncclResult_t`, `ncclDataType_t`, `ncclRedOp_t`) and `NCCL_UNIQUE_ID_BYTES`.
 */
export type Nccl = GeneratedNcclFunctions & EnumsOf<typeof generated> & ConstantsOf<typeof generated>;

/**
 * NCCL, the NVIDIA Collective Communications Library (`libnccl.so.2`; opened
 * on the first call, where pathfinder's `nccl` entry finds it: the
 * `nvidia-nccl-cu13` wheel, the system loader, a toolkit, or
 * `CUDA_JS_LIB_NCCL`). Failures throw {@link NcclError}; where NCCL is absent,
 * the first call throws `LibraryNotFoundError` listing every place it looked.
 *
 * Buffers are device addresses (`CUdeviceptr`) and streams `CUstream`s, as in
 * the driver's functions. Communicators (`ncclComm_t`) are checked: only one
 * that `ncclCommInitRank` or `ncclCommInitAll` made and that was not destroyed
 * or aborted reaches NCCL (another is an `NcclError` `ncclInvalidArgument`).
 * `@cuda-js/core`'s `Communicator` is the layer over these calls.
 */
export const nccl: Nccl = Object.freeze(
  Object.assign(
    Object.create(namespaceFallback.nccl) as object,
    native.nccl,
    enumsOf(generated),
    constantsOf(generated),
  ),
) as unknown as Nccl;
