// The kernel suite on the CPU: every kernel compiled to PTX by the real
// libNVVM and accepted by ptxas -arch=sm_90, and run in the simulator
// against its plain-JavaScript reference.
import { describe, expect, it } from 'vitest';
import {
  describeWhen,
  nvvmMissing,
  ptxasMissing,
  ptxasRejects,
} from '../compile/toolchain-environment.test-support.js';
import { argumentTypes } from '../launch/argument-types.js';
import { BREADTH_SUITE } from './kernel-breadth-suite.test-support.js';
import { cloneArgs, firstDifference, kernelFor, outputData, SUITE } from './kernel-suite.test-support.js';

const ALL = [...SUITE, ...BREADTH_SUITE];

describe('kernel suite: simulator against plain JavaScript', () => {
  it('has at least 30 kernels', () => expect(SUITE.length).toBeGreaterThanOrEqual(30));
  for (const c of ALL) {
    it(c.name, () => {
      const args = c.args();
      const expected = cloneArgs(args);
      c.reference(expected);
      kernelFor(c, 'simulator').launch({ grid: c.grid, block: c.block, sharedMemory: c.sharedMemory }, ...args);
      for (const o of c.outputs)
        expect(
          firstDifference(outputData(args[o]), outputData(expected[o]), c.tolerance),
          `argument ${o}`,
        ).toBeUndefined();
    });
  }
});

describeWhen([nvvmMissing, ptxasMissing], 'kernel suite: NVVM IR → PTX → ptxas -arch=sm_90', () => {
  for (const c of ALL) {
    it(c.name, () => {
      const kernel = kernelFor(c, 'gpu', { arch: 'sm_90' });
      const signature = argumentTypes(
        c.args(),
        Array.from({ length: c.kernel.fn.length }, (_, i) => `arg${i}`),
        'simulator',
      );
      const { nvvm, ptx } = kernel.inspect(signature);
      expect(nvvm).toContain('target triple = "nvptx64-nvidia-cuda"');
      expect(ptx).toMatch(/\.entry \w+\(/);
      expect(ptxasRejects(ptx)).toBeUndefined();
    });
  }
});
