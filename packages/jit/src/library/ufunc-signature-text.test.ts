import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JitError } from '../errors.js';
import { parseGufuncLayout } from './gufunc-layout.js';
import { parseUfuncSignature } from './ufunc-signature.js';

describe("numba's signature and layout text, hostile", () => {
  // a million spaces: each regex that tried every split of the run took minutes (quadratic); now one pass
  const spaces = ' '.repeat(1_000_000);

  it('reads a long run of spaces in one pass: before the result type, inside an array type, in a layout', () => {
    expect(() => parseUfuncSignature(`${spaces}x`)).toThrow(JitError);
    expect(() => parseUfuncSignature(`void(float64[:${spaces}x])`)).toThrow(/an array type is written/);
    expect(parseUfuncSignature(`${spaces}float64(${spaces}float64[:${spaces}]${spaces})${spaces}`)).toMatchObject({ returns: 'f64', args: ['f64'], ranks: [1] });
    expect(() => parseGufuncLayout(`(${spaces}n${spaces}x`)).toThrow(JitError);
  });

  it('property: any text of its tokens parses, or is a JitError that quotes it', () => {
    const token = fc.constantFrom('float64', 'f4', 'int32', 'void', 'x', '(', ')', '[', ']', ':', '::1', ',', ' ', '  ', '\t', 'toString', '__proto__');
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
