// createPackedLaunch and cuLaunchKernelPacked: the offsets, sizes and header
// offset that JS gives are checked against the buffer (in bounds, apart, the
// header aligned and clear of the parameters) before anything is made, not
// against the kernel's parameters, which the native side does not know; a
// launch checks that its argument is a packed launch whose buffer is still
// attached before it calls the driver. None of this needs a device. (The property test of the layouts it accepts
// is core's parameter-buffer.test.ts, where fast-check is.)
import { describe, expect, it } from 'vitest';
import { CudaError, driver, LibraryNotFoundError, type CUfunction } from './index.js';
import { PACKED_LAUNCH_HEADER } from './runtime.js';

const F = 0x1234n as CUfunction;

describe('createPackedLaunch', () => {
  it('makes a packed launch over the parameters and a header past them, which cuLaunchKernel also takes as its kernelParams', () => {
    const buffer = new ArrayBuffer(16 + PACKED_LAUNCH_HEADER.bytes);
    const packed = driver.createPackedLaunch(F, buffer, [0, 8], [8, 4], 16);
    expect(packed).toBeTypeOf('object');
    expect(driver.createPackedLaunch(F, new Uint8Array(buffer, 8), [0], [8], 8)).toBeTypeOf('object');
    expect(
      driver.createPackedLaunch(F, new DataView(new ArrayBuffer(PACKED_LAUNCH_HEADER.bytes)), [], [], 0),
    ).toBeTypeOf('object');
  });

  it('refuses a header that does not fit, is not 8-byte aligned or covers a parameter, and a function of 0n', () => {
    const buffer = new ArrayBuffer(64);
    expect(() => driver.createPackedLaunch(F, buffer, [0], [8], 24)).toThrow(
      /'headerOffset' = 24: the 48-byte header does not fit in the buffer \(64 bytes\)/,
    );
    expect(() => driver.createPackedLaunch(F, buffer, [0], [4], 4)).toThrow(
      /'headerOffset' = 4 is not a multiple of 8/,
    );
    expect(() => driver.createPackedLaunch(F, buffer, [0, 48], [8, 16], 8)).toThrow(
      /'offsets'\[1\] = 48 with size 16 reaches into the header at 8/,
    );
    expect(() => driver.createPackedLaunch(F, buffer, [64], [1], 0)).toThrow(
      /'offsets'\[0\] = 64 is past the end of the buffer/,
    );
    expect(() => driver.createPackedLaunch(0n as CUfunction, buffer, [], [], 0)).toThrow(
      /'f' must be a CUfunction or CUkernel, not 0n/,
    );
    expect(() => driver.createPackedLaunch(1 as unknown as CUfunction, buffer, [], [], 0)).toThrow(TypeError);
    expect(() => driver.createPackedLaunch(F, 'buffer' as unknown as ArrayBuffer, [], [], 0)).toThrow(TypeError);
    expect(() => driver.createPackedLaunch(F, buffer, [], [], -8)).toThrow(RangeError);
  });

  // Issue 20: only where a parameter starts was checked, so a kernel read bytes past the buffer or the header as its argument.
  it("checks every parameter's [offset, offset + size) against the buffer, the header and the other parameters", () => {
    const view = new Uint8Array(new ArrayBuffer(64), 0, 16);
    expect(() => driver.createKernelParams(view, [12], [8])).toThrow(
      /'offsets'\[0\] = 12 with size 8 reaches past the end of the buffer \(16 bytes\)/,
    );
    expect(() => driver.createKernelParams(new ArrayBuffer(16), [8], [16])).toThrow(RangeError);
    const withHeader = new ArrayBuffer(16 + PACKED_LAUNCH_HEADER.bytes);
    expect(() => driver.createPackedLaunch(F, withHeader, [8], [16], 16)).toThrow(
      /'offsets'\[0\] = 8 with size 16 reaches into the header at 16/,
    );
    expect(() => driver.createPackedLaunch(F, withHeader, [0, 4], [8, 8], 16)).toThrow(
      /'offsets'\[1\] = 4 overlaps parameter 0 \(bytes 0 to 8\)/,
    );
    expect(() => driver.createKernelParams(new ArrayBuffer(16), [0, 8], [8])).toThrow(
      /'sizes' has 1 entries for 2 offsets/,
    );
    expect(() => driver.createKernelParams(new ArrayBuffer(16), [0], [0])).toThrow(/'sizes'\[0\] = 0/);
    expect(() => driver.createKernelParams(new ArrayBuffer(16), [0], [-8])).toThrow(RangeError);
    expect(() => driver.createKernelParams(new ArrayBuffer(16), [0], 'x' as never)).toThrow(TypeError);
    const many = 100_000;
    expect(() =>
      driver.createKernelParams(
        new ArrayBuffer(many),
        Array.from({ length: many }, (_, i) => i),
        new Array(many).fill(1),
      ),
    ).toThrow(/has 100000 entries; a kernel takes at most 32764 bytes of parameters/);
  });
});

