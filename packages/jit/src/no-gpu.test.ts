// Without a GPU (no driver library, no device), a GPU launch says how to
// run the same kernel in the simulator, and keeps the error that found no GPU.
import { errorOf } from '@cuda-js/test-support/errors';
import { Device } from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { SIMULATOR_HINT } from './errors.js';
import { cuda, deviceArray, JitError, jit, NoGpuError, pinnedArray, toDevice } from './index.js';

/** Why this test cannot run here: a usable device makes the error impossible. */
function gpuPresent(): string | undefined {
  try {
    Device.get(0);
    return 'a GPU is present, so a GPU launch finds one';
  } catch {
    return undefined;
  }
}

const skip = gpuPresent();
if (skip) console.log(`no-gpu.test.ts skipped: ${skip}`);

describe.skipIf(skip !== undefined)(`a GPU launch without a GPU${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('throws NoGpuError naming the kernel, the cause and both ways to the simulator', () => {
    const fill = jit(
      (out: Float32Array) => {
        out[cuda.grid(1)] = 1;
      },
      { target: 'gpu', name: 'fill' },
    );
    const error = errorOf<unknown>(() => {
      fill.launch({ grid: 1, block: 1 }, new Float32Array(1));
    });
    expect(error).toBeInstanceOf(NoGpuError);
    expect(error).toBeInstanceOf(JitError);
    const e = error as NoGpuError;
    expect(e.message).toMatch(
      /^fill: there is no GPU to run on \((LibraryNotFoundError|DeviceNotFoundError|CudaError): /,
    );
    // an arrow function has no name of its own: the kernel is named after the const it is assigned to
    const saxpy = jit(
      (out: Float32Array) => {
        out[cuda.grid(1)] = 2;
      },
      { target: 'gpu' },
    );
    expect(errorOf<Error>(() => saxpy.launch({ grid: 1, block: 1 }, new Float32Array(1))).message).toMatch(
      /^saxpy: there is no GPU to run on/,
    );
    expect(e.message).toContain("jit(fn, { target: 'simulator' })");
    expect(e.message).toContain('CUDA_JS_SIMULATOR=1');
    expect(e.cause).toBeInstanceOf(Error);
    expect((e.cause as Error).name).toMatch(/LibraryNotFoundError|DeviceNotFoundError|CudaError/);
    // the same kernel in the simulator, as the message says
    const simulated = jit(
      (out: Float32Array) => {
        out[cuda.grid(1)] = 1;
      },
      { target: 'simulator' },
    );
    const out = new Float32Array(1);
    simulated.launch({ grid: 1, block: 1 }, out);
    expect(out[0]).toBe(1);
  });
});

describe.skipIf(skip !== undefined)(`the array makers without a GPU${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('toDevice and deviceArray throw NoGpuError that says how to make the array for the simulator, keeping the cause', () => {
    for (const [what, make] of [
      ['toDevice', () => toDevice(new Float32Array(4))],
      ['deviceArray', () => deviceArray(4, 'float32')],
      ['pinnedArray', () => pinnedArray([2, 2], 'int32')],
    ] as const) {
      const error = errorOf<unknown>(make);
      expect(error).toBeInstanceOf(NoGpuError);
      const e = error as NoGpuError;
      expect(e.message).toMatch(
        new RegExp(`^${what}: there is no GPU to make the array on \\((LibraryNotFoundError|DeviceNotFoundError): `),
      );
      expect(e.message).toContain(SIMULATOR_HINT);
      expect(e.message).toContain("toDevice(x, { target: 'simulator' })");
      expect((e.cause as Error).name).toMatch(/LibraryNotFoundError|DeviceNotFoundError/);
    }
    // as the message says
    const host = toDevice(new Float32Array([1, 2]), { target: 'simulator' });
    expect(host.shape).toEqual([2]);
    expect(deviceArray(3, 'float32', { target: 'simulator' }).shape).toEqual([3]);
  });

  it('a shape that is no shape is still refused as such, not as a missing GPU', () => {
    expect(errorOf<unknown>(() => deviceArray([-1], 'float32'))).not.toBeInstanceOf(NoGpuError);
  });
});
