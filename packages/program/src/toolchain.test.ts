// The toolchain facts that code generators read, against the real libNVVM.
import { expect, it } from 'vitest';
import { cuda } from './cuda-bindings.js';
import { describeWhen, nvvmMissing } from './test-environment.js';
import { nvvmIRVersion, nvvmToolchain } from './toolchain.js';

describeWhen([nvvmMissing], 'nvvmIRVersion and nvvmToolchain', () => {
  it('gives the IR version that libNVVM reports, once, frozen', () => {
    const ir = cuda.nvvm.nvvmIRVersion();
    const version = nvvmIRVersion();
    expect(version).toEqual({ major: ir.majorIR, minor: ir.minorIR, debugMajor: ir.majorDbg, debugMinor: ir.minorDbg });
    expect(version.major).toBeGreaterThanOrEqual(2);
    expect(Object.isFrozen(version)).toBe(true);
    expect(nvvmIRVersion()).toBe(version);
  });

  it('names libNVVM with its API and IR versions', () => {
    const toolchain = nvvmToolchain();
    const { major, minor } = nvvmIRVersion();
    expect(toolchain.name).toBe('libNVVM');
    expect(toolchain.version).toMatch(/^\d+\.\d+$/);
    expect(toolchain.details).toContain(`IR ${major}.${minor}`);
  });
});
