import { describe, expect, it } from 'vitest';
import {
  constantLiteral,
  floatLiteral,
  identifierPart,
  integerLiteral,
  memoryType,
  registerType,
  zeroLiteral,
} from './llvm-types.js';
import { LoweringError } from './lowering-error.js';

describe('llvm-types', () => {
  it('writes floats as the hex bits of the equal double, exact for NaN, infinities and -0', () => {
    expect(floatLiteral(1, 'f64')).toBe('0x3FF0000000000000');
    expect(floatLiteral(-0, 'f32')).toBe('0x8000000000000000');
    expect(floatLiteral(Infinity, 'f32')).toBe('0x7FF0000000000000');
    expect(floatLiteral(NaN, 'f64')).toBe('0x7FF8000000000000');
    // 0.1 in f32 is the double nearest to fround(0.1), not to 0.1
    expect(floatLiteral(0.1, 'f32')).toBe('0x3FB99999A0000000');
    expect(floatLiteral(0.1, 'f64')).toBe('0x3FB999999999999A');
  });

  it('writes integers signed at their width, from numbers and bigints', () => {
    expect(integerLiteral(2 ** 32 - 1, 32)).toBe('-1');
    expect(integerLiteral(0xffffffffffffffffn, 64)).toBe('-1');
    expect(integerLiteral(-(2n ** 63n), 64)).toBe('-9223372036854775808');
    expect(integerLiteral(200, 8)).toBe('-56');
    expect(() => integerLiteral(1.5, 32)).toThrow(LoweringError);
  });

  it('writes constants of every type, bools as true and false', () => {
    expect(constantLiteral('bool', true)).toBe('true');
    expect(constantLiteral('bool', 0)).toBe('false');
    expect(constantLiteral('u32', 4294967295)).toBe('-1');
    expect(constantLiteral('f32', true)).toBe('0x3FF0000000000000');
    expect(zeroLiteral('f64')).toBe('0x0000000000000000');
    expect(zeroLiteral('bool')).toBe('false');
  });

  it('spells bool as i1 in registers and i8 in memory; signedness is not in the type', () => {
    expect(registerType('bool')).toBe('i1');
    expect(memoryType('bool')).toBe('i8');
    expect(registerType('u16')).toBe('i16');
    expect(registerType('f32')).toBe('float');
    expect(memoryType('f64')).toBe('double');
  });

  it('makes source names safe for LLVM identifiers', () => {
    expect(identifierPart('a_b$1')).toBe('a_b$1');
    expect(identifierPart('π')).toBe('_');
    expect(identifierPart('')).toBe('_');
  });
});
