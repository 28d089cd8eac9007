import { describe, expect, it } from 'vitest';
import { parseArchitecture } from './architecture.js';
import { UnsupportedOptionError } from './errors.js';
import { nvvmFlags } from './nvvm-flags.js';

const sm90 = parseArchitecture('sm_90');

describe('nvvmFlags', () => {
  it('always names the virtual architecture, and -gen-lto for LTO-IR', () => {
    expect(nvvmFlags({}, 'ptx', sm90)).toEqual(['-arch=compute_90']);
    expect(nvvmFlags({}, 'ltoir', parseArchitecture('sm_100a'))).toEqual(['-arch=compute_100a', '-gen-lto']);
    expect(nvvmFlags({}, 'cubin', sm90)).toEqual(['-arch=compute_90']);
  });

  it('maps debug to -g with optimization off, and the optimization level to -opt', () => {
    expect(nvvmFlags({ debug: true }, 'ptx', sm90)).toEqual(['-arch=compute_90', '-g', '-opt=0']);
    expect(nvvmFlags({ debug: true, optimizationLevel: 0 }, 'ptx', sm90)).toEqual(['-arch=compute_90', '-g', '-opt=0']);
    expect(nvvmFlags({ optimizationLevel: 0 }, 'ptx', sm90)).toEqual(['-arch=compute_90', '-opt=0']);
    expect(() => nvvmFlags({ debug: true, optimizationLevel: 3 }, 'ptx', sm90)).toThrow(UnsupportedOptionError);
    expect(() => nvvmFlags({ optimizationLevel: 2 }, 'ptx', sm90)).toThrow(/accepts 0 \(no optimization\) or 3/);
  });

  it('spells fastMath as the four math modes, each overridable', () => {
    expect(nvvmFlags({ fastMath: true }, 'ptx', sm90)).toEqual([
      '-arch=compute_90',
      '-ftz=1',
      '-prec-sqrt=0',
      '-prec-div=0',
      '-fma=1',
    ]);
    expect(nvvmFlags({ fastMath: true, ftz: false, precDiv: true }, 'ptx', sm90)).toEqual([
      '-arch=compute_90',
      '-ftz=0',
      '-prec-sqrt=0',
      '-prec-div=1',
      '-fma=1',
    ]);
    expect(nvvmFlags({ fma: false }, 'ptx', sm90)).toEqual(['-arch=compute_90', '-fma=0']);
  });

  it('accepts link-step options only for the cubin target', () => {
    expect(() => nvvmFlags({ maxRegisters: 32 }, 'ptx', sm90)).toThrow(UnsupportedOptionError);
    expect(() => nvvmFlags({ lineinfo: true }, 'ltoir', sm90)).toThrow(/line information/);
    expect(nvvmFlags({ maxRegisters: 32, lineinfo: true }, 'cubin', sm90)).toEqual(['-arch=compute_90']);
    expect(() => nvvmFlags({ linkTimeOptimization: true }, 'ptx', sm90)).toThrow(UnsupportedOptionError);
  });

  it('appends extra flags as they are', () => {
    expect(nvvmFlags({ extraFlags: ['-jump-table-density=50'] }, 'ptx', sm90)).toEqual([
      '-arch=compute_90',
      '-jump-table-density=50',
    ]);
  });
});
