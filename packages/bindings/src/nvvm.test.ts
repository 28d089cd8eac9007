import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NvvmError, nvvm } from './index.js';
import { haveLibrary } from './test-fixtures/libraries.js';
import { STORE_ONE_NVVM_IR } from './test-fixtures/kernels.js';

const PTXAS = join(process.env['CUDA_HOME'] ?? '/usr/local/cuda', 'bin', 'ptxas');

function compileIr(ir: string, options: string[]): string {
  const prog = nvvm.nvvmCreateProgram();
  try {
    nvvm.nvvmAddModuleToProgram(prog, ir, 'module.ll');
    nvvm.nvvmCompileProgram(prog, options);
    return new TextDecoder().decode(nvvm.nvvmGetCompiledResult(prog)).replace(/\0+$/, '');
  } finally {
    nvvm.nvvmDestroyProgram(prog);
  }
}

describe.skipIf(!haveLibrary('nvvm'))('libNVVM of this machine', () => {
  it('reports its versions', () => {
    expect(nvvm.nvvmVersion().major).toBeGreaterThanOrEqual(1);
    const ir = nvvm.nvvmIRVersion();
    expect(Object.keys(ir).sort()).toEqual(['majorDbg', 'majorIR', 'minorDbg', 'minorIR']);
    expect(ir.majorIR).toBeGreaterThanOrEqual(1);
  });

  it('compiles NVVM IR to PTX', () => {
    const ptx = compileIr(STORE_ONE_NVVM_IR, ['-arch=compute_90']);
    expect(ptx).toMatch(/\.visible \.entry store_one\(/);
    expect(ptx).toMatch(/\.target sm_90/);
  });

  it.skipIf(!existsSync(PTXAS))('produces PTX that ptxas -arch=sm_90 accepts', () => {
    const ptx = compileIr(STORE_ONE_NVVM_IR, ['-arch=compute_90']);
    const dir = mkdtempSync(join(tmpdir(), 'cuda-js-nvvm-'));
    writeFileSync(join(dir, 'k.ptx'), ptx);
    execFileSync(PTXAS, ['-arch=sm_90', join(dir, 'k.ptx'), '-o', join(dir, 'k.cubin')], { stdio: 'pipe' });
    expect(existsSync(join(dir, 'k.cubin'))).toBe(true);
  });

  it('verifies, and throws NvvmError with the log for bad IR', () => {
    const prog = nvvm.nvvmCreateProgram();
    nvvm.nvvmAddModuleToProgram(prog, new TextEncoder().encode('define void @f( {'), 'bad.ll');
    let error: unknown;
    try {
      nvvm.nvvmCompileProgram(prog, []);
    } catch (e) {
      error = e;
    }
    nvvm.nvvmDestroyProgram(prog);
    expect(error).toBeInstanceOf(NvvmError);
    const e = error as NvvmError;
    expect(e.functionName).toBe('nvvmCompileProgram');
    expect(['NVVM_ERROR_COMPILATION', 'NVVM_ERROR_INVALID_IR']).toContain(e.codeName);
    expect(e.log).toMatch(/bad\.ll/);
    expect(e.libraryMessage.length).toBeGreaterThan(0);
  });

  it('compiles on a worker thread', async () => {
    const prog = nvvm.nvvmCreateProgram();
    nvvm.nvvmAddModuleToProgram(prog, STORE_ONE_NVVM_IR, 'module.ll');
    nvvm.nvvmVerifyProgram(prog, ['-arch=compute_90']);
    await nvvm.nvvmCompileProgramAsync(prog, ['-arch=compute_90']);
    expect(new TextDecoder().decode(nvvm.nvvmGetCompiledResult(prog))).toMatch(/\.entry store_one/);
    expect(nvvm.nvvmGetProgramLog(prog)).toBeTypeOf('string');
    nvvm.nvvmDestroyProgram(prog);
  });
});
