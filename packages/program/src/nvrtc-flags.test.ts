import { describe, expect, it } from 'vitest';
import { parseArchitecture } from './architecture.js';
import { UnsupportedOptionError } from './errors.js';
import { nvrtcFlags } from './nvrtc-flags.js';
import { resolveProgramOptions } from './program-options.js';

const sm90 = parseArchitecture('sm_90');

describe('nvrtcFlags', () => {
  it('compiles PTX and LTO-IR for the virtual architecture and cubin for the real one', () => {
    expect(nvrtcFlags({}, 'ptx', sm90, [])).toEqual(['--gpu-architecture=compute_90']);
    expect(nvrtcFlags({}, 'cubin', sm90, [])).toEqual(['--gpu-architecture=sm_90']);
    expect(nvrtcFlags({}, 'ltoir', sm90, [])).toEqual(['--gpu-architecture=compute_90', '-dlto']);
    expect(nvrtcFlags({}, 'cubin', parseArchitecture('sm_90a'), [])).toEqual(['--gpu-architecture=sm_90a']);
  });

  it('maps every C++ option to its NVRTC flag', () => {
    const options = resolveProgramOptions(
      {
        std: 'c++17',
        relocatableDeviceCode: true,
        debug: true,
        lineinfo: true,
        fastMath: true,
        fma: false,
        ftz: true,
        precDiv: false,
        precSqrt: true,
        maxRegisters: 64,
        defines: { N: 128, FAST: true },
        includePaths: ['/opt/mine'],
        ptxasOptions: ['-v', '--warn-on-spills'],
        extraFlags: ['--extra-device-vectorization'],
      },
      'c++',
    );
    expect(nvrtcFlags(options, 'cubin', sm90, ['/usr/local/cuda/include'])).toEqual([
      '--gpu-architecture=sm_90',
      '--std=c++17',
      '--relocatable-device-code=true',
      '--device-debug',
      '--generate-line-info',
      '--use_fast_math',
      '--fmad=false',
      '--ftz=true',
      '--prec-div=false',
      '--prec-sqrt=true',
      '--maxrregcount=64',
      '--define-macro=N=128',
      '--define-macro=FAST',
      '--include-path=/opt/mine',
      '--include-path=/usr/local/cuda/include',
      '--ptxas-options=-v --warn-on-spills',
      '--extra-device-vectorization',
    ]);
  });

  it('accepts the assembler options (register limit, ptxas options) for the cubin target only', () => {
    expect(nvrtcFlags({ maxRegisters: 32 }, 'cubin', sm90, [])).toContain('--maxrregcount=32');
    expect(() => nvrtcFlags({ maxRegisters: 32 }, 'ptx', sm90, [])).toThrow(UnsupportedOptionError);
    expect(() => nvrtcFlags({ ptxasOptions: ['-v'] }, 'ltoir', sm90, [])).toThrow(
      /ptxas runs only for compile\('cubin'\)/,
    );
  });

  it('accepts linkTimeOptimization for the ltoir target only', () => {
    expect(nvrtcFlags({ linkTimeOptimization: true }, 'ltoir', sm90, [])).toContain('-dlto');
    expect(() => nvrtcFlags({ linkTimeOptimization: true }, 'cubin', sm90, [])).toThrow(UnsupportedOptionError);
  });
});
