import { describe, expect, it } from 'vitest';
import { driver, LibraryNotFoundError, NvrtcError, NvvmError, nvrtc, nvvm } from './index.js';

// Input that used to crash the process (double free, use after free, NULL
// dereference, reads and writes past a JS buffer): each is a named error now.
// NVRTC and libNVVM may be absent (a fresh machine): those tests then skip, and
// say so.
function present(probe: () => unknown, name: string): boolean {
  try {
    probe();
    return true;
  } catch (e) {
    if (e instanceof LibraryNotFoundError) {
      console.log(
        `hostile-input.test.ts: ${name} is not installed here, its tests are skipped (${e.message.split('\n')[0]})`,
      );
      return false;
    }
    throw e;
  }
}
const haveNvrtc = present(() => nvrtc.nvrtcVersion(), 'NVRTC');
const haveNvvm = present(() => nvvm.nvvmVersion(), 'libNVVM');

function codeNameOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as { codeName?: string }).codeName;
  }
  return undefined;
}

describe.skipIf(!haveNvrtc)('NVRTC programs after destroy', () => {
  it('a second destroy is NVRTC_ERROR_INVALID_PROGRAM, not a double free', () => {
    const p = nvrtc.nvrtcCreateProgram('extern "C" __global__ void k() {}', 'k.cu', [], []);
    nvrtc.nvrtcDestroyProgram(p);
    expect(() => nvrtc.nvrtcDestroyProgram(p)).toThrow(NvrtcError);
    expect(() => nvrtc.nvrtcDestroyProgram(p)).toThrow(
      /nvrtcDestroyProgram.*parameter 'prog' \(0x[0-9a-f]+\) is not a live nvrtcProgram: it was destroyed already/,
    );
    expect(codeNameOf(() => nvrtc.nvrtcDestroyProgram(p))).toBe('NVRTC_ERROR_INVALID_PROGRAM');
  });

  it('a use after destroy is the same named error, not freed memory', () => {
    const p = nvrtc.nvrtcCreateProgram('extern "C" __global__ void k() {}', 'k.cu', [], []);
    nvrtc.nvrtcCompileProgram(p, ['-arch=compute_70']);
    expect(nvrtc.nvrtcGetPTX(p)).toContain('.entry k');
    nvrtc.nvrtcDestroyProgram(p);
    for (const use of [
      () => nvrtc.nvrtcGetPTX(p),
      () => nvrtc.nvrtcGetPTXSize(p),
      () => nvrtc.nvrtcGetProgramLog(p),
      () => nvrtc.nvrtcCompileProgram(p, []),
      () => nvrtc.nvrtcAddNameExpression(p, 'k'),
    ]) {
      expect(codeNameOf(use)).toBe('NVRTC_ERROR_INVALID_PROGRAM');
    }
    expect(() => nvrtc.nvrtcCompileProgramAsync(p, [])).toThrow(NvrtcError);
  });

  it('refuses NULL and made-up handles, and NULL strings where NVRTC would abort', () => {
    expect(() => nvrtc.nvrtcAddNameExpression(0n as never, 'k')).toThrow(/parameter 'prog' is NULL \(0n\)/);
    expect(codeNameOf(() => nvrtc.nvrtcGetPTX(0x1234n as never))).toBe('NVRTC_ERROR_INVALID_PROGRAM');
    const p = nvrtc.nvrtcCreateProgram('int x;', null, [], []);
    try {
      expect(() => nvrtc.nvrtcAddNameExpression(p, null as never)).toThrow(
        /parameter 'name_expression' must be a string, got null/,
      );
      expect(() => nvrtc.nvrtcGetLoweredName(p, null as never)).toThrow(TypeError);
    } finally {
      nvrtc.nvrtcDestroyProgram(p);
    }
    expect(() => nvrtc.nvrtcCreateProgram(null as never, 'x.cu', [], [])).toThrow(/parameter 'src' must be a string/);
  });

  it('a program that a pending compile holds cannot be destroyed until it settles', async () => {
    const p = nvrtc.nvrtcCreateProgram('extern "C" __global__ void k() {}', 'k.cu', [], []);
    const pending = nvrtc.nvrtcCompileProgramAsync(p, ['-arch=compute_70']);
    expect(() => nvrtc.nvrtcDestroyProgram(p)).toThrow(/is in use by a call that has not finished/);
    await pending;
    nvrtc.nvrtcDestroyProgram(p);
    expect(codeNameOf(() => nvrtc.nvrtcDestroyProgram(p))).toBe('NVRTC_ERROR_INVALID_PROGRAM');
  });
});

