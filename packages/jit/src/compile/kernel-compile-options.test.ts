import { describe, expect, it } from 'vitest';
import { linkProgramOptions, nvvmProgramOptions } from './kernel-compile-options.js';

describe('kernel compile options', () => {
  it('always links libdevice, names the module after the kernel, and passes on only what is given', () => {
    expect(nvvmProgramOptions({})).toEqual({ useLibdevice: true, name: 'kernel.ll' });
    expect(nvvmProgramOptions({ name: 'axpy', arch: 'sm_90', fma: false, fastMath: true, ftz: false, precDiv: true, precSqrt: true, optimizationLevel: 0 })).toEqual({
      useLibdevice: true,
      name: 'axpy.ll',
      arch: 'sm_90',
      fma: false,
      fastMath: true,
      ftz: false,
      precDiv: true,
      precSqrt: true,
      optimizationLevel: 0,
    });
  });

  it('gives the link step the architecture and the linker options, and libNVVM none of them', () => {
    expect(linkProgramOptions({ name: 'axpy', arch: 90, maxRegisters: 32, lineinfo: true, fma: false })).toEqual({ name: 'axpy.ptx', arch: 90, maxRegisters: 32, lineinfo: true });
    expect(nvvmProgramOptions({ maxRegisters: 32, lineinfo: true })).toEqual({ useLibdevice: true, name: 'kernel.ll' });
  });
});
