// The Linker against this machine: without nvJitLink and without a device
// (this machine, CI) it must say so clearly; argument checks need neither.
import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidOptionError, LinkerUnavailableError, UnknownOptionError } from './errors.js';
import { Linker } from './linker.js';
import { ObjectCode } from './object-code.js';
import { Program } from './program.js';
import { describeWhen, deviceMissing, nvJitLinkMissing } from './test-environment.js';

const PTX = '.version 7.8\n.target sm_90\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n';

describe('Linker: argument checks', () => {
  it('takes a non-empty array of ObjectCode', () => {
    expect(() => new Linker([])).toThrow(InvalidArgumentError);
    expect(() => new Linker([new Uint8Array([1])] as never)).toThrow(/a non-empty array of ObjectCode/);
  });

  it('names unknown options and bad values when made', () => {
    const ptx = ObjectCode.fromPtxText(PTX);
    expect(() => new Linker([ptx], { arch: 'sm_90', max_register_count: 32 } as never)).toThrow(UnknownOptionError);
    expect(() => new Linker([ptx], { arch: 'sm_90', maxRegisters: 1000 })).toThrow(InvalidOptionError);
    expect(() => new Linker([ptx], { arch: 'sm_90' }).link('fatbin' as never)).toThrow(/supported targets: cubin, ptx/);
  });

  it('refuses to link after close, and closes twice safely', () => {
    const linker = new Linker([ObjectCode.fromPtxText(PTX)], { arch: 'sm_90' });
    linker.close();
    linker.close();
    expect(() => linker.link('cubin')).toThrow(/Linker is closed/);
  });

  it('refuses inputs that were closed', () => {
    const ptx = ObjectCode.fromPtxText(PTX);
    const linker = new Linker([ptx], { arch: 'sm_90' });
    ptx.close();
    expect(() => linker.link('cubin')).toThrow(/is closed/);
  });
});

describeWhen(
  [
    nvJitLinkMissing === undefined ? 'nvJitLink is present here' : undefined,
    deviceMissing === undefined ? 'a CUDA device is present here' : undefined,
  ],
  'Linker with neither nvJitLink nor a device',
  () => {
    it('fails with LinkerUnavailableError giving the reason for each backend', () => {
      const error = errorOf<LinkerUnavailableError>(() => {
        new Linker([ObjectCode.fromPtxText(PTX)], { arch: 'sm_90' }).link('cubin');
      });
      expect(error).toBeInstanceOf(LinkerUnavailableError);
      expect(error!.reasons['nvJitLink']).toMatch(/not found/);
      // No device, or no driver library at all: either way cuInit fails.
      expect(error!.reasons['driver']).toMatch(
        /cuInit failed: .*(CUDA_ERROR_NO_DEVICE|CUDA library 'cuda' was not found)/,
      );
      expect(error!.message).toContain('Install nvJitLink');
    });

    it('names only the backend that was asked for', () => {
      for (const backend of ['nvJitLink', 'driver'] as const) {
        const error = errorOf<LinkerUnavailableError>(() => {
          new Linker([ObjectCode.fromPtxText(PTX)], { arch: 'sm_90', backend }).link('cubin');
        });
        expect(error).toBeInstanceOf(LinkerUnavailableError);
        expect(Object.keys(error!.reasons)).toEqual([backend]);
      }
    });

    it('fails the same way for a PTX program and for linkAsync', async () => {
      expect(() => new Program(PTX, 'ptx', { arch: 'sm_90' }).compile('cubin')).toThrow(LinkerUnavailableError);
      await expect(new Linker([ObjectCode.fromPtxText(PTX)], { arch: 'sm_90' }).linkAsync()).rejects.toThrow(
        LinkerUnavailableError,
      );
      expect(() => new Linker([ObjectCode.fromPtxText(PTX)]).backend).toThrow(LinkerUnavailableError);
    });
  },
);
