// Lowers a typed kernel and compiles it with the real libNVVM (and
// libdevice) for sm_90, for the tests that judge lowering by what libNVVM
// and ptxas make of it. Not part of the package.
import { verifyNvvm } from '@cuda-js/program';
import { expect } from 'vitest';
import { compileToPtx } from '../compile/compile-kernel.js';
import type { KernelCompileOptions } from '../compile/kernel-compile-options.js';
import { nvvmMissing, ptxasMissing, ptxasRejects } from '../compile/toolchain-environment.test-support.js';
import type { TypedKernel } from '../types/typed-ir.js';
import { lowerKernel } from './lower-kernel.js';

/** What the compiling tests need: libNVVM with libdevice, and ptxas. */
export const compileRequirements: readonly (string | undefined)[] = [nvvmMissing, ptxasMissing];

export interface CompiledText {
  readonly ir: string;
  readonly ptx: string;
}

/** The NVVM IR of `kernel`, verified by libNVVM, and the PTX it compiles to for sm_90. */
export function compileLowered(kernel: TypedKernel, options: KernelCompileOptions = {}): CompiledText {
  const ir = lowerKernel(kernel);
  verifyNvvm(ir, { arch: 'sm_90', name: `${kernel.symbol}.ll` });
  return { ir, ptx: compileToPtx(ir, { arch: 'sm_90', name: kernel.symbol, ...options }) };
}

/**
 * Asserts that ptxas -arch=sm_90 accepts `ptx`, and that libdevice left no call unresolved:
 * no external function but those of `externs` (`vprintf`, which the CUDA driver provides).
 */
export function expectAssembles(ptx: string, externs: readonly string[] = []): void {
  const called = [...ptx.matchAll(/\.extern\s+\.func\s*(?:\([^)]*\)\s*)?([\w$]+)/g)].map((m) => m[1]!);
  expect(called.filter((name) => !externs.includes(name))).toEqual([]);
  expect(ptx).not.toContain('__nv_');
  expect(ptxasRejects(ptx, 'sm_90')).toBeUndefined();
}

/** {@link compileLowered} and {@link expectAssembles} in one step; returns the texts. */
export function compileAndAssemble(kernel: TypedKernel, options: KernelCompileOptions = {}, externs: readonly string[] = []): CompiledText {
  const out = compileLowered(kernel, options);
  expectAssembles(out.ptx, externs);
  return out;
}
