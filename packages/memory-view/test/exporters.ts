// Minimal third-party array classes that implement the protocols exactly as
// docs/protocols.md tells an author to, with counters that the tests read.
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  DLPACK_DEVICE,
  type CudaArrayInterface,
  type DLDataType,
  type DLPackRequest,
  type DLPackTensor,
} from '../src/index.js';

/** A host array that exports through DLPack (a JS-owned ArrayBuffer). */
export class HostArray {
  readonly requests: (DLPackRequest | undefined)[] = [];
  deleted = 0;
  version = { major: 1, minor: 3 };
  readOnly = false;
  /** Strides to hand out: `null` plays a producer older than DLPack 1.2. */
  stridesOut: readonly number[] | null;

  constructor(
    readonly buffer: ArrayBufferLike,
    readonly shape: readonly number[],
    readonly dtype: DLDataType = { code: 2, bits: 32, lanes: 1 },
    strides?: readonly number[] | null,
    readonly byteOffset = 0,
  ) {
    this.stridesOut = strides === undefined ? null : strides;
  }

  [DLPACK_DEVICE](): [number, number] {
    return [1, 0];
  }

  [DLPACK](request?: DLPackRequest): DLPackTensor {
    this.requests.push(request);
    return {
      version: this.version,
      flags: this.readOnly ? 1 : 0,
      device: { type: 1, id: 0 },
      data: this.buffer,
      byteOffset: this.byteOffset,
      dtype: this.dtype,
      shape: this.shape,
      strides: this.stridesOut,
      deleter: () => {
        this.deleted++;
      },
      managerContext: this,
    };
  }
}

/**
 * A device array: a CUDA address that the tests never dereference (there is no
 * GPU here), to check what the view and the producer exchange.
 */
export class DeviceArray {
  readonly requests: (DLPackRequest | undefined)[] = [];
  deleted = 0;

  constructor(
    readonly ptr: bigint,
    readonly shape: readonly number[],
    readonly deviceId = 0,
    readonly deviceType = 2,
    readonly dtype: DLDataType = { code: 2, bits: 32, lanes: 1 },
  ) {}

  [DLPACK_DEVICE](): [number, number] {
    return [this.deviceType, this.deviceId];
  }

  [DLPACK](request?: DLPackRequest): DLPackTensor {
    this.requests.push(request);
    return {
      version: { major: 1, minor: 3 },
      device: { type: this.deviceType, id: this.deviceId },
      data: this.ptr,
      dtype: this.dtype,
      shape: this.shape,
      strides: null,
      deleter: () => {
        this.deleted++;
      },
    };
  }
}

/** A device array that exports through the CUDA array interface only. */
export class CaiArray {
  calls = 0;
  private readonly cai: CudaArrayInterface;

  constructor(fields: Partial<CudaArrayInterface> & { data: readonly [bigint | number, boolean] }, frozen = true) {
    const cai = { shape: [4], typestr: '<f4', strides: null, version: 3, ...fields };
    this.cai = frozen ? Object.freeze(cai) : cai;
  }

  [CUDA_ARRAY_INTERFACE](): CudaArrayInterface {
    this.calls++;
    return this.cai;
  }
}
