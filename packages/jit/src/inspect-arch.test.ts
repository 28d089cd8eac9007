// `kernel.inspect(signature, { arch })`: the PTX of a kernel for an
// architecture of the caller's, with no device (the simulator, a build
// machine); without one, ArchitectureRequiredError says where a JIT user
// passes `arch`.
import { ArchitectureRequiredError } from '@cuda-js/program';
import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { describeWhen, deviceMissing, nvvmMissing } from './compile/toolchain-environment.test-support.js';
import { array, cuda, f32, jit, JitOptionError } from './index.js';

const axpy = jit(
  (a: number, x: Float32Array, y: Float32Array) => {
    const i = cuda.grid(1);
    if (i < y.length) y[i] = a * x[i]! + y[i]!;
  },
  { target: 'simulator' },
);
const signature = [f32, array(f32, 1), array(f32, 1)];

describe('inspect options', () => {
  it('refuses an unknown or mistyped option, with the nearest name', () => {
    expect(errorOf(() => axpy.inspect(signature, { acrh: 'sm_90' } as never))?.message).toMatch(/acrh.*arch/s);
    expect(errorOf(() => axpy.inspect(signature, { arch: '' }))).toBeInstanceOf(JitOptionError);
  });

  it('types without an architecture: only the PTX needs one', () => {
    expect(axpy.inspect(signature).types.params).toEqual({
      a: 'f32',
      x: "array(f32, 1, 'C')",
      y: "array(f32, 1, 'C')",
    });
  });
});

describeWhen([nvvmMissing], 'inspect(signature, { arch }) with libNVVM', () => {
  it('compiles the PTX for that architecture, device or not', () => {
    expect(axpy.inspect(signature, { arch: 'sm_80' }).ptx).toMatch(/^\.target sm_80\b/m);
    expect(axpy.inspect(signature, { arch: 'sm_90' }).ptx).toMatch(/^\.target sm_90\b/m);
  });

  it("takes the kernel's own arch option otherwise", () => {
    const k = jit(
      (x: Float32Array) => {
        x[cuda.grid(1)] = 1;
      },
      { target: 'simulator', arch: 'sm_86' },
    );
    expect(k.inspect([array(f32, 1)]).ptx).toMatch(/^\.target sm_86\b/m);
  });
});

describeWhen(
  [nvvmMissing, deviceMissing === undefined ? 'a device is present: its architecture is used' : undefined],
  'inspect without arch and without a device',
  () => {
    it('throws ArchitectureRequiredError naming jit(fn, { arch }) and inspect(signature, { arch })', () => {
      const error = errorOf(() => axpy.inspect(signature).ptx);
      expect(error).toBeInstanceOf(ArchitectureRequiredError);
      expect(error?.message).toContain("pass arch explicitly, for example jit(fn, { arch: 'sm_90' }), or ");
      expect(error?.message).toContain(".inspect(signature, { arch: 'sm_90' })");
      expect((error as ArchitectureRequiredError).reason).not.toBe('');
    });
  },
);
