import { describe, expect, it } from 'vitest';
import {
  LibraryNotFoundError,
  loadedLibraries,
  NcclError,
  nccl,
  type CUdeviceptr,
  type CUstream,
  type ncclComm_t,
} from './index.js';
import { errorOf } from '@cuda-js/test-support/errors';

// Where NCCL is absent, every call that gets past its argument checks is a
// LibraryNotFoundError naming nccl and where pathfinder looked; bad arguments
// and communicators NCCL never made are refused first, so the error is the
// same on a machine with NCCL, without it, and without a GPU. Each test file
// runs in a process of its own: the override points at a file that does not
// exist (so this holds on GPU hosts too), before the first call. Property
// tests of the same boundary are in @cuda-js/core's nccl-hostile.test.ts
// (fast-check is a devDependency there).
const MISSING = '/nonexistent/cuda-js-test/libnccl.so.2';
process.env['CUDA_JS_LIB_NCCL'] = MISSING;

/** What the failing call threw: an error of the bindings with its fields. */
type NcclFailure = Error & { codeName?: string; code?: number; functionName?: string; lastError?: string };

const comm = (n: bigint) => n as ncclComm_t;
const ptr = (n: bigint) => n as CUdeviceptr;
const stream = (n: bigint) => n as CUstream;
const id = { internal: new Uint8Array(nccl.NCCL_UNIQUE_ID_BYTES) };

describe('nccl where libnccl cannot be found', () => {
  it('calls that need the library throw LibraryNotFoundError naming nccl, the override and the soname', () => {
    for (const call of [
      () => nccl.ncclGetVersion(),
      () => nccl.ncclGetUniqueId(),
      () => nccl.ncclCommInitRank(1, id, 0),
      () => nccl.ncclCommInitAll([0]),
      () => nccl.ncclGroupStart(),
      () => nccl.ncclGroupEnd(),
      () => nccl.ncclGetErrorString(nccl.ncclResult_t.ncclInvalidUsage),
      () => nccl.ncclGetLastError(comm(0n)),
    ]) {
      const e = errorOf<NcclFailure>(call);
      expect(e).toBeInstanceOf(LibraryNotFoundError);
      expect(e.message).toContain("CUDA library 'nccl' was not found");
      expect(e.message).toContain(`CUDA_JS_LIB_NCCL=${MISSING}`);
      expect(e.message).toContain('libnccl.so.2');
    }
    expect(loadedLibraries().some((l) => l.name === 'nccl')).toBe(false);
  });

  it('has the enums and the unique-id size of nccl.h', () => {
    expect(nccl.ncclResult_t.ncclInProgress).toBe(7);
    expect(nccl.ncclResult_t[5]).toBe('ncclInvalidUsage');
    expect(nccl.ncclDataType_t.ncclFloat32).toBe(7);
    expect(nccl.ncclDataType_t.ncclBfloat16).toBe(9);
    expect(nccl.ncclRedOp_t.ncclAvg).toBe(4);
    expect(nccl.NCCL_UNIQUE_ID_BYTES).toBe(128);
    expect(Object.isFrozen(nccl)).toBe(true);
  });

  it('a communicator that NCCL did not make is NcclError ncclInvalidArgument, before the library is looked for', () => {
    const made = comm(0x7f00_dead_b000n);
    for (const call of [
      () => nccl.ncclCommDestroy(made),
      () => nccl.ncclCommAbort(made),
      () => nccl.ncclCommFinalize(made),
      () => nccl.ncclCommCount(made),
      () => nccl.ncclCommCuDevice(made),
      () => nccl.ncclCommUserRank(made),
      () => nccl.ncclCommGetAsyncError(made),
      () =>
        nccl.ncclAllReduce(
          ptr(0x1000n),
          ptr(0x1000n),
          1,
          nccl.ncclDataType_t.ncclFloat32,
          nccl.ncclRedOp_t.ncclSum,
          made,
          stream(0n),
        ),
      () => nccl.ncclSend(ptr(0x1000n), 1, nccl.ncclDataType_t.ncclInt32, 0, made, stream(0n)),
    ]) {
      const e = errorOf<NcclFailure>(call);
      expect(e).toBeInstanceOf(NcclError);
      expect(e).toMatchObject({ name: 'NcclError', code: 4, codeName: 'ncclInvalidArgument' });
      expect(e.message).toMatch(
        /parameter 'comm' \(0x7f00deadb000\) is not a live ncclComm_t: it was destroyed already, or never created/,
      );
    }
    expect(errorOf<NcclFailure>(() => nccl.ncclCommDestroy(comm(0n))).message).toMatch(
      /parameter 'comm' is NULL \(0n\), which is no ncclComm_t/,
    );
  });

  it('checks argument types and enum values before the library: TypeError and RangeError name the parameter', () => {
    expect(() => nccl.ncclCommDestroy(1 as never)).toThrow(/parameter 'comm' must be a bigint/);
    expect(() => nccl.ncclCommInitRank(1, { internal: new Uint8Array(129) }, 0)).toThrow(
      /holds at most 128 bytes, got 129/,
    );
    expect(() => nccl.ncclCommInitRank(1.5, id, 0)).toThrow(RangeError);
    expect(() => nccl.ncclCommInitAll(['0' as never])).toThrow(TypeError);
    expect(() => nccl.ncclAllGather(ptr(1n), ptr(1n), 1, 99, comm(0n), stream(0n))).toThrow(
      /parameter 'datatype' must be a value of its C enum, got the number 99/,
    );
    expect(() => nccl.ncclReduce(ptr(1n), ptr(1n), -1, 0, 0, 0, comm(0n), stream(0n))).toThrow(
      /parameter 'count' must not be negative/,
    );
  });
});
