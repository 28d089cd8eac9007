import { describe, expect, it } from 'vitest';
import { bf16, bool, f16, f32, f64, i16, i32, i64, i8, type Scalar, u16, u32, u64, u8 } from './scalar.js';

function bytes(s: Scalar): number[] {
  const view = new DataView(new ArrayBuffer(8));
  s.writeTo(view, 0);
  return [...new Uint8Array(view.buffer, 0, s.size)];
}

describe('scalar wrappers', () => {
  it('write the little-endian bytes of their C type', () => {
    expect(bytes(i32(-2))).toEqual([0xfe, 0xff, 0xff, 0xff]);
    expect(bytes(u16(0x1234))).toEqual([0x34, 0x12]);
    expect(bytes(f32(1))).toEqual([0, 0, 0x80, 0x3f]);
    expect(bytes(f64(-2))).toEqual([0, 0, 0, 0, 0, 0, 0, 0xc0]);
    expect(bytes(i64(-1n))).toEqual(Array(8).fill(0xff));
    expect(bytes(u64(2n ** 63n))).toEqual([0, 0, 0, 0, 0, 0, 0, 0x80]);
    expect(bytes(i8(-1))).toEqual([0xff]);
    expect(bytes(u8(200))).toEqual([200]);
    expect(bytes(i16(-1))).toEqual([0xff, 0xff]);
    expect(bytes(u32(2 ** 32 - 1))).toEqual([0xff, 0xff, 0xff, 0xff]);
    expect(bytes(bool(true))).toEqual([1]);
  });

  it('round binary16 to nearest even, with infinities and subnormals', () => {
    const half = (x: number) => {
      const b = bytes(f16(x));
      return b[0]! | (b[1]! << 8);
    };
    expect(half(1)).toBe(0x3c00);
    expect(half(-2)).toBe(0xc000);
    expect(half(65504)).toBe(0x7bff);
    expect(half(1e6)).toBe(0x7c00);
    expect(half(2 ** -24)).toBe(0x0001);
    expect(half(1 + 2 ** -11)).toBe(0x3c00); // a tie rounds to even
    expect(half(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(half(Number.NaN) & 0x7c00).toBe(0x7c00);
    expect(half(1 + 2 ** -11 + 2 ** -40)).toBe(0x3c01); // one rounding from the double: not a tie, though it is one in f32
  });

  it('write bfloat16 as the high half of the f32 rounded to nearest even', () => {
    const brain = (x: number) => {
      const b = bytes(bf16(x));
      return b[0]! | (b[1]! << 8);
    };
    expect(bf16(1).size).toBe(2);
    expect(brain(1)).toBe(0x3f80);
    expect(brain(-2)).toBe(0xc000);
    expect(brain(1 + 2 ** -8)).toBe(0x3f80); // a tie rounds to even
    expect(brain(1 + 2 ** -8 + 2 ** -40)).toBe(0x3f81);
    expect(brain(3e38)).toBe(0x7f62);
    expect(brain(1e39)).toBe(0x7f80);
  });

  it('refuse values that do not fit, by name', () => {
    expect(() => i32(2 ** 31)).toThrow(RangeError);
    expect(() => i32(1.5)).toThrow('i32() takes an integer, got 1.5');
    expect(() => u8(-1)).toThrow(RangeError);
    expect(() => i64(2n ** 63n)).toThrow(RangeError);
    expect(() => u64(1.5)).toThrow(TypeError);
    expect(() => f32('1' as unknown as number)).toThrow('f32() takes a number, got string');
    expect(() => bool(1 as unknown as boolean)).toThrow(TypeError);
  });
});
