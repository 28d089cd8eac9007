// reduce and the xoroshiro128+ draws on the GPU: against plain JavaScript,
// against the simulator, and (where Python with numba-cuda is installed)
// against numba's own states for the same seed.
import { spawnSync } from 'node:child_process';
import { Device } from '@cuda-js/core';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { jit } from '../jit.js';
import {
  xoroshiro128p_normal_float32,
  xoroshiro128p_uniform_float32,
  xoroshiro128p_uniform_float64,
} from './random.js';
import { reduce } from './reduce.js';
import { createXoroshiro128pStates } from './xoroshiro128p-states.js';

const NUMBA_STATES = `
import json, sys
import numpy as np
np.row_stack = np.vstack
from numba.cuda.random import create_xoroshiro128p_states
s = create_xoroshiro128p_states(8, seed=987654321).copy_to_host()
print(json.dumps([[str(int(r['s0'])), str(int(r['s1']))] for r in s]))
`;

describeGpu('reduce and random on the GPU', () => {
  beforeAll(() => {
    Device.get(0).setCurrent();
    process.removeAllListeners('warning'); // host arrays are copied, with a warning: expected here
  });

  it('reduce sums 1M i32 exactly and 1M f32 within rounding, and takes a max', () => {
    const sum = reduce((a: number, b: number) => a + b, { name: 'sum' });
    const ints = Int32Array.from({ length: 1 << 20 }, (_, i) => (i % 1000) - 500);
    expect(sum(ints)).toBe(ints.reduce((a, b) => a + b, 0));
    const floats = Float32Array.from({ length: 1 << 20 }, (_, i) => ((i * 7919) % 1000) / 1000);
    const exact = floats.reduce((a, b) => a + b, 0);
    expect(Math.abs((sum(floats) as number) - exact) / exact).toBeLessThan(1e-5);
    const max = reduce((a: number, b: number) => Math.max(a, b), { name: 'max' });
    expect(max(floats, { init: -1 })).toBe(Math.max(...floats.subarray(0, 1000)));
  });

  it('the GPU draws what the simulator draws, bit for bit for uniforms', () => {
    const source = (states: BigUint64Array, u32s: Float32Array, u64s: Float64Array, normals: Float32Array) => {
      const i = cuda.grid(1);
      if (i < u32s.length) {
        u32s[i] = uniform32(states, i);
        u64s[i] = uniform64(states, i);
        normals[i] = normal32(states, i);
      }
    };
    const constants = {
      uniform32: xoroshiro128p_uniform_float32,
      uniform64: xoroshiro128p_uniform_float64,
      normal32: xoroshiro128p_normal_float32,
    };
    const n = 4096;
    const run = (target: 'gpu' | 'simulator') => {
      const out = {
        states: createXoroshiro128pStates(n, 42n),
        u32s: new Float32Array(n),
        u64s: new Float64Array(n),
        normals: new Float32Array(n),
      };
      jit(source, { target, constants }).launch(
        { grid: n / 256, block: 256 },
        out.states,
        out.u32s,
        out.u64s,
        out.normals,
      );
      return out;
    };
    const gpu = run('gpu');
    const sim = run('simulator');
    expect([...gpu.states]).toEqual([...sim.states]);
    expect([...gpu.u32s]).toEqual([...sim.u32s]);
    expect([...gpu.u64s]).toEqual([...sim.u64s]);
    for (let i = 0; i < n; i++) expect(Math.abs(gpu.normals[i]! - sim.normals[i]!)).toBeLessThan(1e-5);
  });

  const python = process.env['PYTHON'] ?? 'python3';
  const probe = spawnSync(python, ['-c', 'import numba.cuda.random'], { encoding: 'utf8' });
  const numbaMissing =
    probe.status === 0
      ? undefined
      : `${python} with numba-cuda is not available (${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()})`;
  it.skipIf(numbaMissing !== undefined)(
    `makes numba-cuda's states for the same seed${numbaMissing ? ` (skipped: ${numbaMissing})` : ''}`,
    () => {
      const r = spawnSync(python, ['-c', NUMBA_STATES], { encoding: 'utf8', timeout: 110_000 });
      expect(r.status, r.stderr).toBe(0);
      const numba = (JSON.parse(r.stdout.trim().split('\n').pop()!) as [string, string][]).flatMap(([a, b]) => [
        BigInt(a),
        BigInt(b),
      ]);
      expect([...createXoroshiro128pStates(8, 987654321)]).toEqual(numba);
    },
  );
});

declare const uniform32: (states: BigUint64Array, i: number) => number;
declare const uniform64: (states: BigUint64Array, i: number) => number;
declare const normal32: (states: BigUint64Array, i: number) => number;
