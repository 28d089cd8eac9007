import { describe, expect, it } from 'vitest';
import { parseArchitecture } from './architecture.js';
import { InvalidCodeError, InvalidOptionError, UnsupportedArchitectureError } from './errors.js';
import { Program } from './program.js';

const circular: Record<string, unknown> = {};
circular['self'] = circular;

describe('hostile input: Program', () => {
  it('refuses a NUL inside source text, which the compiler would cut the source at', () => {
    expect(() => new Program('__global__ void k() {}\0 garbage', 'c++')).toThrow(InvalidCodeError);
    expect(() => new Program('__global__ void k() {}\0', 'c++')).toThrow(/NUL character at offset 22/);
    expect(() => new Program('.version 8.0\0.target sm_90', 'ptx')).toThrow(InvalidCodeError);
    expect(() => new Program(new TextEncoder().encode('.version 8.0\0.target'), 'ptx')).toThrow(InvalidCodeError);
    // trailing NULs of PTX bytes (a C string's terminator) are not part of the text
    expect(() => new Program(new TextEncoder().encode('.version 8.0\0\0'), 'ptx')).not.toThrow();
    expect(() => new Program('k', 'c++', { headers: { 'a.h': 'x\0y' } })).toThrow(InvalidOptionError);
  });

  it('builds its own messages for bigints, cycles and symbols', () => {
    for (const value of [
      1n,
      circular,
      Symbol('s'),
      {
        toString: () => {
          throw new Error('no');
        },
      },
    ]) {
      expect(() => new Program('k', value as never)).toThrow(InvalidCodeError);
      expect(() => parseArchitecture(value)).toThrow(UnsupportedArchitectureError);
      expect(() => new Program('k', 'c++', { arch: value } as never)).toThrow(/arch/);
    }
  });
});
