// The kernel suite on the CPU: every kernel compiled to PTX by the real
// libNVVM and accepted by ptxas -arch=sm_90, and run in the simulator
// against its plain-JavaScript reference.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findLibrary } from '@cuda-js/pathfinder';
import { describe, expect, it } from 'vitest';
import { argumentTypes } from './launch/argument-types.js';
import { cloneArgs, firstDifference, kernelFor, outputData, SUITE } from './kernel-suite.test-support.js';

function missing(find: () => unknown): string | undefined {
  try {
    find();
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

const ptxas = ['/usr/local/cuda/bin/ptxas', process.env['CUDA_HOME'] && join(process.env['CUDA_HOME'], 'bin/ptxas')].find(
  (p): p is string => typeof p === 'string' && spawnSync(p, ['--version']).status === 0,
);
const nvvmMissing = missing(() => findLibrary('nvvm'));

/** ptxas's complaint about `ptx` for sm_90, or undefined when it accepts it. */
function ptxasRejects(ptx: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-jit-'));
  try {
    writeFileSync(join(dir, 'k.ptx'), ptx);
    const r = spawnSync(ptxas!, ['-arch=sm_90', '-o', join(dir, 'k.cubin'), join(dir, 'k.ptx')], { encoding: 'utf8' });
    return r.status === 0 ? undefined : `${r.stderr}${r.stdout}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('kernel suite: simulator against plain JavaScript', () => {
  it('has at least 30 kernels', () => expect(SUITE.length).toBeGreaterThanOrEqual(30));
  for (const c of SUITE) {
    it(c.name, () => {
      const args = c.args();
      const expected = cloneArgs(args);
      c.reference(expected);
      kernelFor(c, 'simulator').launch({ grid: c.grid, block: c.block }, ...args);
      for (const o of c.outputs) expect(firstDifference(outputData(args[o]), outputData(expected[o]), c.tolerance), `argument ${o}`).toBeUndefined();
    });
  }
});

const compileSkip = nvvmMissing ? `no libNVVM: ${nvvmMissing}` : !ptxas ? 'no ptxas (CUDA toolkit) on this machine' : undefined;
(compileSkip ? describe.skip : describe)(`kernel suite: NVVM IR → PTX → ptxas -arch=sm_90${compileSkip ? ` (skipped: ${compileSkip})` : ''}`, () => {
  for (const c of SUITE) {
    it(c.name, () => {
      const kernel = kernelFor(c, 'gpu', { arch: 'sm_90' });
      const signature = argumentTypes(c.args(), Array.from({ length: c.kernel.fn.length }, (_, i) => `arg${i}`), 'simulator');
      const { nvvm, ptx } = kernel.inspect(signature);
      expect(nvvm).toContain('target triple = "nvptx64-nvidia-cuda"');
      expect(ptx).toMatch(/\.entry \w+\(/);
      expect(ptxasRejects(ptx)).toBeUndefined();
    });
  }
});
