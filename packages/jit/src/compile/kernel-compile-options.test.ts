import { describe, expect, it } from 'vitest';
import {
  callsLibdevice,
  jitCompileOptions,
  linkerOptions,
  linkProgramOptions,
  nvvmProgramOptions,
} from './kernel-compile-options.js';

describe('kernel compile options', () => {
  it('links libdevice where the IR is not known, names the module after the kernel, and passes on only what is given', () => {
    expect(nvvmProgramOptions({})).toEqual({ useLibdevice: true, name: 'kernel.ll' });
    expect(
      nvvmProgramOptions({
        name: 'axpy',
        arch: 'sm_90',
        fma: false,
        fastMath: true,
        ftz: false,
        precDiv: true,
        precSqrt: true,
        optimizationLevel: 0,
      }),
    ).toEqual({
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
    expect(linkProgramOptions({ name: 'axpy', arch: 90, maxRegisters: 32, lineinfo: true, fma: false })).toEqual({
      name: 'axpy.ptx',
      arch: 90,
      maxRegisters: 32,
      lineinfo: true,
    });
    expect(nvvmProgramOptions({ maxRegisters: 32, lineinfo: true })).toEqual({ useLibdevice: true, name: 'kernel.ll' });
  });

  it('gives the linker of a kernel with linked code the link step options, and with LTO-IR nvJitLink with the math modes too', () => {
    expect(linkerOptions({ name: 'axpy', arch: 90, maxRegisters: 32, fastMath: true }, false)).toEqual({
      name: 'axpy.cubin',
      arch: 90,
      maxRegisters: 32,
    });
    expect(linkerOptions({}, true)).toEqual({ name: 'kernel.cubin', backend: 'nvJitLink', linkTimeOptimization: true });
    expect(linkerOptions({ fastMath: true, precSqrt: true, optimizationLevel: 0, lineinfo: true }, true)).toEqual({
      name: 'kernel.cubin',
      lineinfo: true,
      backend: 'nvJitLink',
      linkTimeOptimization: true,
      ftz: true,
      precDiv: false,
      precSqrt: true,
      fma: true,
      optimizationLevel: 0,
    });
    expect(linkerOptions({ fma: false }, true)).toMatchObject({ fma: false });
  });
});

describe('callsLibdevice', () => {
  it('finds a libdevice declaration, and nothing in a kernel without math', () => {
    expect(callsLibdevice('declare float @__nv_sinf(float)\ndefine void @k() {\n  ret void\n}')).toBe(true);
    expect(callsLibdevice('declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\ndefine void @k() {\n  ret void\n}')).toBe(
      false,
    );
    expect(nvvmProgramOptions({}, 'define void @k() {\n  ret void\n}').useLibdevice).toBe(false);
    expect(nvvmProgramOptions({}).useLibdevice).toBe(true);
  });

  it("gives a JIT kernel's options, the route left to compileRoute unless the disk cache asks for the cubin it keeps", () => {
    expect(jitCompileOptions({ arch: 'sm_90', fma: false, fastMath: true, cache: false }, 'axpy')).toEqual({
      arch: 'sm_90',
      fma: false,
      fastMath: true,
      name: 'axpy',
    });
  });
});
