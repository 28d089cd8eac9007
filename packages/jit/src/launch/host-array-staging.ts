import type { Buffer, Device } from '@cuda-js/core';
import { DLDeviceType, StridedMemoryView } from '@cuda-js/memory-view';
import { Stream, type StreamArgument } from '@cuda-js/streams';
import { argumentError } from './argument-error.js';
import { memorySpan } from './memory-span.js';

interface StagedArray {
  /** The argument's index (the first, where one object is passed twice). */
  readonly index: number;
  readonly host: StridedMemoryView;
  /** The host bytes the array covers. */
  readonly hostBytes: Uint8Array | undefined;
  /** The device copy (none for an empty array). */
  readonly buffer: Buffer | undefined;
  readonly device: StridedMemoryView;
  writeBack: boolean;
  /** The host view was made here (a DLPack export): closed when done. */
  readonly ownsHost: boolean;
}

/**
 * Host arrays of one launch, copied to the device before it and back after
 * it (those the kernel writes), as numba does with NumPy arrays: each gets a
 * device buffer of the bytes it covers, in the same layout, and the launch
 * is given a device view of that buffer in its place. The same host object
 * passed twice shares one copy.
 */
export class HostArrayStaging {
  /** The launch's arguments, with device views in place of the host arrays. */
  readonly args: unknown[];
  readonly #staged: StagedArray[] = [];
  readonly #byObject = new Map<unknown, StagedArray>();

  constructor(
    args: readonly unknown[],
    private readonly device: Device,
    /** The launch's CUstream. */
    private readonly stream: bigint,
    /** The kernel's parameter names, for messages. */
    private readonly names: readonly string[] = [],
  ) {
    this.args = [...args];
  }

  /** Whether any staged array is copied back. */
  get writesBack(): boolean {
    return this.#staged.some((s) => s.writeBack);
  }

  /**
   * Copies the host array at `index` (`arg`, viewed as `host`) to the device
   * and puts a device view of the copy in {@link args}. `writeBack`: the
   * kernel writes it, so {@link finish} copies it back.
   */
  stage(index: number, arg: unknown, host: StridedMemoryView, writeBack: boolean, ownsHost: boolean): void {
    const known = this.#byObject.get(arg);
    if (known !== undefined) {
      known.writeBack ||= writeBack;
      this.args[index] = known.device;
      if (ownsHost) host.close();
      return;
    }
    const itemsize = host.itemsize;
    const span = memorySpan(host.shape, host.strides, itemsize);
    const hostBuffer = host.buffer;
    if (hostBuffer === undefined)
      throw new TypeError(
        'the array is host memory at an address that JS cannot read (no ArrayBuffer), so it cannot be copied to the device',
      );
    let buffer: Buffer | undefined;
    let hostBytes: Uint8Array | undefined;
    let ptr = 0n;
    if (span.bytes > 0) {
      hostBytes = new Uint8Array(hostBuffer, host.byteOffset + span.first * itemsize, span.bytes);
      buffer = this.device.allocate(span.bytes, { stream: this.stream });
      try {
        buffer.copyFrom(hostBytes, { stream: this.stream });
      } catch (error) {
        buffer.close({ stream: this.stream });
        throw error;
      }
      ptr = buffer.ptr - BigInt(span.first * itemsize);
    }
    const device = StridedMemoryView.fromPointer(ptr, {
      dtype: host.dtype,
      shape: host.shape,
      strides: host.strides,
      device: { type: DLDeviceType.CUDA, id: this.device.ordinal },
      readonly: host.readonly,
      stream: this.stream,
      exporter: buffer,
    });
    const staged: StagedArray = { index, host, hostBytes, buffer, device, writeBack, ownsHost };
    this.#staged.push(staged);
    this.#byObject.set(arg, staged);
    this.args[index] = device;
  }

  /**
   * After the launch: when a staged array is written, synchronizes `stream`
   * and copies those arrays back; then gives every device copy back
   * (stream-ordered, after the kernel).
   */
  finish(stream: StreamArgument): void {
    try {
      if (this.writesBack) {
        this.#checkAttached();
        Stream.from(stream).synchronize();
        for (const s of this.#staged) {
          if (s.writeBack && s.buffer !== undefined && s.hostBytes !== undefined) {
            this.#checkAttached(s); // a host function run while synchronizing may have detached it
            s.buffer.copyTo(s.hostBytes, { stream: this.stream });
          }
        }
      }
    } finally {
      this.release();
    }
  }

  /**
   * Refuses to copy back into host memory that is gone: an ArrayBuffer
   * transferred (detached) or shrunk since it was staged (by a callback of
   * the launch: another argument's protocol method, a getter) leaves its
   * view with no bytes, and the kernel's writes would be lost with no error.
   */
  #checkAttached(only?: StagedArray): void {
    for (const s of only === undefined ? this.#staged : [only]) {
      if (!s.writeBack || s.hostBytes === undefined || s.buffer === undefined) continue;
      if (s.hostBytes.byteLength === s.buffer.size) continue;
      throw argumentError(
        this.names,
        s.index,
        `its host memory was detached or shrunk during the launch (its ArrayBuffer transferred or resized, by a callback of the launch), so the kernel's writes to it cannot be copied back; keep the array's buffer as it is until the launch returns`,
      );
    }
  }

  /** Gives every device copy back (stream-ordered) without copying anything back: for a launch that failed. */
  release(): void {
    for (const s of this.#staged.splice(0)) {
      s.buffer?.close({ stream: this.stream });
      if (s.ownsHost) s.host.close();
    }
    this.#byObject.clear();
  }
}