describe('cuLaunchKernelPacked', () => {
  it('takes only the result of createPackedLaunch', () => {
    const params = driver.createKernelParams(new ArrayBuffer(8), [0], [8]);
    expect(() => driver.cuLaunchKernelPacked(params as never)).toThrow(
      /parameter 'launch' must be the result of createPackedLaunch/,
    );
    expect(() => driver.cuLaunchKernelPacked(1n as never)).toThrow(TypeError);
    expect(() => driver.cuLaunchKernelPacked(null as never)).toThrow(TypeError);
    expect(() => (driver.cuLaunchKernelPacked as (...a: unknown[]) => unknown)()).toThrow(/expected 1 argument, got 0/);
  });

  it('refuses a packed launch whose buffer was detached or shrunk, before it asks the driver', () => {
    const buffer = new ArrayBuffer(8 + PACKED_LAUNCH_HEADER.bytes);
    const packed = driver.createPackedLaunch(F, buffer, [0], [8], 8);
    const params = driver.createKernelParams(buffer, [0], [8]);
    structuredClone(buffer, { transfer: [buffer] });
    expect(buffer.byteLength).toBe(0);
    expect(() => driver.cuLaunchKernelPacked(packed)).toThrow(/the parameter buffer was detached or shrunk/);
    expect(() => driver.cuLaunchKernel(F, 1, 1, 1, 1, 1, 1, 0, 0n, params)).toThrow(
      /cuLaunchKernel: the parameter buffer was detached or shrunk/,
    );
    // a resizable ArrayBuffer (ES2024), shrunk below what the pointers were made over
    const Resizable = ArrayBuffer as unknown as new (
      length: number,
      options: { maxByteLength: number },
    ) => ArrayBuffer & { resize(length: number): void };
    const resizable = new Resizable(8 + PACKED_LAUNCH_HEADER.bytes, { maxByteLength: 256 });
    const onResizable = driver.createPackedLaunch(F, resizable, [0], [8], 8);
    resizable.resize(16);
    expect(() => driver.cuLaunchKernelPacked(onResizable)).toThrow(/detached or shrunk/);
  });

  it('asks the driver for the current context before it launches, and launches nothing in another one', () => {
    const buffer = new ArrayBuffer(PACKED_LAUNCH_HEADER.bytes);
    const packed = driver.createPackedLaunch(F, buffer, [], [], 0);
    // a context that is never current: the answer is the current one (0n for none), or the driver's error without a device
    new DataView(buffer).setBigUint64(PACKED_LAUNCH_HEADER.context, 0xdead0000n, true);
    let answer: unknown;
    try {
      answer = driver.cuLaunchKernelPacked(packed);
    } catch (error) {
      answer = error;
    }
    if (typeof answer === 'bigint') expect(answer).not.toBe(0xdead0000n);
    else expect(answer instanceof CudaError || answer instanceof LibraryNotFoundError, String(answer)).toBe(true);
  });
});
