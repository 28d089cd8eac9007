import type { Kernel } from '@cuda-js/program';
import { describe, expect, it } from 'vitest';
import { JitError, KernelArgumentError } from '../errors.js';
import { arrayType } from '../typing/jit-types.js';
import type { KernelParam } from '../typing/typed-ir.js';
import { KernelLauncher } from './kernel-launcher.js';

// What runs without a device: the ABI check at construction and the count check before any driver call.
const PARAMS: readonly KernelParam[] = [
  { kind: 'scalar', name: 'a', type: 'f32', local: 0 },
  { kind: 'array', name: 'x', type: arrayType('f32', 1, 'C'), use: { shape: true, strides: false, written: true } },
];

function fakeKernel(sizes: readonly number[]): Kernel {
  let offset = 0;
  const parameters = sizes.map((size, index) => {
    offset = Math.ceil(offset / size) * size;
    const p = { index, offset, size };
    offset += size;
    return p;
  });
  return { handle: 0x99n, name: 'axpy_0', parameters, checkOpen: () => undefined } as unknown as Kernel;
}

describe('KernelLauncher without a device', () => {
  it('checks the compiled kernel against the typed parameters', () => {
    expect(() => new KernelLauncher(fakeKernel([4, 8, 8]), PARAMS, 'axpy')).not.toThrow();
    expect(() => new KernelLauncher(fakeKernel([4, 8]), PARAMS, 'axpy')).toThrow(JitError);
    expect(() => new KernelLauncher(fakeKernel([4, 8]), PARAMS, 'axpy')).toThrow(
      /axpy: the compiled kernel's parameters do not match its signature .*extent 0 \(i64\) in kernel parameter 2/,
    );
    expect(() => new KernelLauncher(fakeKernel([8, 8, 8]), PARAMS)).toThrow(
      /axpy_0: .*a f32 \(4 bytes\) in kernel parameter 0, which is 8 bytes/,
    );
  });

  it('refuses a wrong argument count before anything else', () => {
    const launcher = new KernelLauncher(fakeKernel([4, 8, 8]), PARAMS, 'axpy');
    expect(launcher.name).toBe('axpy');
    expect(() => launcher.launch({ grid: 1, block: 1 }, undefined, [1])).toThrow(KernelArgumentError);
    expect(() => launcher.launch({ grid: 1, block: 1 }, undefined, [1])).toThrow(
      'the kernel takes 2 argument(s) (a, x), 1 were given',
    );
  });
});
