// Property-based tests (fast-check, seeded and bounded) of the NCCL boundary:
// the bindings' native NCCL functions (their argument checks and the live set
// of communicators) and the collectives layer's unique ids. Hostile input is a
// named error, never a crash and never a call into NCCL: NCCL is made absent
// (an override naming no file), so a value that passes every check reaches
// the library lookup and says LibraryNotFoundError.
import {
  LibraryNotFoundError,
  NcclError,
  nccl,
  type CUdeviceptr,
  type CUstream,
  type ncclComm_t,
} from '@cuda-js/bindings';
import { fuzzParameters } from '@cuda-js/test-support/fuzz';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CollectiveArgumentError } from '../errors.js';
import { decodeUniqueId, encodeUniqueId } from './unique-id.js';
import { errorOf } from '@cuda-js/test-support/errors';

process.env['CUDA_JS_LIB_NCCL'] = '/nonexistent/cuda-js-test/libnccl.so.2';

// The long, nightly mode (CUDA_JS_FUZZ_RUNS, CUDA_JS_FUZZ_SEED) runs every input it is given, with no time limit.
const LONG = fuzzParameters(300);
const FUZZ = LONG.long
  ? { seed: LONG.seed, numRuns: LONG.numRuns }
  : ({ seed: 42, numRuns: 300, interruptAfterTimeLimit: 8000 } as const);

const comm = (n: bigint) => n as ncclComm_t;
const ptr = (n: bigint) => n as CUdeviceptr;
const stream = (n: bigint) => n as CUstream;

describe('the native NCCL functions under hostile input', () => {
  const calls = [
    (c: ncclComm_t) => nccl.ncclCommDestroy(c),
    (c: ncclComm_t) => nccl.ncclCommAbort(c),
    (c: ncclComm_t) => nccl.ncclCommUserRank(c),
    (c: ncclComm_t) =>
      nccl.ncclAllReduce(
        ptr(0x1000n),
        ptr(0x1000n),
        4,
        nccl.ncclDataType_t.ncclFloat32,
        nccl.ncclRedOp_t.ncclSum,
        c,
        stream(0n),
      ),
    (c: ncclComm_t) =>
      nccl.ncclBroadcast(ptr(0x1000n), ptr(0x2000n), 4, nccl.ncclDataType_t.ncclUint8, 0, c, stream(0n)),
    (c: ncclComm_t) => nccl.ncclRecv(ptr(0x1000n), 4, nccl.ncclDataType_t.ncclUint8, 0, c, stream(0n)),
  ];

  it('a bigint that is no live communicator is NcclError ncclInvalidArgument; any other value a TypeError', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.nat(calls.length - 1), (value, which) => {
        const e = errorOf<unknown>(() => calls[which]!(comm(value)));
        expect(e).toBeInstanceOf(NcclError);
        expect((e as NcclError).codeName).toBe('ncclInvalidArgument');
      }),
      FUZZ,
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer(),
          fc.double(),
          fc.string(),
          fc.constant(null),
          fc.constant(undefined),
          fc.object(),
          fc.bigInt({ min: 1n << 64n, max: 1n << 70n }),
        ),
        fc.nat(calls.length - 1),
        (value, which) => {
          const e = errorOf<unknown>(() => calls[which]!(value as ncclComm_t));
          expect(e instanceof TypeError || e instanceof RangeError, String(e)).toBe(true);
        },
      ),
      FUZZ,
    );
  });

  it('enums, counts and ranks are checked against their C types before the communicator', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -100, max: 100 }),
        fc.integer({ min: -100, max: 100 }),
        fc.oneof(fc.integer({ min: -10, max: 1 << 20 }), fc.double()),
        (type, op, count) => {
          const validType = type >= 0 && type <= 12;
          const validOp = (op >= 0 && op <= 5) || op === 0x7fffffff;
          const validCount = Number.isSafeInteger(count) && count >= 0;
          const e = errorOf<unknown>(() =>
            nccl.ncclAllReduce(ptr(0x1000n), ptr(0x1000n), count, type, op, comm(0x5000n), stream(0n)),
          );
          if (validType && validOp && validCount)
            expect((e as NcclError).codeName).toBe('ncclInvalidArgument'); // reached the communicator check
          else expect(e instanceof RangeError || e instanceof TypeError, String(e)).toBe(true);
        },
      ),
      FUZZ,
    );
  });

  it('a unique id of 0 to 128 bytes crosses (to the library lookup), a longer one is a RangeError; device lists are int arrays', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 200 }), fc.integer({ min: 1, max: 8 }), (bytes, ranks) => {
        const e = errorOf<unknown>(() => nccl.ncclCommInitRank(ranks, { internal: bytes }, 0));
        if (bytes.length > nccl.NCCL_UNIQUE_ID_BYTES) expect(e).toBeInstanceOf(RangeError);
        else expect(e).toBeInstanceOf(LibraryNotFoundError);
      }),
      FUZZ,
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.double(), fc.string()), {
          maxLength: 8,
        }),
        (devices) => {
          const e = errorOf<unknown>(() => nccl.ncclCommInitAll(devices as number[]));
          if (devices.every((d) => Number.isInteger(d) && (d as number) >= -(2 ** 31) && (d as number) < 2 ** 31))
            expect(e).toBeInstanceOf(LibraryNotFoundError);
          else expect(e instanceof TypeError || e instanceof RangeError, String(e)).toBe(true);
        },
      ),
      FUZZ,
    );
  });
});

describe('unique ids under hostile input', () => {
  it('every 128 bytes round-trip through their base64 text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 128, maxLength: 128 }), (bytes) => {
        expect(decodeUniqueId(encodeUniqueId(bytes), 'x')).toEqual(bytes);
      }),
      FUZZ,
    );
  });

  it('any other text or bytes is a CollectiveArgumentError', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.base64String({ maxLength: 240 }),
          fc.uint8Array({ maxLength: 200 }),
          fc.anything(),
        ),
        (id) => {
          const canonical =
            typeof id === 'string' &&
            id.length === 172 &&
            encodeUniqueId(new Uint8Array(globalThis.Buffer.from(id, 'base64'))) === id;
          const right = (id instanceof Uint8Array && id.length === 128) || canonical;
          if (right) expect(decodeUniqueId(id, 'x')).toHaveLength(128);
          else expect(() => decodeUniqueId(id, 'x')).toThrow(CollectiveArgumentError);
        },
      ),
      FUZZ,
    );
  });
});
