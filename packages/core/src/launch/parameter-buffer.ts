import { driver, type CUfunction, type KernelParams, type LaunchFunction, type PackedLaunch } from '@cuda-js/bindings';
import { PACKED_LAUNCH_HEADER } from '@cuda-js/bindings/runtime';
import type { KernelParameter } from './kernel-parameters.js';
import type { LaunchConfig } from './launch-config.js';

const HEADER = PACKED_LAUNCH_HEADER;

/**
 * A kernel's parameter buffer, planned once: each parameter at its offset,
 * then the header of a packed launch (dimensions, shared memory, stream, the
 * context the launch expects), which is written only when the config,
 * stream or context changes. A launch is then one native call of one
 * argument, which launches only when the expected context is current.
 */
export class ParameterBuffer {
  /** The parameters, for packing (little-endian). */
  readonly view: DataView;
  /** The same bytes, for by-value arguments. */
  readonly bytes: Uint8Array;
  /** Bytes of parameters (the header follows them). */
  readonly size: number;
  /** The parameter table as `cuLaunchKernelEx` takes it (the packed launch is one). */
  readonly params: KernelParams | null;
  /** The launch as a launch queue names it (cuLaunchKernelQueue). */
  readonly queued: LaunchFunction | PackedLaunch;
  /** The parameters and the header, as a launch queue's record copies them. */
  readonly record: Uint8Array;
  /** The native launch: a launch function (one call, no argument), or a packed launch for cuLaunchKernelPacked where the engine has none. */
  readonly #call: () => bigint | undefined;
  /** The header's seven u32: grid x, y, z, block x, y, z, dynamic shared memory. */
  readonly #dims: Uint32Array;
  /** The header's u64: the CUstream, then the CUcontext. */
  readonly #handles: BigUint64Array;
  #config: LaunchConfig | undefined;
  #stream: bigint | undefined;

  constructor(handle: CUfunction, parameters: readonly KernelParameter[]) {
    const last = parameters.at(-1);
    this.size = last ? last.offset + last.size : 0;
    const headerOffset = Math.ceil(this.size / 8) * 8;
    const length = headerOffset + HEADER.bytes;
    const offsets = parameters.map((p) => p.offset);
    const sizes = parameters.map((p) => p.size);
    const fn = driver.createLaunchFunction(handle, length, offsets, sizes, headerOffset);
    let buffer: ArrayBuffer;
    if (fn !== null) {
      buffer = fn.buffer;
      this.queued = fn;
      this.#call = fn as () => bigint | undefined;
      this.params = parameters.length ? driver.createKernelParams(buffer, offsets, sizes) : null;
    } else {
      buffer = new ArrayBuffer(length);
      const packed = driver.createPackedLaunch(handle, buffer, offsets, sizes, headerOffset);
      this.queued = packed;
      this.#call = () => driver.cuLaunchKernelPacked(packed) as bigint | undefined;
      this.params = parameters.length ? packed : null;
    }
    this.view = new DataView(buffer, 0, headerOffset);
    this.bytes = new Uint8Array(buffer, 0, headerOffset);
    this.record = new Uint8Array(buffer, 0, length);
    this.#dims = new Uint32Array(buffer, headerOffset + HEADER.gridDimX, 7);
    this.#handles = new BigUint64Array(buffer, headerOffset + HEADER.hStream, 2);
  }

  /** The context a launch must find current (0n: none yet, so the first launch asks). */
  expectContext(context: bigint): void {
    this.#handles[1] = context;
  }

  /** Writes the header for `config` on `stream` (only what changed since the last one). */
  writeHeader(config: LaunchConfig, stream: bigint): void {
    if (config !== this.#config) {
      // a LaunchConfig is immutable: its dimensions are written once while it is reused
      const dims = this.#dims;
      const grid = config.grid;
      const block = config.block;
      dims[0] = grid[0];
      dims[1] = grid[1];
      dims[2] = grid[2];
      dims[3] = block[0];
      dims[4] = block[1];
      dims[5] = block[2];
      dims[6] = config.sharedMemory;
      this.#config = config;
    }
    if (stream !== this.#stream) {
      this.#handles[0] = stream;
      this.#stream = stream;
    }
  }

  /**
   * Launches `config` on `stream` with the parameters in place, if the
   * expected context is current: then undefined; otherwise nothing is
   * launched and the current context is returned (0n for none).
   */
  launch(config: LaunchConfig, stream: bigint): bigint | undefined {
    this.writeHeader(config, stream);
    return this.#call();
  }
}