describe.skipIf(!haveNvvm)('NVVM programs after destroy', () => {
  it('a second destroy and a use after destroy are NVVM_ERROR_INVALID_PROGRAM, not a segfault', () => {
    const p = nvvm.nvvmCreateProgram();
    nvvm.nvvmDestroyProgram(p);
    expect(() => nvvm.nvvmDestroyProgram(p)).toThrow(NvvmError);
    expect(codeNameOf(() => nvvm.nvvmDestroyProgram(p))).toBe('NVVM_ERROR_INVALID_PROGRAM');
    expect(codeNameOf(() => nvvm.nvvmAddModuleToProgram(p, 'x', 'x.ll'))).toBe('NVVM_ERROR_INVALID_PROGRAM');
    expect(codeNameOf(() => nvvm.nvvmCompileProgram(p, []))).toBe('NVVM_ERROR_INVALID_PROGRAM');
    expect(() => nvvm.nvvmCompileProgramAsync(p, [])).toThrow(NvvmError);
    expect(codeNameOf(() => nvvm.nvvmCompileProgram(0n as never, []))).toBe('NVVM_ERROR_INVALID_PROGRAM');
  });
});

describe('byte counts against the JS buffer', () => {
  // Checked before the driver is called: the same RangeError with or without a driver and a GPU.
  it.each([
    ['cuMemcpyDtoH', () => driver.cuMemcpyDtoH(new Uint8Array(4), 0n as never, 16)],
    ['cuMemcpyHtoD', () => driver.cuMemcpyHtoD(0n as never, new Uint8Array(4), 16n)],
    ['cuMemcpyDtoHAsync', () => driver.cuMemcpyDtoHAsync(new Float32Array(2), 0n as never, 9, 0n as never)],
    [
      'cuMemcpyHtoDAsync',
      () => driver.cuMemcpyHtoDAsync(0n as never, new DataView(new ArrayBuffer(8), 4), 5, 0n as never),
    ],
    ['cuMemcpyHtoA', () => driver.cuMemcpyHtoA(1n as never, 0, new ArrayBuffer(3), 4)],
    ['cuMemcpyAtoH', () => driver.cuMemcpyAtoH(new Uint8Array(3), 1n as never, 0, 4)],
    ['cuMemHostRegister', () => driver.cuMemHostRegister(new Uint8Array(4096), 8192, 0)],
  ])('%s refuses a count past the end of the buffer', (name, call) => {
    expect(call).toThrow(RangeError);
    expect(call).toThrow(
      new RegExp(
        `^${name}: parameter '(ByteCount|bytesize)' = \\d+ bytes is more than parameter '\\w+' holds \\(\\d+ bytes\\)`,
      ),
    );
  });

  it('an out-buffer that the function fills with more than one element must hold all of it (cuDeviceGetLuid writes 8 bytes)', () => {
    expect(() => driver.cuDeviceGetLuid(new Uint8Array(4), 0)).toThrow(
      /^cuDeviceGetLuid: parameter 'luid' holds 4 bytes; the function writes at least 8/,
    );
    let error: unknown;
    try {
      driver.cuDeviceGetLuid(new Uint8Array(8), 0);
    } catch (e) {
      error = e;
    }
    expect(error).not.toBeInstanceOf(RangeError); // the driver's own answer, or no driver at all
  });

  it('a string source counts its NUL, and a count that fits goes on to the driver', () => {
    expect(() => driver.cuMemcpyHtoD(0n as never, 'abc', 5)).toThrow(/holds \(4 bytes\)/);
    let error: unknown;
    try {
      driver.cuMemcpyHtoD(0n as never, new Uint8Array(16), 16);
    } catch (e) {
      error = e;
    }
    expect(error).not.toBeInstanceOf(RangeError); // the driver's own answer (no context here), or no driver at all
  });
});
