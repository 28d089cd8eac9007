// numba's laplace and sessionize examples on the GPU, with numba's own
// sizes (10000 steps), against the plain-JS reference and the simulator.
import { Device } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import {
  heatEquationData,
  heatEquationKernel,
  heatEquationReference,
  SESSION_EXPECTED,
  SESSION_IDS,
  SESSION_SECONDS,
  sessionizeKernel,
} from './numba-examples-barriers.test-support.js';

describeGpu("numba's grid-barrier examples on the GPU", () => {
  beforeAll(() => {
    Device.get(0).setCurrent();
    process.removeAllListeners('warning'); // host arrays are copied both ways, with a one-time warning
  });

  it('laplace: 10000 steps of solve_heat_equation.forall(1001), heat conserved, as the reference', () => {
    const steps = 10000;
    const buf0 = heatEquationData();
    const buf1 = new Float64Array(buf0.length);
    heatEquationKernel({ fma: false }).forall(buf0.length)(buf0, buf1, steps, 0.25);
    const [e0, e1] = heatEquationReference(heatEquationData(), steps, 0.25);
    // fma: false: the GPU rounds each operation as JS does
    expect([...buf0]).toEqual([...e0]);
    expect([...buf1]).toEqual([...e1]);
    expect(buf1.reduce((a, b) => a + b, 0)).toBeCloseTo(10000, 3); // numba's assert_allclose(results.sum(), 10000)
  });

  it('laplace: the simulator gives the GPU answer (several blocks, early returns in the last)', () => {
    const steps = 50;
    const onGpu = [heatEquationData(), new Float64Array(1001)] as const;
    const simulated = [heatEquationData(), new Float64Array(1001)] as const;
    heatEquationKernel({ fma: false }).launch({ grid: 8, block: 128 }, onGpu[0], onGpu[1], steps, 0.25);
    heatEquationKernel({ target: 'simulator' }).launch(
      { grid: 8, block: 128 },
      simulated[0],
      simulated[1],
      steps,
      0.25,
    );
    expect([...onGpu[0]]).toEqual([...simulated[0]]);
    expect([...onGpu[1]]).toEqual([...simulated[1]]);
  });

  it("sessionize: numba's labels", () => {
    const results = new Float64Array(SESSION_IDS.length);
    sessionizeKernel({}).forall(SESSION_IDS.length)(SESSION_IDS, SESSION_SECONDS, results);
    expect([...results]).toEqual(SESSION_EXPECTED);
  });
});
