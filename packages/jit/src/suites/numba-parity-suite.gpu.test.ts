// The numba-parity kernels on the GPU, against their plain-JavaScript
// references: cuda.fp16, fastMath within libdevice's documented errors,
// host arrays read from constant memory by name, views made in kernels.
import { Device } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { cuda, jit, type KernelArray } from '../index.js';
import { cloneArgs, firstDifference, kernelFor, outputData } from './kernel-suite.test-support.js';
import {
  CAPTURED_HOST_ARRAYS_CASE,
  FAST_MATH_N,
  fastMathError,
  fastMathInputs,
  fastMathSource,
  FP16_CASE,
  ROW_VIEWS_CASE,
  SUBARRAY_VIEWS_CASE,
} from './numba-parity-suite.test-support.js';

describeGpu('numba parity on the GPU', () => {
  let device: Device;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
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
      for (const o of c.outputs)
        expect(
          firstDifference(outputData(onGpu[o]), outputData(expected[o]), c.tolerance),
          `argument ${o}`,
        ).toBeUndefined();
    });
  }

  it('a device array in the constants (numba global device array): read and written in place, at its address at launch', () => {
    const buffer = device.allocate(8 * 4);
    try {
      buffer.copyFrom(Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
      const view = StridedMemoryView.fromPointer(buffer.ptr, { dtype: 'float32', shape: [8], exporter: buffer });
      const ACC = view as unknown as KernelArray<'f32', 1>; // what the kernel's code sees
      const kernel = jit(
        (x: Float32Array) => {
          const i = cuda.grid(1);
          if (i < ACC.length) ACC[i] = ACC[i]! * 10 + x[i]!;
        },
        { constants: { ACC: view } },
      );
      kernel.launch({ grid: 1, block: 8 }, new Float32Array(8).fill(0.5)); // the host argument's copy back waits for the kernel
      const out = new Float32Array(8);
      buffer.copyTo(out);
      expect([...out]).toEqual([10.5, 20.5, 30.5, 40.5, 50.5, 60.5, 70.5, 80.5]);
    } finally {
      buffer.close();
    }
  });

  it("fastMath: sin, cos, tan, exp, log, log2, log10 and pow within libdevice's documented errors of the fast forms", () => {
    const { x, p, y } = fastMathInputs();
    const out = new Float32Array(FAST_MATH_N * 8);
    jit(fastMathSource.fn, fastMathSource.options).launch({ grid: FAST_MATH_N / 128, block: 128 }, x, p, y, out);
    expect(fastMathError(x, p, y, out)).toBeUndefined();
  });
});
