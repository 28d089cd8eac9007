// numba-cuda's laplace and sessionize documentation examples
// (docs/source/user/examples.rst; tests/doc_examples/test_laplace.py and
// test_sessionize.py), ported as a numba user would write them, with
// plain-JS references. Both return early and then sync the grid: they run
// on the GPU (measured on the H200) and must give the same answer in the
// simulator. Shared by the unit (simulator) and GPU test files.
import { cuda } from '../cuda.js';
import { jit, type JitOptions, type JitKernel } from '../jit.js';

/** numba's solve_heat_equation: one thread per point, ping-pong buffers chosen by the step, a grid barrier per step. */
export function heatEquationKernel(options: JitOptions): JitKernel {
  return jit((buf0: Float64Array, buf1: Float64Array, timesteps: number, k: number) => {
    const i = cuda.grid(1);
    // Don't continue if our index is outside the domain
    if (i >= buf0.length) return;
    // Prepare to do a grid-wide synchronization later
    const grid = cuda.cg.thisGrid();
    for (let step = 0; step < timesteps; step++) {
      // Select the buffer from the previous timestep
      let data = buf0;
      let nextData = buf1;
      if (step % 2 !== 0) {
        data = buf1;
        nextData = buf0;
      }
      const currTemp = data[i]!;
      let nextTemp: number;
      if (i === 0)
        nextTemp = currTemp + k * (data[i + 1]! - 2 * currTemp); // left wall held at T = 0
      else if (i === data.length - 1)
        nextTemp = currTemp + k * (data[i - 1]! - 2 * currTemp); // right wall
      else nextTemp = currTemp + k * (data[i - 1]! - 2 * currTemp + data[i + 1]!);
      nextData[i] = nextTemp;
      // Wait for every thread to write before moving on
      grid.sync();
    }
  }, options);
}

/** The heat equation in plain JS: the two buffers after `timesteps` steps, as the kernel leaves them. */
export function heatEquationReference(
  initial: Float64Array,
  timesteps: number,
  k: number,
): [Float64Array, Float64Array] {
  const buffers = [Float64Array.from(initial), new Float64Array(initial.length)] as const;
  const n = initial.length;
  for (let step = 0; step < timesteps; step++) {
    const data = buffers[step % 2]!;
    const next = buffers[(step + 1) % 2]!;
    for (let i = 0; i < n; i++) {
      const t = data[i]!;
      next[i] =
        i === 0
          ? t + k * (data[1]! - 2 * t)
          : i === n - 1
            ? t + k * (data[i - 1]! - 2 * t)
            : t + k * (data[i - 1]! - 2 * t + data[i + 1]!);
    }
  }
  return [buffers[0], buffers[1]];
}

/** The laplace example's data: 1001 points, the middle one at 10000. */
export function heatEquationData(): Float64Array {
  const data = new Float64Array(1001);
  data[500] = 10000;
  return data;
}

/** numba's session timeout: np.int64(np.timedelta64('3600', 's')), 3600. */
export const SESSION_TIMEOUT = 3600n;

/** numba's sessionize: session boundaries, a grid barrier reached only by the boundary threads, then each labels its session. */
export function sessionizeKernel(options: JitOptions): JitKernel {
  return jit(
    (userId: BigInt64Array, timestamp: BigInt64Array, results: Float64Array) => {
      const gid = cuda.grid(1);
      const size = userId.length;
      if (gid >= size) return;
      // Determine session boundaries
      const isFirstDatapoint = gid === 0;
      let isSessBoundary: boolean;
      if (!isFirstDatapoint) {
        const newUser = userId[gid] !== userId[gid - 1];
        const timedOut = timestamp[gid]! - timestamp[gid - 1]! > SESSION_TIMEOUT;
        isSessBoundary = newUser || timedOut;
      } else {
        isSessBoundary = true;
      }
      // Determine session labels
      if (isSessBoundary) {
        // This thread marks the start of a session
        results[gid] = gid;
        // Make sure all session boundaries are written before populating the session id
        const grid = cuda.cg.thisGrid();
        grid.sync();
        let lookAhead = 1;
        // Check elements 'forward' of this one until a new session boundary is found
        while (results[gid + lookAhead] === 0) {
          results[gid + lookAhead] = gid;
          lookAhead += 1;
          // Avoid out-of-bounds accesses by the last thread
          if (gid + lookAhead === size - 1) {
            results[gid + lookAhead] = gid;
            break;
          }
        }
      }
    },
    { ...options, constants: { SESSION_TIMEOUT } },
  );
}

export const SESSION_IDS = BigInt64Array.from(
  [1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4],
  BigInt,
);
export const SESSION_SECONDS = BigInt64Array.from(
  [
    1, 2, 3, 5000, 5001, 5002, 1, 2, 3, 1, 2, 5000, 5001, 10000, 10001, 10002, 10003, 15000, 150001, 1, 5000, 50001,
    15000, 20000, 25000, 25001, 25002, 25003,
  ],
  BigInt,
);
/** numba's documented result. */
export const SESSION_EXPECTED = [
  0, 0, 0, 3, 3, 3, 6, 6, 6, 9, 9, 11, 11, 13, 13, 13, 13, 17, 18, 19, 20, 21, 21, 23, 24, 24, 24, 24,
];
