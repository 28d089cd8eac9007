import { describeGpu } from '@cuda-js/test-support';
import { expect, it } from 'vitest';
import { Device, Program, launch, f32 } from './index.js';

describeGpu('the cuda-js README example', () => {
  it('compiles, launches and reads back through the one import', () => {
    const device = Device.get(0).setCurrent();
    const code =
      'extern "C" __global__ void scale(float a, float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }';
    const kernel = new Program(code, 'c++').compile('cubin').getKernel('scale');
    using stream = device.createStream();
    using x = device.allocate(4096 * 4, { stream });
    x.copyFrom(new Float32Array(4096).fill(1), { stream });
    launch(stream, { grid: 16, block: 256 }, kernel, f32(3), x, 4096);
    const out = new Float32Array(4096);
    x.copyTo(out, { stream });
    expect(out.every((v) => v === 3)).toBe(true);
  });
});
