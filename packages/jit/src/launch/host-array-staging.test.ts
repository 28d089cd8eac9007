// Issue 20: a kernel's writes were lost with no error when a callback of the launch detached the
// buffer of a host array that was copied to the device for it. The staging needs a device only
// for its allocations, so a recording stand-in shows what it copies, and what it refuses.
import { StridedMemoryView } from '@cuda-js/memory-view';
import { describe, expect, it } from 'vitest';
import { KernelArgumentError } from '../errors.js';
import { HostArrayStaging } from './host-array-staging.js';

/** A device whose buffers record their copies; none reaches a driver. */
function recordingDevice() {
  const log: string[] = [];
  let next = 0x7000_0000n;
  const device = {
    ordinal: 0,
    allocate(size: number) {
      const ptr = next;
      next += 0x1000n;
      return {
        ptr,
        size,
        copyFrom: (bytes: Uint8Array) => log.push(`in ${bytes.byteLength}`),
        copyTo: (bytes: Uint8Array) => log.push(`out ${bytes.byteLength}`),
        close: () => log.push('free'),
      };
    },
  };
  return { device: device as never, log };
}

describe('HostArrayStaging', () => {
  it('refuses to copy back into a host array whose buffer was detached during the launch, and frees the copies', () => {
    const { device, log } = recordingDevice();
    const out = new Float32Array(8);
    const staging = new HostArrayStaging([out], device, 0n, ['out']);
    staging.stage(0, out, StridedMemoryView.fromAny(out), true, false);
    expect(log).toEqual(['in 32']);
    structuredClone(out.buffer, { transfer: [out.buffer] }); // what a callback of the launch did
    const error = (() => {
      try {
        staging.finish(0n);
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(KernelArgumentError);
    expect(error?.message).toMatch(
      /^argument 'out' \(1 of 1\): its host memory was detached or shrunk during the launch/,
    );
    expect(log).toEqual(['in 32', 'free']); // nothing copied into the detached view; the device copy given back
  });

  it('refuses a resizable buffer shrunk below the array', () => {
    const { device } = recordingDevice();
    // resizable ArrayBuffers are ES2024, past the project's lib
    const Resizable = ArrayBuffer as unknown as new (
      bytes: number,
      options: { maxByteLength: number },
    ) => ArrayBuffer & { resize(bytes: number): void };
    const buffer = new Resizable(64, { maxByteLength: 64 });
    const out = new Int32Array(buffer, 0, 16);
    const staging = new HostArrayStaging([out], device, 0n, ['out']);
    staging.stage(0, out, StridedMemoryView.fromAny(out), true, false);
    buffer.resize(16);
    expect(() => staging.finish(0n)).toThrow(/detached or shrunk during the launch/);
  });

  it('copies nothing back, and checks nothing, for arrays the kernel only reads', () => {
    const { device, log } = recordingDevice();
    const input = new Float64Array(4);
    const staging = new HostArrayStaging([input], device, 0n, ['input']);
    staging.stage(0, input, StridedMemoryView.fromAny(input), false, false);
    structuredClone(input.buffer, { transfer: [input.buffer] });
    staging.finish(0n);
    expect(log).toEqual(['in 32', 'free']);
  });
});
