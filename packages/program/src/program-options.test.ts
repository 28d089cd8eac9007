import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, UnknownOptionError, UnsupportedOptionError } from './errors.js';
import { defineStrings, PROGRAM_OPTION_SPECS, resolveProgramOptions } from './program-options.js';

describe('resolveProgramOptions', () => {
  it('returns a frozen copy without undefined entries', () => {
    const given = { arch: 'sm_90', std: 'c++17' as const, debug: undefined, defines: { N: 4 } };
    const resolved = resolveProgramOptions(given, 'c++');
    expect(resolved).toEqual({ arch: 'sm_90', std: 'c++17', defines: { N: 4 } });
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.defines)).toBe(true);
    expect(resolved).not.toBe(given);
  });

  it('treats a missing options object as empty', () => {
    expect(resolveProgramOptions(undefined, 'nvvm')).toEqual({});
  });

  it('names an unknown option, the known ones and the likely one', () => {
    const e = errorOf(() => resolveProgramOptions({ maxRegister: 32 }, 'c++')) as UnknownOptionError;
    expect(e).toBeInstanceOf(UnknownOptionError);
    expect(e.option).toBe('maxRegister');
    expect(e.suggestion).toBe('maxRegisters');
    expect(e.known).toEqual(Object.keys(PROGRAM_OPTION_SPECS));
    expect(e.message).toContain("did you mean 'maxRegisters'");
  });

  it("suggests the camelCase name for cuda.core's snake_case names", () => {
    const cases: Record<string, string> = {
      max_register_count: 'maxRegisters',
      use_fast_math: 'fastMath',
      relocatable_device_code: 'relocatableDeviceCode',
      link_time_optimization: 'linkTimeOptimization',
      include_path: 'includePaths',
      prec_sqrt: 'precSqrt',
    };
    for (const [given, expected] of Object.entries(cases)) {
      expect((errorOf(() => resolveProgramOptions({ [given]: true }, 'c++')) as UnknownOptionError).suggestion).toBe(
        expected,
      );
    }
  });

  it('gives no suggestion for a name unlike any option', () => {
    expect(
      (errorOf(() => resolveProgramOptions({ banana: 1 }, 'c++')) as UnknownOptionError).suggestion,
    ).toBeUndefined();
  });

  it('refuses values of the wrong type, naming what is expected', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ arch: 'sm90' }, "an architecture such as 'sm_90'"],
      [{ maxRegisters: 0 }, 'an integer from 1 to 255'],
      [{ maxRegisters: 32.5 }, 'an integer from 1 to 255'],
      [{ debug: 'yes' }, 'true or false'],
      [{ std: 'c++98' }, 'one of "c++03"'],
      [{ defines: { 'bad-name': 1 } }, 'an object of macro values'],
      [{ includePaths: '/usr/include' }, 'an array of non-empty strings'],
      [{ headers: { 'a.h': 1 } }, 'an object of strings'],
    ];
    for (const [options, expected] of cases) {
      const e = errorOf(() => resolveProgramOptions(options, 'c++'));
      expect(e).toBeInstanceOf(InvalidOptionError);
      expect(e.message).toContain(expected);
    }
  });

  it('refuses options that the code type cannot honour', () => {
    const cases: [Record<string, unknown>, 'nvvm' | 'ptx' | 'c++'][] = [
      [{ std: 'c++17' }, 'nvvm'],
      [{ defines: { N: 1 } }, 'ptx'],
      [{ useLibdevice: true }, 'c++'],
      [{ extraModules: ['x'] }, 'c++'],
      [{ fastMath: true }, 'ptx'],
      [{ relocatableDeviceCode: true }, 'nvvm'],
      [{ optimizationLevel: 3 }, 'c++'],
    ];
    for (const [options, codeType] of cases) {
      const e = errorOf(() => resolveProgramOptions(options, codeType)) as UnsupportedOptionError;
      expect(e).toBeInstanceOf(UnsupportedOptionError);
      expect(e.option).toBe(Object.keys(options)[0]);
      expect(e.message).toContain(`code type '${codeType}'`);
    }
  });

  it('refuses a non-object', () => {
    expect(() => resolveProgramOptions(['--use_fast_math'], 'c++')).toThrow(InvalidOptionError);
    expect(() => resolveProgramOptions(new Map(), 'c++')).toThrow(InvalidOptionError);
  });

  it('accepts NVVM modules as text or bitcode bytes, not empty ones', () => {
    expect(
      resolveProgramOptions({ extraModules: ['define void @f() { ret void }', new Uint8Array([0x42, 0x43])] }, 'nvvm')
        .extraModules,
    ).toHaveLength(2);
    expect(() => resolveProgramOptions({ extraModules: [new Uint8Array(0)] }, 'nvvm')).toThrow(InvalidOptionError);
  });
});

describe('defineStrings', () => {
  it('writes object macros as NAME=VALUE, true as NAME, and leaves false out', () => {
    expect(defineStrings({ N: 256, MODE: 'fast', ON: true, OFF: false })).toEqual(['N=256', 'MODE=fast', 'ON']);
  });
  it('keeps array macros as given', () => {
    expect(defineStrings(['A', 'B=2'])).toEqual(['A', 'B=2']);
    expect(defineStrings(undefined)).toEqual([]);
  });
});
