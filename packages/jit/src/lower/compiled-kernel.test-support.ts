// Lowers a typed kernel and compiles it with the real libNVVM (and
// libdevice) for sm_90, for the tests that judge lowering by what libNVVM
// and ptxas make of it. Not part of the package.
import { verifyNvvm } from '@cuda-js/program';
import { expect } from 'vitest';
import { compileToPtx } from '../compile/compile-kernel.js';
import type { KernelCompileOptions } from '../compile/kernel-compile-options.js';
import { ptxasRelocatableRejects } from '../compile/device-link.test-support.js';
import { nvvmMissing, ptxasMissing, ptxasRejects } from '../compile/toolchain-environment.test-support.js';
import type { TypedKernel } from '../typing/typed-ir.js';
import { lowerKernel } from './lower-kernel.js';

/** What the compiling tests need: libNVVM with libdevice, and ptxas. */
export const compileRequirements: readonly (string | undefined)[] = [nvvmMissing, ptxasMissing];

export interface CompiledText {
  readonly ir: string;
  readonly ptx: string;
}

/** The NVVM IR of `kernel`, verified by libNVVM, and the PTX it compiles to for sm_90. */
export function compileLowered(kernel: TypedKernel, options: KernelCompileOptions = {}): CompiledText {
  const ir = lowerKernel(kernel, { fastMath: options.fastMath === true });
  verifyNvvm(ir, { arch: 'sm_90', name: `${kernel.symbol}.ll` });
  return { ir, ptx: compileToPtx(ir, { arch: 'sm_90', name: kernel.symbol, ...options }) };
}

/** The functions that `ptx` declares `.extern` (and so calls without defining them). */
export function externFunctions(ptx: string): string[] {
  return [...ptx.matchAll(/\.extern\s+\.func\s*(?:\([^)]*\)\s*)?([\w$]+)/g)].map((m) => m[1]!);
}

/**
 * Asserts that ptxas -arch=sm_90 accepts `ptx`, and that libdevice left no call unresolved:
 * no external function but those of `externs` (`vprintf`, which the CUDA driver provides).
 * With `linked` (functions that linked code defines, see linked-kernel.ts) those are allowed too,
 * and ptxas assembles the PTX as relocatable code (`-c`), whose extern calls a link resolves.
 */
export function expectAssembles(ptx: string, externs: readonly string[] = [], linked: readonly string[] = []): void {
  const allowed = new Set([...externs, ...linked]);
  expect(externFunctions(ptx).filter((name) => !allowed.has(name))).toEqual([]);
  expect(ptx).not.toContain('__nv_');
  expect(linked.length > 0 ? ptxasRelocatableRejects(ptx, 'sm_90') : ptxasRejects(ptx, 'sm_90')).toBeUndefined();
}

/** {@link compileLowered} and {@link expectAssembles} in one step (the kernel's externals allowed as linked functions); returns the texts. */
export function compileAndAssemble(
  kernel: TypedKernel,
  options: KernelCompileOptions = {},
  externs: readonly string[] = [],
): CompiledText {
  const out = compileLowered(kernel, options);
  expectAssembles(
    out.ptx,
    externs,
    (kernel.externals ?? []).map((e) => e.symbol),
  );
  return out;
}
