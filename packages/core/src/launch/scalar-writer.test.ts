import { describe, expect, it } from 'vitest';
import { f16, i16, u16 } from './scalar.js';
import { scalarMismatch, writeInt64, writeScalarValue } from './scalar-writer.js';
import type { ScalarType } from './scalar.js';

function written(type: ScalarType, value: unknown): number[] | false {
  const view = new DataView(new ArrayBuffer(8));
  if (!writeScalarValue(view, 0, type, value)) return false;
  return [...new Uint8Array(view.buffer)];
}

describe('writeInt64', () => {
  it("writes safe integers as two's-complement 64-bit values, as BigInt would", () => {
    for (const n of [
      0,
      1,
      -1,
      2 ** 32,
      -(2 ** 32),
      2 ** 32 - 1,
      -(2 ** 31),
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      123456789012,
    ]) {
      const view = new DataView(new ArrayBuffer(8));
      writeInt64(view, 0, n);
      expect(view.getBigInt64(0, true)).toBe(BigInt(n));
    }
  });
});

describe('writeScalarValue', () => {
  it('takes each integer type to its bounds and no further', () => {
    const bounds: [ScalarType, number, number][] = [
      ['i8', -128, 127],
      ['u8', 0, 255],
      ['i16', -32768, 32767],
      ['u16', 0, 65535],
      ['i32', -(2 ** 31), 2 ** 31 - 1],
      ['u32', 0, 2 ** 32 - 1],
    ];
    for (const [type, lo, hi] of bounds) {
      expect(written(type, lo)).not.toBe(false);
      expect(written(type, hi)).not.toBe(false);
      expect(written(type, lo - 1)).toBe(false);
      expect(written(type, hi + 1)).toBe(false);
      expect(written(type, 0.5)).toBe(false);
      expect(written(type, Number.NaN)).toBe(false);
    }
    expect(written('i64', 2n ** 63n)).toBe(false);
    expect(written('i64', -(2n ** 63n))).toEqual([0, 0, 0, 0, 0, 0, 0, 0x80]);
    expect(written('u64', 2 ** 53)).toBe(false); // not a safe integer: say 2n ** 53n
    expect(written('u64', -1)).toBe(false);
  });

  it('writes a Scalar of another type as the slot type, where its value fits', () => {
    expect(written('f32', i16(-2))).toEqual([0, 0, 0, 0xc0, 0, 0, 0, 0]);
    expect(written('u8', u16(200))).toEqual([200, 0, 0, 0, 0, 0, 0, 0]);
    expect(written('u8', u16(300))).toBe(false);
    expect(written('f16', 1)).toEqual([0, 0x3c, 0, 0, 0, 0, 0, 0]);
    expect(written('bf16', -1.5)).toEqual([0xc0, 0xbf, 0, 0, 0, 0, 0, 0]);
    expect(written('f64', f16(0.5))).toEqual([...new Uint8Array(new Float64Array([0.5]).buffer)]);
    expect(written('f64', 2n ** 60n)).toBe(false); // not exact as a number
    expect(written('f64', 3n)).toEqual([...new Uint8Array(new Float64Array([3]).buffer)]);
  });

  it("says why, in Scalar.of's words", () => {
    expect(scalarMismatch('u16', 70000)).toBe('70000 cannot be passed as u16: u16(): 70000 is outside [0, 65535]');
    expect(scalarMismatch('i32', null)).toContain('null cannot be passed as i32; pass a number');
    expect(scalarMismatch('f32', {})).toContain('an Object cannot be passed as f32');
  });
});
