import { checkCompatibility, UnsupportedOptionError } from '@cuda-js/program';
import { describe, expect, it } from 'vitest';
import { checkRoute, resolveRoute } from './compile-route.js';

const PTX_9_0 = new TextEncoder().encode('.version 9.0\n.target sm_90\n.address_size 64\n');
const producer = { name: 'libNVVM', cudaVersion: { major: 13, minor: 0 } };
/** The report of a driver of `version` (cuDriverGetVersion's number) on PTX ISA 9.0 (CUDA 13.0). */
const reportBy = (version: number) => checkCompatibility(PTX_9_0, 'ptx', producer, version);

describe('compile routes', () => {
  it("defaults to 'auto' and refuses what the linker alone can do on the 'ptx' route", () => {
    expect(checkRoute({})).toBe('auto');
    expect(checkRoute({ route: 'cubin', maxRegisters: 32 })).toBe('cubin');
    expect(() => checkRoute({ route: 'ptx', maxRegisters: 32 })).toThrow(UnsupportedOptionError);
    expect(() => checkRoute({ route: 'nope' as never })).toThrow(TypeError);
  });

  it('auto: PTX where the driver reads it or there is no driver; a cubin where the same major can load it', () => {
    expect(resolveRoute('auto', {}, reportBy(13000))).toBe('ptx');
    expect(resolveRoute('auto', {}, reportBy(13020))).toBe('ptx');
    expect(resolveRoute('auto', {}, undefined)).toBe('ptx');
    const newerPtx = checkCompatibility(new TextEncoder().encode('.version 9.1\n'), 'ptx', producer, 13000);
    expect(newerPtx.loadable).toBe(false);
    expect(resolveRoute('auto', {}, newerPtx)).toBe('cubin');
  });

  it('auto: stays on PTX for a driver of an older major, which no cubin of this toolchain would serve', () => {
    expect(reportBy(12020).loadable).toBe(false);
    expect(resolveRoute('auto', {}, reportBy(12020))).toBe('ptx');
  });

  it('auto: links for maxRegisters and lineinfo; explicit routes are kept', () => {
    expect(resolveRoute('auto', { maxRegisters: 64 }, reportBy(13000))).toBe('cubin');
    expect(resolveRoute('auto', { lineinfo: true }, undefined)).toBe('cubin');
    expect(resolveRoute('ptx', {}, reportBy(12020))).toBe('ptx');
    expect(resolveRoute('cubin', {}, reportBy(13000))).toBe('cubin');
  });
});
