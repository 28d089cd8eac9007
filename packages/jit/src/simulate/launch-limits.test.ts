import { LaunchConfigError } from '@cuda-js/core';
import { describe, expect, test } from 'vitest';
import {
  KernelBuilder,
  NO_POSITIONS,
  expr,
  globalIndexX,
  gridSync,
  i32,
  store,
  syncthreads,
} from './ir-builders.test-support.js';
import { checkSimulatedLaunch, SIMULATED_DEVICE, simulatedForallBlockSize } from './launch-limits.js';
import { SimulatedKernel } from './simulated-kernel.js';

function kernelWithShared(bytes: number, options: { grid?: boolean } = {}): SimulatedKernel {
  const b = new KernelBuilder();
  b.array('out', 'i32');
  if (bytes > 0) b.shared('sm', 'u8', bytes);
  if (options.grid) b.collectives = { grid: true };
  return new SimulatedKernel(b.build([options.grid ? gridSync() : syncthreads()]), NO_POSITIONS);
}

describe('the GPU launch limits in the simulator', () => {
  test('blocks: 1024 threads, 1024 x 1024 x 64', () => {
    const k = kernelWithShared(0);
    const out = new Int32Array(1);
    expect(() => k.run([1, 1, 1], [1024, 1, 1], [out])).not.toThrow();
    expect(() => k.run([1, 1, 1], [1025, 1, 1], [out])).toThrow(
      new LaunchConfigError("kernel (in the simulated H200 (sm_90)): block 1025x1x1 exceeds the device's 1024x1024x64"),
    );
    expect(() => k.run([1, 1, 1], [1, 1, 65], [out])).toThrow(/block 1x1x65 exceeds the device's 1024x1024x64/);
    expect(() => k.run([1, 1, 1], [64, 32, 1], [out])).toThrow(/block of 2048 threads exceeds the limit of 1024/);
  });

  test('grids: 2^31-1 x 65535 x 65535', () => {
    expect(() => checkSimulatedLaunch('k', [2 ** 31 - 1, 65535, 65535], [1, 1, 1], 0, 0, false)).not.toThrow();
    expect(() => checkSimulatedLaunch('k', [1, 65536, 1], [1, 1, 1], 0, 0, false)).toThrow(LaunchConfigError);
    expect(() => kernelWithShared(0).run([1, 1, 65536], [1, 1, 1], [new Int32Array(1)])).toThrow(
      /grid 1x1x65536 exceeds the device's 2147483647x65535x65535/,
    );
  });

  test('shared memory: static plus dynamic up to the opt-in maximum (227 KiB on sm_90)', () => {
    const k = kernelWithShared(16 * 1024);
    const out = new Int32Array(1);
    expect(k.staticSharedBytes).toBe(16 * 1024);
    expect(() => k.run([1, 1, 1], [32, 1, 1], [out], { sharedMemory: 211 * 1024 })).not.toThrow();
    expect(() => k.run([1, 1, 1], [32, 1, 1], [out], { sharedMemory: 211 * 1024 + 1 })).toThrow(
      /16384 bytes of static and 216065 bytes of dynamic shared memory exceed the device's 232448 per block \(49152 without an opt-in/,
    );
  });

  test('a cooperative grid must be co-resident', () => {
    const k = kernelWithShared(0, { grid: true });
    const out = new Int32Array(1);
    // 2 blocks of 1024 threads per SM, 132 SMs
    expect(() => checkSimulatedLaunch('k', [264, 1, 1], [1024, 1, 1], 0, 0, true)).not.toThrow();
    expect(() => k.run([265, 1, 1], [1024, 1, 1], [out])).toThrow(
      /a cooperative grid of 265 blocks exceeds the 264 that can be co-resident \(at most 2 per SM x 132 SMs/,
    );
    // shared memory lowers it: 100 KiB a block leaves 2 per SM; 120 KiB one
    expect(() => checkSimulatedLaunch('k', [133, 1, 1], [32, 1, 1], 120 * 1024, 0, true)).toThrow(
      /exceeds the 132 that can be co-resident/,
    );
  });

  test("forall's block size is the occupancy API's choice: the largest block of the highest occupancy", () => {
    expect(simulatedForallBlockSize(0)).toBe(1024);
    expect(simulatedForallBlockSize(48 * 1024)).toBe(1024);
    // with 150 KiB of shared memory one block fits an SM: the largest block wins
    expect(simulatedForallBlockSize(48 * 1024, 100 * 1024)).toBe(1024);
    expect(SIMULATED_DEVICE.maxThreadsPerMultiprocessor / simulatedForallBlockSize(0)).toBe(2);
  });

  test('forall in the simulator launches the blocks the GPU path launches', async () => {
    const { jit } = await import('../jit.js');
    const { cuda } = await import('../cuda.js');
    const k = jit(
      (out: Int32Array) => {
        const i = cuda.grid(1);
        if (i < out.length) out[i] = cuda.blockDim.x * 10000 + cuda.gridDim.x;
      },
      { target: 'simulator' },
    );
    const out = new Int32Array(3000);
    k.forall(out.length)(out);
    expect(new Set(out)).toEqual(new Set([1024 * 10000 + 3]));
  });
});

describe('a launch at the limits', () => {
  test('runs every thread', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'i32');
    const k = new SimulatedKernel(b.build([expr(store(out, 'i32', [globalIndexX()], i32(7)))]), NO_POSITIONS);
    const host = new Int32Array(2048);
    k.run([2, 1, 1], [1024, 1, 1], [host]);
    expect(host.every((v) => v === 7)).toBe(true);
  });
});
