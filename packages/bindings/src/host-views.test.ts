import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { CudaError, hostArrayBuffer, HostViewError, launchBlockingHostFunc, LibraryNotFoundError } from './index.js';
import { makeLibraryError } from './errors.js';

// The hand-written host-memory functions without a GPU: arguments are checked
// first (TypeError, RangeError), then the driver is asked, whose own error
// (no device: CUDA_ERROR_NOT_INITIALIZED; no library: LibraryNotFoundError)
// comes through named. core's host-memory-hostile.test.ts fuzzes them, and
// host-memory.gpu.test.ts has the views that the driver vouches for.
const DRIVER_ERRORS = [CudaError, LibraryNotFoundError];
function driverError(f: () => unknown): boolean {
  try {
    f();
  } catch (e) {
    return (
      DRIVER_ERRORS.some((kind) => e instanceof kind) ||
      (e instanceof HostViewError && /not memory that the CUDA driver/.test(e.message))
    );
  }
  return false;
}

describe('hostArrayBuffer', () => {
  it('checks its arguments before the driver', () => {
    expect(() => hostArrayBuffer(0x1000 as never, 8, {})).toThrow(TypeError);
    expect(() => hostArrayBuffer(0x1000n, 8, null as never)).toThrow(TypeError);
    expect(() => hostArrayBuffer(0x1000n, 8, 'owner' as never)).toThrow(
      /parameter 'owner' must be an object or a function/,
    );
    expect(() => hostArrayBuffer(0x1000n, -8, {})).toThrow(RangeError);
    expect(() => hostArrayBuffer(0x1000n, 0.5, {})).toThrow(RangeError);
    expect(() => hostArrayBuffer(0x1000n, 2 ** 33, {})).toThrow(/more than one view may hold \(4294967296 bytes/);
    expect(() => hostArrayBuffer(-1n as never, 8, {})).toThrow(RangeError);
    expect(() => hostArrayBuffer((1n << 64n) - 4n, 8, {})).toThrow(/reaches past 2\^64/);
  });

  it('refuses NULL with a HostViewError, and asks the driver about everything else', () => {
    expect(() => hostArrayBuffer(0n, 8, {})).toThrow(HostViewError);
    const error = errorOf<unknown>(() => {
      hostArrayBuffer(0n, 8, {});
    });
    expect((error as HostViewError).name).toBe('HostViewError');
    expect((error as HostViewError).functionName).toBe('hostArrayBuffer');
    expect(driverError(() => hostArrayBuffer(0x1000n, 8, {}))).toBe(true);
    expect(driverError(() => hostArrayBuffer(0x1000n, 8n, () => undefined))).toBe(true);
  });

  it("is the error factory's 'host-view' kind", () => {
    const e = makeLibraryError('host-view', 0, '', 'hostArrayBuffer', 'why');
    expect(e).toBeInstanceOf(HostViewError);
    expect(e.message).toBe('hostArrayBuffer: why');
  });
});

describe('launchBlockingHostFunc', () => {
  it('checks the stream and the callback before the driver, then names the driver failure', () => {
    expect(() => launchBlockingHostFunc(1 as never, () => undefined)).toThrow(TypeError);
    expect(() => launchBlockingHostFunc(0n, 'f' as never)).toThrow(/parameter 'callback' must be a function/);
    expect(() => launchBlockingHostFunc(0n, undefined as never)).toThrow(TypeError);
    let ran = false;
    expect(driverError(() => launchBlockingHostFunc(0n, () => void (ran = true)))).toBe(true);
    expect(ran).toBe(false);
  });
});
