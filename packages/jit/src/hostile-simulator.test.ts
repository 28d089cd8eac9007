// Issue 20, the simulator under hostile use: the budget as a jit() option,
// a launch that its own callback launches again, and dynamic shared memory
// that no block can have; each a named error, never an engine's.
import { describe, expect, it } from 'vitest';
import { LaunchConfigError } from '@cuda-js/core';
import { cuda, declareDevice, f32, jit, JitOptionError, SimulatorError } from './index.js';

const sim = { target: 'simulator' } as const;

describe('jit(fn, { simulatorBudget })', () => {
  it('bounds the loops of launch and forall, and is checked when the kernel is made', () => {
    const spin = jit(
      (out: Float64Array) => {
        while (out[0]! >= 0) out[0] = out[0]! + 1;
      },
      { ...sim, simulatorBudget: 100 },
    );
    const out = new Float64Array(1);
    expect(() => spin.launch({ grid: 1, block: 1 }, out)).toThrow(SimulatorError);
    expect(() => spin.launch({ grid: 1, block: 1 }, out)).toThrow(
      /ran out of its simulator budget of 100 loop iterations/,
    );
    expect(() => spin.forall(1)(out)).toThrow(/simulator budget of 100 loop iterations/);
    for (const bad of [0, -1, 1.5, '100', 2 ** 60]) {
      expect(() => jit((o: Float64Array) => void o, { ...sim, simulatorBudget: bad as never })).toThrow(JitOptionError);
    }
    expect(() => jit((o: Float64Array) => void o, { ...sim, simulatorBudget: 0 })).toThrow(
      /simulatorBudget.*a positive whole number of loop iterations/,
    );
  });

  it('gives a kernel without the option the environment budget', () => {
    const before = process.env['CUDA_JS_SIMULATOR_BUDGET'];
    process.env['CUDA_JS_SIMULATOR_BUDGET'] = '50';
    try {
      const spin = jit((out: Float64Array) => {
        while (out[0]! >= 0) out[0] = out[0]! + 1;
      }, sim);
      expect(() => spin.launch({ grid: 1, block: 1 }, new Float64Array(1))).toThrow(
        /simulator budget of 50 loop iterations/,
      );
    } finally {
      if (before === undefined) delete process.env['CUDA_JS_SIMULATOR_BUDGET'];
      else process.env['CUDA_JS_SIMULATOR_BUDGET'] = before;
    }
  });
});

describe('a simulated launch launched again from its own callback', () => {
  it('is a SimulatorError naming the kernel, and the kernel runs again afterwards', () => {
    let again: (() => void) | undefined;
    const hook = declareDevice(
      'hook_f32',
      { args: [f32], returns: f32 },
      {
        link: { ptx: '' },
        simulate: (a: number) => {
          again?.();
          return a + 1;
        },
      },
    );
    const kernel = jit(
      (x: Float32Array) => {
        const i = cuda.grid(1);
        if (i < x.length) x[i] = hook(x[i]!);
      },
      { ...sim, name: 'reentered', constants: { hook } },
    );
    const x = new Float32Array(2);
    again = () => kernel.launch({ grid: 1, block: 2 }, new Float32Array(2));
    expect(() => kernel.launch({ grid: 1, block: 2 }, x)).toThrow(SimulatorError);
    expect(() => kernel.launch({ grid: 1, block: 2 }, x)).toThrow(
      /^reentered was launched again while its simulated launch runs/,
    );
    again = undefined;
    const y = new Float32Array(2);
    kernel.launch({ grid: 1, block: 2 }, y);
    expect([...y]).toEqual([1, 1]);
  });
});

describe('dynamic shared memory that no block has', () => {
  it('is a LaunchConfigError of the simulated device, not an engine RangeError', () => {
    const kernel = jit((x: Float32Array) => {
      const s = cuda.shared.array(0, f32);
      s[0] = 1;
      x[0] = s[0]!;
    }, sim);
    for (const bytes of [2 ** 31 - 1, 2 ** 30, 228 * 1024]) {
      expect(() => kernel.launch({ grid: 1, block: 1, sharedMemory: bytes }, new Float32Array(1))).toThrow(
        LaunchConfigError,
      );
    }
    expect(() => kernel.launch({ grid: 1, block: 1, sharedMemory: 2 ** 31 - 1 }, new Float32Array(1))).toThrow(
      /2147483647 bytes of dynamic shared memory exceed the device's/,
    );
  });
});

describe('an array detached by a callback of its own simulated launch', () => {
  it('is a SimulatorError naming the argument, not writes that went nowhere', () => {
    let victim: Float32Array | undefined;
    const detach = declareDevice(
      'detach_f32',
      { args: [f32], returns: f32 },
      {
        link: { ptx: '' },
        simulate: (a: number) => {
          if (victim !== undefined && victim.byteLength > 0)
            structuredClone(victim.buffer, { transfer: [victim.buffer as ArrayBuffer] });
          return a;
        },
      },
    );
    const kernel = jit(
      (x: Float32Array) => {
        if (cuda.grid(1) === 0) x[0] = detach(1) + 1;
      },
      { ...sim, name: 'detached', constants: { detach } },
    );
    victim = new Float32Array(4);
    expect(() => kernel.launch({ grid: 1, block: 4 }, victim!)).toThrow(
      /^detached: argument 1 \('x'\) was detached or shrunk while the launch ran/,
    );
    victim = undefined;
    const kept = new Float32Array(4);
    kernel.launch({ grid: 1, block: 4 }, kept);
    expect([...kept]).toEqual([2, 0, 0, 0]);
  });
});
