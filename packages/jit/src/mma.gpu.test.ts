// cuda.mma on a GPU (sm_80 and later): the one-warp 16×8×16 GEMM of
// mma.test.ts on the tensor cores, against the CPU reference and the
// simulator (the GPU adds in its own order: a tolerance).
import { Device } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { cuda, jit } from './index.js';
import { gemmInputs, gemmKernel, gemmReference, seeded } from './mma.test-support.js';

const pack = (x: Float32Array, out: Uint32Array) => {
  const i = cuda.grid(1);
  if (2 * i + 1 < x.length) {
    out[2 * i] = cuda.pack_bf16x2(x[2 * i]!, x[2 * i + 1]!);
    out[2 * i + 1] = cuda.pack_f16x2(x[2 * i]!, x[2 * i + 1]!);
  }
};

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

  it('packs f32 pairs to bf16x2 and f16x2 as the simulator does (finite values, ties, subnormals, overflow)', ({
    skip,
  }) => {
    if (!tensorCores) skip('cvt.rn.bf16x2.f32 needs sm_80 or later');
    const random = seeded(11);
    const special = [0, -0, 1, -1, 1.00390625, 1.01171875, 65504, 65520, 1e-8, -1e-40, 3e38, Infinity, -Infinity];
    const x = Float32Array.from({ length: 1024 }, (_, i) =>
      i < special.length ? special[i]! : (random() - 0.5) * 2 ** Math.floor(random() * 40 - 20),
    );
    const onGpu = new Uint32Array(1024);
    const onCpu = new Uint32Array(1024);
    jit(pack).launch({ grid: 16, block: 32 }, x, onGpu);
    jit(pack, { target: 'simulator' }).launch({ grid: 16, block: 32 }, x, onCpu);
    expect([...onGpu]).toEqual([...onCpu]);
  });
});
