import { describe, expect, it } from 'vitest';
import { FunctionNotFoundError, NvrtcError, nvrtc } from './index.js';
import { haveLibrary } from './test-fixtures/libraries.js';
import { BROKEN_CU, SAXPY_CU, SLOW_CU } from './test-fixtures/kernels.js';

const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46];

describe.skipIf(!haveLibrary('nvrtc'))('NVRTC of this machine', () => {
  it('reports its version and architectures', () => {
    const { major, minor } = nvrtc.nvrtcVersion();
    expect(major).toBeGreaterThanOrEqual(11);
    expect(minor).toBeGreaterThanOrEqual(0);
    const archs = nvrtc.nvrtcGetSupportedArchs();
    expect(archs.length).toBe(nvrtc.nvrtcGetNumSupportedArchs());
    expect(archs).toContain(80);
  });

  it('compiles a kernel to PTX, and to a cubin for the newest architecture it supports up to sm_90', () => {
    const prog = nvrtc.nvrtcCreateProgram(SAXPY_CU, 'saxpy.cu', [], []);
    try {
      nvrtc.nvrtcAddNameExpression(prog, 'fill<int>');
      nvrtc.nvrtcCompileProgram(prog, ['-arch=compute_80', '-std=c++17']);
      const ptx = nvrtc.nvrtcGetPTX(prog);
      expect(ptx).toMatch(/\.visible \.entry saxpy\(/);
      expect(ptx).toMatch(/\.target sm_80/);
      expect(nvrtc.nvrtcGetPTXSize(prog)).toBe(BigInt(ptx.length + 1));
      expect(nvrtc.nvrtcGetLoweredName(prog, 'fill<int>')).toMatch(/^_Z4fillIiEvPT_S0_$/);
    } finally {
      nvrtc.nvrtcDestroyProgram(prog);
    }
    const sm = Math.max(...nvrtc.nvrtcGetSupportedArchs().filter((a) => a <= 90));
    const cubinProg = nvrtc.nvrtcCreateProgram(SAXPY_CU, 'saxpy.cu', null, null);
    try {
      nvrtc.nvrtcCompileProgram(cubinProg, [`-arch=sm_${sm}`]);
      const cubin = nvrtc.nvrtcGetCUBIN(cubinProg);
      expect(cubin).toBeInstanceOf(Uint8Array);
      expect([...cubin.subarray(0, 4)]).toEqual(ELF_MAGIC);
      expect(cubin.length).toBeGreaterThan(1000);
    } finally {
      nvrtc.nvrtcDestroyProgram(cubinProg);
    }
  });

  it('passes headers by name', () => {
    const prog = nvrtc.nvrtcCreateProgram(
      '#include "scale.h"\nextern "C" __global__ void k(float* p) { p[0] = SCALE; }',
      'k.cu',
      ['#define SCALE 3.5f\n'],
      ['scale.h'],
    );
    nvrtc.nvrtcCompileProgram(prog, ['-arch=compute_80']);
    expect(nvrtc.nvrtcGetPTX(prog)).toMatch(/0f40600000|1080033280/); // 3.5f, as a float literal or its bits
    nvrtc.nvrtcDestroyProgram(prog);
    expect(() => nvrtc.nvrtcCreateProgram('x', 'k.cu', ['a'], [])).toThrow(RangeError);
  });

  it('throws NvrtcError with the program log for a broken kernel', () => {
    const prog = nvrtc.nvrtcCreateProgram(BROKEN_CU, 'broken.cu', [], []);
    let error: unknown;
    try {
      nvrtc.nvrtcCompileProgram(prog, []);
    } catch (e) {
      error = e;
    }
    nvrtc.nvrtcDestroyProgram(prog);
    expect(error).toBeInstanceOf(NvrtcError);
    const e = error as NvrtcError;
    expect(e.codeName).toBe('NVRTC_ERROR_COMPILATION');
    expect(e.code).toBe(nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION);
    expect(e.functionName).toBe('nvrtcCompileProgram');
    expect(e.log).toMatch(/broken\.cu\(1\): error: identifier "undeclared_name" is undefined/);
    expect(e.message).toContain('undeclared_name');
  });

  it('compiles on a worker thread: a timer fires while the compile runs', async () => {
    const prog = nvrtc.nvrtcCreateProgram(SLOW_CU, 'slow.cu', [], []);
    const events: string[] = [];
    const timer = new Promise<void>((resolve) => setTimeout(() => (events.push('timer'), resolve()), 1));
    const compiled = nvrtc.nvrtcCompileProgramAsync(prog, ['-arch=compute_80']).then(() => events.push('compiled'));
    await Promise.all([timer, compiled]);
    expect(events).toEqual(['timer', 'compiled']);
    expect(nvrtc.nvrtcGetPTX(prog)).toMatch(/\.entry _Z4slowILi11EEvPKfPf\(/);
    nvrtc.nvrtcDestroyProgram(prog);
  });

  it('rejects the async compile with the log', async () => {
    const prog = nvrtc.nvrtcCreateProgram(BROKEN_CU, 'broken.cu', [], []);
    await expect(nvrtc.nvrtcCompileProgramAsync(prog, [])).rejects.toMatchObject({
      name: 'NvrtcError',
      codeName: 'NVRTC_ERROR_COMPILATION',
      log: expect.stringMatching(/undeclared_name/),
    });
    nvrtc.nvrtcDestroyProgram(prog);
  });

  it('says which function an older NVRTC lacks', () => {
    if (nvrtc.nvrtcVersion().major >= 12) return; // nvrtcGetLTOIR exists from 12.0 on
    const prog = nvrtc.nvrtcCreateProgram(SAXPY_CU, 'saxpy.cu', [], []);
    expect(() => nvrtc.nvrtcGetLTOIR(prog)).toThrow(FunctionNotFoundError);
    expect(() => nvrtc.nvrtcGetLTOIR(prog)).toThrow(/nvrtcGetLTOIRSize is not in .*libnvrtc/);
    nvrtc.nvrtcDestroyProgram(prog);
  });
});
