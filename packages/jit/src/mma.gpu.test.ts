// cuda.mma on a GPU (sm_80 and later): the one-warp 16×8×16 GEMM of
// mma.test.ts on the tensor cores, against the CPU reference and the
// simulator (the GPU adds in its own order: a tolerance).
import { Device } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { gemmInputs, gemmKernel, gemmReference, seeded } from './mma.test-support.js';

const closeTo = (actual: Float32Array, expected: Float32Array): void => {
  for (let i = 0; i < expected.length; i++)
    expect(Math.abs(actual[i]! - expected[i]!), `element ${i}`).toBeLessThanOrEqual(
      1e-5 * Math.max(1, Math.abs(expected[i]!)),
    );
};

describeGpu('cuda.mma on a GPU', () => {
  let tensorCores = false;
  beforeAll(() => {
    const device = Device.get(0).setCurrent();
    tensorCores = Number(device.arch.replace(/^sm_/, '').replace(/\D.*$/, '')) >= 80;
  });

  for (const input of ['bf16', 'f16'] as const)
    it(`runs a one-warp 16×8×16 ${input} GEMM as the CPU reference and the simulator do`, ({ skip }) => {
      if (!tensorCores) skip('mma.sync.m16n8k16 needs sm_80 or later');
      for (const seed of [1, 2, 3]) {
        const inputs = gemmInputs(input, seeded(seed));
        const onGpu = new Float32Array(128);
        const onCpu = new Float32Array(128);
        gemmKernel(input, 'gpu').launch({ grid: 1, block: 32 }, inputs.a, inputs.b, inputs.c, onGpu);
        gemmKernel(input, 'simulator').launch({ grid: 1, block: 32 }, inputs.a, inputs.b, inputs.c, onCpu);
        const expected = gemmReference(input, inputs);
        closeTo(onGpu, expected);
        closeTo(onGpu, onCpu);
      }
    });
});
