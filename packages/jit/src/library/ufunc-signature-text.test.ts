import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JitError } from '../errors.js';
import { parseGufuncLayout } from './gufunc-layout.js';
import { parseUfuncSignature } from './ufunc-signature.js';

describe("numba's signature and layout text, hostile", () => {
  // long runs of spaces: each regex that tried every split of a run was quadratic (a million took minutes); now one pass,
  // and a text past 64 Ki characters is refused before it is read
  const spaces = ' '.repeat(12_000);

  it('reads a long run of spaces in one pass: before the result type, inside an array type, in a layout', () => {
    expect(() => parseUfuncSignature(`${spaces}x`)).toThrow(JitError);
    expect(() => parseUfuncSignature(`void(float64[:${spaces}x])`)).toThrow(/an array type is written/);
    expect(parseUfuncSignature(`${spaces}float64(${spaces}float64[:${spaces}]${spaces})${spaces}`)).toMatchObject({
      returns: 'f64',
      args: ['f64'],
      ranks: [1],
    });
    expect(() => parseGufuncLayout(`(${spaces}n${spaces}x`)).toThrow(JitError);
    expect(() => parseUfuncSignature(`${' '.repeat(1_000_000)}x`)).toThrow(
      "a signature's text has 1000001 characters, more than the 65536 read",
    );
  });

  it('property: any text of its tokens parses, or is a JitError that quotes it', () => {
    const token = fc.constantFrom(
      'float64',
      'f4',
      'int32',
      'void',
      'x',
      '(',
      ')',
      '[',
      ']',
      ':',
      '::1',
      ',',
      ' ',
      '  ',
      '\t',
      'toString',
      '__proto__',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), (tokens) => {
        const text = tokens.join('');
        try {
          const s = parseUfuncSignature(text);
          expect(s.args.length).toBe(s.ranks.length);
        } catch (error) {
          expect(error).toBeInstanceOf(JitError);
        }
      }),
      { seed: 31, numRuns: 500 },
    );
  });
});
