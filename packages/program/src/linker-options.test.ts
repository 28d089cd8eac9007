import { describe, expect, it } from 'vitest';
import { parseArchitecture } from './architecture.js';
import { InvalidOptionError, UnknownOptionError, UnsupportedOptionError, UnsupportedTargetError } from './errors.js';
import { driverJitOptions, jitTarget, nvJitLinkFlags, resolveLinkerOptions } from './linker-options.js';

const sm90 = parseArchitecture('sm_90');

describe('resolveLinkerOptions', () => {
  it('names unknown options and bad values', () => {
    expect(() => resolveLinkerOptions({ kernels_used: ['k'] }, 'nvJitLink')).toThrow(/did you mean 'kernelsUsed'/);
    expect(() => resolveLinkerOptions({ kernels_used: ['k'] }, 'nvJitLink')).toThrow(UnknownOptionError);
    expect(() => resolveLinkerOptions({ splitCompile: -1 }, 'nvJitLink')).toThrow(InvalidOptionError);
  });

  it('lets the driver linker refuse what only nvJitLink can do', () => {
    for (const option of ['extraFlags', 'ptxasOptions', 'kernelsUsed']) {
      const e = (() => {
        try {
          resolveLinkerOptions({ [option]: ['x'] }, 'driver');
        } catch (error) {
          return error as UnsupportedOptionError;
        }
        throw new Error('expected a throw');
      })();
      expect(e).toBeInstanceOf(UnsupportedOptionError);
      expect(e.message).toContain('the driver linker (cuLink*)');
    }
    expect(() => resolveLinkerOptions({ linkTimeOptimization: true }, 'driver')).toThrow(/needs nvJitLink/);
    expect(resolveLinkerOptions({ arch: 'sm_90', maxRegisters: 32, debug: true }, 'driver')).toEqual({
      arch: 'sm_90',
      maxRegisters: 32,
      debug: true,
    });
  });
});

describe('nvJitLinkFlags', () => {
  it('maps each option to its nvJitLink flag', () => {
    const options = resolveLinkerOptions(
      {
        maxRegisters: 40,
        time: true,
        verbose: true,
        optimizationLevel: 3,
        debug: true,
        lineinfo: true,
        ftz: true,
        precDiv: false,
        precSqrt: true,
        fma: false,
        kernelsUsed: ['k1', 'k2'],
        variablesUsed: ['v'],
        optimizeUnusedVariables: true,
        ptxasOptions: ['-v'],
        splitCompile: 0,
        extraFlags: ['-jump-table-density=50'],
      },
      'nvJitLink',
    );
    expect(nvJitLinkFlags(options, sm90, 'cubin', true)).toEqual([
      '-arch=sm_90',
      '-lto',
      '-maxrregcount=40',
      '-time',
      '-verbose',
      '-O3',
      '-g',
      '-lineinfo',
      '-ftz=1',
      '-prec-div=0',
      '-prec-sqrt=1',
      '-fma=0',
      '-kernels-used=k1',
      '-kernels-used=k2',
      '-variables-used=v',
      '-optimize-unused-variables',
      '-Xptxas=-v',
      '-split-compile=0',
      '-jump-table-density=50',
    ]);
  });

  it('emits PTX only after link-time optimization', () => {
    expect(nvJitLinkFlags({}, sm90, 'ptx', true)).toEqual(['-arch=compute_90', '-lto', '-ptx']);
    expect(() => nvJitLinkFlags({}, sm90, 'ptx', false)).toThrow(UnsupportedTargetError);
  });

  it('refuses the optimization levels nvJitLink does not have', () => {
    expect(() => nvJitLinkFlags({ optimizationLevel: 1 }, sm90, 'cubin', false)).toThrow(UnsupportedOptionError);
  });
});

describe('driverJitOptions', () => {
  it('names the CUjit_option of each option the driver honours', () => {
    expect(
      driverJitOptions({ maxRegisters: 32, optimizationLevel: 2, debug: true, lineinfo: true, verbose: true }, sm90),
    ).toEqual([
      { option: 'CU_JIT_TARGET', value: 90 },
      { option: 'CU_JIT_MAX_REGISTERS', value: 32 },
      { option: 'CU_JIT_OPTIMIZATION_LEVEL', value: 2 },
      { option: 'CU_JIT_GENERATE_DEBUG_INFO', value: 1 },
      { option: 'CU_JIT_GENERATE_LINE_INFO', value: 1 },
      { option: 'CU_JIT_LOG_VERBOSE', value: 1 },
    ]);
  });

  it("gives the 'a' and 'f' architectures their CUjit_target values", () => {
    // cuda.h: CU_TARGET_COMPUTE_90A = CU_COMPUTE_ACCELERATED_TARGET_BASE (0x10000) + 90, families from 0x20000.
    expect(jitTarget(parseArchitecture('sm_90a'))).toBe(0x10000 + 90);
    expect(jitTarget(parseArchitecture('sm_100f'))).toBe(0x20000 + 100);
    expect(jitTarget(parseArchitecture('sm_80'))).toBe(80);
  });
});
