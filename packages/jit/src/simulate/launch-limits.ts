// The GPU's launch limits, which the simulator enforces so that a launch
// that runs in the simulator also runs on the GPU. The simulated device is
// the H200 (compute capability 9.0), the GPU this project measures on; the
// per-dimension and per-block limits are those of every GPU since sm_20.
import { LaunchConfigError } from '@cuda-js/core';

/** The limits of the simulated device (cuDeviceGetAttribute's values on the H200). */
export const SIMULATED_DEVICE = Object.freeze({
  name: 'the simulated H200 (sm_90)',
  maxThreadsPerBlock: 1024,
  maxBlockDim: Object.freeze([1024, 1024, 64] as const),
  maxGridDim: Object.freeze([2 ** 31 - 1, 65535, 65535] as const),
  /** Shared memory a block has without opting in (static shared memory never exceeds it). */
  sharedMemoryPerBlock: 48 * 1024,
  /** Static plus dynamic shared memory a block may have once the kernel opts in (the GPU path opts in for the user). */
  sharedMemoryPerBlockOptin: 227 * 1024,
  sharedMemoryPerMultiprocessor: 228 * 1024,
  /** Shared memory the system reserves per resident block. */
  reservedSharedMemoryPerBlock: 1024,
  maxThreadsPerMultiprocessor: 2048,
  maxBlocksPerMultiprocessor: 32,
  multiprocessorCount: 132,
  warpSize: 32,
});

type Extents = readonly [number, number, number];

/**
 * Checks a launch as core checks it on the GPU (kernel-context-checks.ts),
 * with the same error class and wording, against {@link SIMULATED_DEVICE}.
 * `staticShared` is the bytes of the kernel's static shared arrays.
 */
export function checkSimulatedLaunch(
  name: string,
  grid: Extents,
  block: Extents,
  staticShared: number,
  dynamicShared: number,
  cooperative: boolean,
): void {
  const d = SIMULATED_DEVICE;
  const [bx, by, bz] = block;
  const [gx, gy, gz] = grid;
  const where = `${name} (in ${d.name})`;
  if (bx > d.maxBlockDim[0] || by > d.maxBlockDim[1] || bz > d.maxBlockDim[2]) {
    throw new LaunchConfigError(`${where}: block ${block.join('x')} exceeds the device's ${d.maxBlockDim.join('x')}`);
  }
  const threads = bx * by * bz;
  if (threads > d.maxThreadsPerBlock)
    throw new LaunchConfigError(`${where}: block of ${threads} threads exceeds the limit of ${d.maxThreadsPerBlock}`);
  if (gx > d.maxGridDim[0] || gy > d.maxGridDim[1] || gz > d.maxGridDim[2]) {
    throw new LaunchConfigError(`${where}: grid ${grid.join('x')} exceeds the device's ${d.maxGridDim.join('x')}`);
  }
  const shared = staticShared + dynamicShared;
  if (shared > d.sharedMemoryPerBlockOptin) {
    throw new LaunchConfigError(
      `${where}: ${staticShared} bytes of static and ${dynamicShared} bytes of dynamic shared memory exceed the device's ${d.sharedMemoryPerBlockOptin} per block (${d.sharedMemoryPerBlock} without an opt-in, which the GPU path makes for the kernel)`,
    );
  }
  if (cooperative) {
    const perSm = residentBlocksPerMultiprocessor(threads, shared);
    const coResident = perSm * d.multiprocessorCount;
    const blocks = gx * gy * gz;
    if (blocks > coResident) {
      throw new LaunchConfigError(
        `${where}: a cooperative grid of ${blocks} blocks exceeds the ${coResident} that can be co-resident (at most ${perSm} per SM x ${d.multiprocessorCount} SMs; registers may lower it on the GPU)`,
      );
    }
  }
}

/** Blocks of `threads` threads and `shared` bytes that one SM holds, by threads, blocks and shared memory (registers are not known to the simulator: assumed to fit). */
function residentBlocksPerMultiprocessor(threads: number, shared: number): number {
  const d = SIMULATED_DEVICE;
  const warps = Math.ceil(threads / d.warpSize);
  const byThreads = Math.floor(d.maxThreadsPerMultiprocessor / (warps * d.warpSize));
  const byShared = Math.floor(d.sharedMemoryPerMultiprocessor / (shared + d.reservedSharedMemoryPerBlock));
  return Math.min(byThreads, byShared, d.maxBlocksPerMultiprocessor);
}

/**
 * The block size `forall` takes in the simulator: what the GPU path's
 * cuOccupancyMaxPotentialBlockSize gives, the largest block (a multiple of
 * the warp size) with the highest occupancy of an SM, for the kernel's
 * shared memory. Registers are assumed to fit (64 a thread or fewer, which
 * lets a block of 1024 threads run); a kernel that needs more gets smaller
 * blocks on the GPU.
 */
export function simulatedForallBlockSize(staticShared: number, dynamicShared = 0): number {
  const d = SIMULATED_DEVICE;
  let best: number = d.warpSize;
  let bestThreads = 0;
  for (let size = d.maxThreadsPerBlock; size >= d.warpSize; size -= d.warpSize) {
    const resident = residentBlocksPerMultiprocessor(size, staticShared + dynamicShared) * size;
    if (resident > bestThreads) {
      bestThreads = resident;
      best = size;
    }
  }
  return best;
}
