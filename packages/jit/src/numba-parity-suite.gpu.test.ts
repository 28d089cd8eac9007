// The numba-parity kernels on the GPU, against their plain-JavaScript
// references: cuda.fp16, fastMath within libdevice's documented errors,
// host arrays read from constant memory by name, views made in kernels.
import { Device } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { jit } from './index.js';
import { cloneArgs, firstDifference, kernelFor, outputData } from './kernel-suite.test-support.js';
import { CAPTURED_HOST_ARRAYS_CASE, FAST_MATH_N, fastMathError, fastMathInputs, fastMathSource, FP16_CASE, ROW_VIEWS_CASE, SUBARRAY_VIEWS_CASE } from './numba-parity-suite.test-support.js';

describeGpu('numba parity on the GPU', () => {
  beforeAll(() => {
    Device.get(0).setCurrent();
    process.removeAllListeners('warning'); // host-array copies warn once per argument; expected here
  });

  it(FP16_CASE.name, () => {
    const onGpu = FP16_CASE.args();
    const expected = cloneArgs(onGpu);
    FP16_CASE.reference(expected);
    kernelFor(FP16_CASE, 'gpu').launch({ grid: FP16_CASE.grid, block: FP16_CASE.block }, ...onGpu);
    // the math functions are libdevice's f32 ones rounded to f16: one f16 ulp (2^-10 relative) from Math's
    expect(firstDifference(outputData(onGpu[3]), outputData(expected[3]), 2 ** -10)).toBeUndefined();
  });

  // compiled with fma: false, these give the reference's results bit for bit
  for (const c of [CAPTURED_HOST_ARRAYS_CASE, ROW_VIEWS_CASE, SUBARRAY_VIEWS_CASE]) {
    it(c.name, () => {
      const onGpu = c.args();
      const expected = cloneArgs(onGpu);
      c.reference(expected);
      kernelFor(c, 'gpu').launch({ grid: c.grid, block: c.block, sharedMemory: c.sharedMemory }, ...onGpu);
      for (const o of c.outputs) expect(firstDifference(outputData(onGpu[o]), outputData(expected[o]), c.tolerance), `argument ${o}`).toBeUndefined();
    });
  }

  it("fastMath: sin, cos, tan, exp, log, log2, log10 and pow within libdevice's documented errors of the fast forms", () => {
    const { x, p, y } = fastMathInputs();
    const out = new Float32Array(FAST_MATH_N * 8);
    jit(fastMathSource.fn, fastMathSource.options).launch({ grid: FAST_MATH_N / 128, block: 128 }, x, p, y, out);
    expect(fastMathError(x, p, y, out)).toBeUndefined();
  });
});
