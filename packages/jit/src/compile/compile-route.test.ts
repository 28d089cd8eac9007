import { checkCompatibility, ObjectCode, UnsupportedOptionError } from '@cuda-js/program';
import { describe, expect, it } from 'vitest';
import { checkRoute, compileRoute, type CompiledPtx } from './compile-route.js';

const PTX_9_0 = new TextEncoder().encode('.version 9.0\n.target sm_90\n.address_size 64\n');
const producer = { name: 'libNVVM', cudaVersion: { major: 13, minor: 0 } };
/** The report of a driver of `version` (cuDriverGetVersion's number) on PTX ISA 9.0 (CUDA 13.0). */
const reportBy = (version: number) => checkCompatibility(PTX_9_0, 'ptx', producer, version);
/** libNVVM's PTX as compileRoute reads it: the driver's report on it. */
const ptxReported = (report: ReturnType<typeof checkCompatibility> | undefined): CompiledPtx => ({
  compatibility: () => report,
});

describe('compile routes', () => {
  it("defaults to 'auto' and refuses what the linker alone can do on the 'ptx' route", () => {
    expect(checkRoute({})).toBe('auto');
    expect(checkRoute({ route: 'cubin', maxRegisters: 32 })).toBe('cubin');
    expect(() => checkRoute({ route: 'ptx', maxRegisters: 32 })).toThrow(UnsupportedOptionError);
    expect(() => checkRoute({ route: 'nope' as never })).toThrow(TypeError);
  });

  it('auto: PTX where the driver reads it or there is no driver; a cubin where the same major can load it', () => {
    expect(compileRoute({ route: 'auto' }, ptxReported(reportBy(13000)))).toBe('ptx');
    expect(compileRoute({ route: 'auto' }, ptxReported(reportBy(13020)))).toBe('ptx');
    expect(compileRoute({ route: 'auto' }, ptxReported(undefined))).toBe('ptx');
    const newerPtx = checkCompatibility(new TextEncoder().encode('.version 9.1\n'), 'ptx', producer, 13000);
    expect(newerPtx.loadable).toBe(false);
    expect(compileRoute({ route: 'auto' }, ptxReported(newerPtx))).toBe('cubin');
  });

  it('auto: stays on PTX for a driver of an older major, which no cubin of this toolchain would serve', () => {
    expect(reportBy(12020).loadable).toBe(false);
    expect(compileRoute({ route: 'auto' }, ptxReported(reportBy(12020)))).toBe('ptx');
  });

  it('auto: links for maxRegisters and lineinfo; explicit routes are kept', () => {
    expect(compileRoute({ route: 'auto', maxRegisters: 64 }, ptxReported(reportBy(13000)))).toBe('cubin');
    expect(compileRoute({ route: 'auto', lineinfo: true }, ptxReported(undefined))).toBe('cubin');
    expect(compileRoute({ route: 'ptx' }, ptxReported(reportBy(12020)))).toBe('ptx');
    expect(compileRoute({ route: 'cubin' }, ptxReported(reportBy(13000)))).toBe('cubin');
  });

  it("decides once for every compile: linked code is 'linked' ('linked-lto' with LTO-IR) and refuses route 'ptx'; 'auto' waits for the PTX only where it depends on it", () => {
    const lto = ObjectCode.fromLtoir(new Uint8Array([1, 2, 3]), { name: 'lib.ltoir' });
    try {
      expect(compileRoute({ link: [{ ptx: '.version 9.0' }] })).toBe('linked');
      expect(compileRoute({ route: 'cubin', link: [{ ptx: '.version 9.0' }, lto] })).toBe('linked-lto');
      expect(() => compileRoute({ route: 'ptx', link: [{ ptx: '.version 9.0' }] })).toThrow(
        /use route 'cubin' or 'auto'/,
      );
      expect(compileRoute({ link: [] })).toBe('auto');
      expect(compileRoute({})).toBe('auto');
      expect(compileRoute({ maxRegisters: 32 })).toBe('cubin');
      expect(compileRoute({ route: 'ptx' })).toBe('ptx');
    } finally {
      lto.close();
    }
  });
});
