import type { DLPACK, DLPACK_DEVICE, CUDA_ARRAY_INTERFACE, DLPACK_EXCHANGE_API, CUDA_STREAM } from './protocol-keys.js';
import type { Device } from './device.js';

/** A DLPack version: a major version that changes the layout, a minor one that adds codes. */
export interface DLPackVersion {
  readonly major: number;
  readonly minor: number;
}

/** A DLPack element type: `code` is a {@link DLDataTypeCode}, `bits` the width of one lane, `lanes` the vector width. */
export interface DLDataType {
  readonly code: number;
  readonly bits: number;
  readonly lanes: number;
}

/** `DLPACK_FLAG_BITMASK_*` of DLPack 1.3. */
export const DLPackFlags = {
  /** The consumer must not write through the tensor. */
  READ_ONLY: 1,
  /** The producer made a copy that the consumer owns alone. */
  IS_COPIED: 2,
  /** Each element of a sub-byte type fills a whole byte (padded) instead of being packed. */
  IS_SUBBYTE_TYPE_PADDED: 4,
} as const;

/** The version of DLPack that this package reads and writes. */
export const DLPACK_VERSION: DLPackVersion = Object.freeze({ major: 1, minor: 3 });

/**
 * What a consumer asks of `obj[DLPACK](request)`. Every field may be absent.
 * See `docs/protocols.md` for the stream values.
 */
export interface DLPackRequest {
  /**
   * The consumer's stream, for CUDA memory: `-1n` (no synchronization), `1n`
   * (the legacy default stream), `2n` (the per-thread default stream) or a
   * `CUstream` handle; `undefined` for host memory. The producer makes the data
   * safe to use on it before it returns. Never `0n`.
   */
  readonly stream?: bigint | undefined;
  /** The newest DLPack version the consumer reads; the producer answers with a version no newer (major 1 here). */
  readonly maxVersion?: DLPackVersion | undefined;
  /** The device the consumer wants the data on, as `[deviceType, deviceId]`; the producer copies or throws. */
  readonly dlDevice?: readonly [number, number] | undefined;
  /** `true`: the consumer wants a copy; `false`: it refuses one; absent: the producer decides. */
  readonly copy?: boolean | undefined;
}

/**
 * A DLPack tensor in JS: the mirror of `DLManagedTensorVersioned` (DLPack 1.3).
 * It is handed over to the consumer, who calls `deleter` exactly once when it no
 * longer uses the memory (or never, when there is no deleter), and keeps the tensor
 * object referenced until then: the producer may hang what keeps the memory alive
 * on it (`managerContext`).
 */
export interface DLPackTensor {
  readonly version: DLPackVersion;
  /** {@link DLPackFlags} bits; absent means 0. */
  readonly flags?: number | undefined;
  readonly device: Device;
  /**
   * The memory: a `bigint` address (device memory, or host memory that JS does
   * not own), or the `ArrayBuffer`/`SharedArrayBuffer` that holds host memory.
   */
  readonly data: bigint | ArrayBufferLike;
  /** Bytes from `data` to the first element (DLTensor's `byte_offset`); absent means 0. */
  readonly byteOffset?: number | undefined;
  readonly dtype: DLDataType;
  /** Extents, outermost first. */
  readonly shape: readonly number[];
  /** Strides in elements (negative allowed); `null` or absent: compact row-major (accepted from producers older than 1.2). */
  readonly strides?: readonly number[] | null | undefined;
  /** Called by the consumer exactly once when it is done; absent when the memory needs no release. */
  readonly deleter?: (() => void) | undefined;
  /** Whatever keeps the memory alive; the consumer only holds it. */
  readonly managerContext?: unknown;
}

/** An object that exports its memory through DLPack. */
export interface DLPackExporter {
  [DLPACK](request?: DLPackRequest): DLPackTensor;
  [DLPACK_DEVICE](): readonly [number, number];
}

/**
 * The CUDA array interface, version 3, in JS: `obj[CUDA_ARRAY_INTERFACE]()`.
 * Return the same frozen object on each call where you can: consumers then read
 * it once.
 */
export interface CudaArrayInterface {
  readonly shape: readonly number[];
  /** A numpy type string: `<f4`, `|u1`, `<c16`, ... (little-endian). */
  readonly typestr: string;
  /** `[address, readOnly]`. */
  readonly data: readonly [bigint | number, boolean];
  /** Strides in **bytes**; `null` or absent: C-contiguous. */
  readonly strides?: readonly number[] | null | undefined;
  readonly version: number;
  /** The producer's stream, which the consumer waits on before use: `1` legacy default, `2` per-thread default, else a handle; absent or `null`: no ordering needed. Never 0. */
  readonly stream?: bigint | number | null | undefined;
  /** Must be absent or `null`: masked arrays are not supported. */
  readonly mask?: unknown;
  readonly descr?: unknown;
}

/** An object that exports device memory through the CUDA array interface. */
export interface CudaArrayInterfaceExporter {
  [CUDA_ARRAY_INTERFACE](): CudaArrayInterface;
}

/** What `obj[CUDA_STREAM]()` returns. */
export interface CudaStreamInfo {
  readonly version: 0;
  /** The `CUstream` handle; `0n` is the default stream. */
  readonly handle: bigint;
}

/** An object that owns or names a CUDA stream (the stream protocol). */
export interface CudaStreamLike {
  [CUDA_STREAM](): CudaStreamInfo;
}

/** An object that exposes a C `DLPackExchangeAPI` table (returned as an External, the same one on every call). */
export interface DLPackExchangeApiExporter {
  [DLPACK_EXCHANGE_API](): object;
}
