// numba's laplace and sessionize examples in the simulator: early returns
// before grid barriers complete with numba's results, as on the H200; a
// live thread that never reaches the barrier is still a deadlock.
import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, test } from 'vitest';
import { cuda } from '../cuda.js';
import { SimulatorError } from '../errors.js';
import { jit } from '../jit.js';
import {
  heatEquationData,
  heatEquationKernel,
  heatEquationReference,
  SESSION_EXPECTED,
  SESSION_IDS,
  SESSION_SECONDS,
  sessionizeKernel,
} from './numba-examples-barriers.test-support.js';

describe("numba's grid-barrier examples in the simulator", () => {
  test('laplace: solve_heat_equation.forall(len(data)) with an early return and grid.sync() per step', () => {
    const steps = 40; // numba's 10000 on the GPU test; the simulator's answer is the same function of the step count
    const buf0 = heatEquationData();
    const buf1 = new Float64Array(buf0.length);
    const [e0, e1] = heatEquationReference(buf0, steps, 0.25);
    heatEquationKernel({ target: 'simulator' }).forall(buf0.length)(buf0, buf1, steps, 0.25);
    expect([...buf0]).toEqual([...e0]);
    expect([...buf1]).toEqual([...e1]);
    // heat is conserved but for what reaches the walls (none yet)
    expect(buf1.reduce((a, b) => a + b, 0)).toBeCloseTo(10000, 6);
  });

  test('laplace over several blocks: every block arrives through its thread (0, 0, 0)', () => {
    const steps = 6;
    const buf0 = heatEquationData();
    const buf1 = new Float64Array(buf0.length);
    const [e0, e1] = heatEquationReference(buf0, steps, 0.25);
    heatEquationKernel({ target: 'simulator' }).launch({ grid: 8, block: 128 }, buf0, buf1, steps, 0.25);
    expect([...buf0]).toEqual([...e0]);
    expect([...buf1]).toEqual([...e1]);
  });

  test("sessionize: grid.sync() reached only by the threads of a branch gives numba's labels", () => {
    const results = new Float64Array(SESSION_IDS.length);
    sessionizeKernel({ target: 'simulator' }).forall(SESSION_IDS.length)(SESSION_IDS, SESSION_SECONDS, results);
    expect([...results]).toEqual(SESSION_EXPECTED);
  });

  test('a real deadlock is still reported: a block whose thread (0, 0, 0) returned never arrives at the grid barrier', () => {
    // the laplace kernel's shape, but the early return takes thread (0, 0, 0) of block 1: on the GPU the other blocks wait for good
    const k = jit(
      (out: Int32Array) => {
        const i = cuda.grid(1);
        if (i === 128) return;
        const grid = cuda.cg.thisGrid();
        out[i] = 1;
        grid.sync();
      },
      { target: 'simulator' },
    );
    const error = errorOf<unknown>(() => {
      k.launch({ grid: 2, block: 128 }, new Int32Array(256));
    });
    expect(error).toBeInstanceOf(SimulatorError);
    expect((error as SimulatorError).detail).toBe(
      "the grid barrier (cg.thisGrid().sync()) is never passed: thread (0, 0, 0) of block (1, 0, 0) returned: it is the thread that arrives for its block, as in cooperative groups' grid sync (a deadlock on the GPU)",
    );
  });
});
