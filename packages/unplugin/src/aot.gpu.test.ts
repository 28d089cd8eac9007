// On a GPU: the fixture app bundled with the plugin's aot option runs its
// kernels from the embedded artifact with libNVVM hidden (results checked
// against plain JavaScript, nothing typed or lowered): built for the
// device's architecture it loads the cubins; built for an older one (sm_75,
// with its PTX) it loads the PTX, which the driver compiles.
import { rmSync } from 'node:fs';
import { describeGpu } from '@cuda-js/test-support';
import { HIDE_NVVM, itWhen, ptxasMissing } from '@cuda-js/test-support/toolchain';
import { Device } from 'cuda-js';
import { afterAll, expect } from 'vitest';
import {
  AOT_OUT,
  type AotBundler,
  buildAotApp,
  expectedResults,
  nvvmMissing,
  type Outcome,
  runAotApp,
} from './aot-app.test-support.js';

function checkResults(o: Outcome): void {
  expect(o.failed).toBeUndefined();
  for (const [kernel, values] of Object.entries(expectedResults())) {
    expect(o.results?.[kernel]?.length, kernel).toBe(values.length);
    // f32 atomics add in another order than JavaScript does
    o.results?.[kernel]?.forEach((v, i) => expect(v, `${kernel}[${i}]`).toBeCloseTo(values[i]!, 1));
  }
  expect(o.nvvm).toBe('LibraryNotFoundError');
  expect([o.typed, o.lowered]).toEqual([0, 0]);
}

describeGpu("the plugin's aot option on the GPU", () => {
  afterAll(() => rmSync(AOT_OUT, { recursive: true, force: true }));
  const needs = [nvvmMissing, ptxasMissing];

  for (const bundler of ['esbuild', 'vite'] as AotBundler[]) {
    itWhen(
      needs,
      `${bundler}: built for the device's architecture, runs the cubins with libNVVM hidden`,
      async () => {
        const arch = Device.get(0).arch;
        const { file } = await buildAotApp(bundler, { arch: [arch] }, `${bundler}-gpu-cubin`);
        const o = runAotApp(file, HIDE_NVVM);
        checkResults(o);
        expect(o.origins).toEqual({ axpy: ['artifact-cubin'], sumOfSquares: ['artifact-cubin'] });
      },
      120_000,
    );

    itWhen(
      needs,
      `${bundler}: built for sm_75 only, runs the compute_75 PTX on a newer device with libNVVM hidden`,
      async () => {
        const { file } = await buildAotApp(bundler, { arch: ['sm_75'] }, `${bundler}-gpu-ptx`);
        const o = runAotApp(file, HIDE_NVVM);
        checkResults(o);
        expect(o.origins).toEqual({ axpy: ['artifact-ptx'], sumOfSquares: ['artifact-ptx'] });
      },
      120_000,
    );
  }
});
