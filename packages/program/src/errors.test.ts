import { ClosedResourceError as BindingsClosedResourceError } from '@cuda-js/bindings';
import { describe, expect, it } from 'vitest';
import {
  ClosedError,
  ClosedResourceError,
  InvalidArgumentError,
  InvalidOptionError,
  ObjectCode,
  OptionError,
  ProgramError,
  resolveLinkerOptions,
  UnknownOptionError,
} from './index.js';

describe('the errors of @cuda-js/program', () => {
  it('bad input is a named ProgramError (no longer a TypeError), before any library call', () => {
    expect(() => ObjectCode.fromPtxText(42 as never)).toThrow(InvalidArgumentError);
    expect(() => ObjectCode.fromPtxText(42 as never)).toThrow(ProgramError);
    expect(() => resolveLinkerOptions({ arch: 'sm_90', maxRegisters: 'many' }, 'nvJitLink')).toThrow(
      InvalidOptionError,
    );
    expect(() => resolveLinkerOptions({ arch: 'sm_90', maxRegistres: 8 }, 'nvJitLink')).toThrow(UnknownOptionError);
    expect(() => resolveLinkerOptions({ arch: 'sm_90', maxRegistres: 8 }, 'nvJitLink')).toThrow(OptionError);
    expect(() => resolveLinkerOptions({ arch: 'sm_90', maxRegistres: 8 }, 'nvJitLink')).toThrow(ProgramError);
  });

  it('use after close is the bindings’ ClosedResourceError; ClosedError is the same class under its old name', () => {
    expect(ClosedError).toBe(ClosedResourceError);
    expect(ClosedResourceError).toBe(BindingsClosedResourceError);
    const code = ObjectCode.fromPtxText('.version 8.0\n.target sm_90\n.address_size 64\n', { name: 'empty' });
    code.close();
    expect(() => code.load()).toThrow(ClosedResourceError);
    expect(() => code.load()).toThrow(ClosedError);
    expect(() => code.load()).toThrow("ObjectCode 'empty' is closed");
  });
});
