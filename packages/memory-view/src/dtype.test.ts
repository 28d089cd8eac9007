import { describe, expect, it } from 'vitest';
import { ALL_DTYPES, DLDataTypeCode, DType, dtype, dtypeFromTypestr, dtypeOf, UnknownDTypeError } from './index.js';

describe('dtypes: every DLPack 1.3 type code', () => {
  // [code, bits, name, itemsize, typestr]: written from the DLPack 1.3 header and numpy's typestr rules.
  const table: [number, number, string, number, string | undefined][] = [
    [0, 8, 'int8', 1, '|i1'],
    [0, 16, 'int16', 2, '<i2'],
    [0, 32, 'int32', 4, '<i4'],
    [0, 64, 'int64', 8, '<i8'],
    [1, 8, 'uint8', 1, '|u1'],
    [1, 16, 'uint16', 2, '<u2'],
    [1, 32, 'uint32', 4, '<u4'],
    [1, 64, 'uint64', 8, '<u8'],
    [2, 16, 'float16', 2, '<f2'],
    [2, 32, 'float32', 4, '<f4'],
    [2, 64, 'float64', 8, '<f8'],
    [3, 64, 'handle', 8, '|V8'],
    [4, 16, 'bfloat16', 2, '|V2'],
    [5, 32, 'complex32', 4, '|V4'],
    [5, 64, 'complex64', 8, '<c8'],
    [5, 128, 'complex128', 16, '<c16'],
    [6, 8, 'bool', 1, '|b1'],
    [7, 8, 'float8_e3m4', 1, '|V1'],
    [8, 8, 'float8_e4m3', 1, '|V1'],
    [9, 8, 'float8_e4m3b11fnuz', 1, '|V1'],
    [10, 8, 'float8_e4m3fn', 1, '|V1'],
    [11, 8, 'float8_e4m3fnuz', 1, '|V1'],
    [12, 8, 'float8_e5m2', 1, '|V1'],
    [13, 8, 'float8_e5m2fnuz', 1, '|V1'],
    [14, 8, 'float8_e8m0fnu', 1, '|V1'],
    [15, 6, 'float6_e2m3fn', 0.75, undefined],
    [16, 6, 'float6_e3m2fn', 0.75, undefined],
    [17, 4, 'float4_e2m1fn', 0.5, undefined],
  ];

  it.each(table)('code %i with %i bits is %s', (code, bits, name, itemsize, typestr) => {
    const t = dtypeOf(code, bits);
    expect(t).toBeInstanceOf(DType);
    expect({
      code: t.code,
      bits: t.bits,
      lanes: t.lanes,
      name: t.name,
      itemsize: t.itemsize,
      typestr: t.typestr,
    }).toEqual({
      code,
      bits,
      lanes: 1,
      name,
      itemsize,
      typestr,
    });
    expect(dtype(name)).toBe(t); // canonical: one object per triple
    expect(dtype({ code, bits, lanes: 1 })).toBe(t);
    expect(t.isSubByte).toBe(!Number.isInteger(itemsize));
  });

  it('covers every code of the DLDataTypeCode table, and ALL_DTYPES lists them all', () => {
    const codes = new Set(ALL_DTYPES.map((t) => t.code));
    for (const code of Object.values(DLDataTypeCode)) expect(codes.has(code)).toBe(true);
    expect(ALL_DTYPES.map((t) => t.name)).toEqual(table.map((r) => r[2]));
  });

  it('maps every numpy typestr back to its dtype, with either byte-order mark', () => {
    for (const [, , name, , typestr] of table) {
      if (typestr === undefined || typestr.includes('V')) continue;
      expect(dtypeFromTypestr(typestr)).toBe(dtype(name));
      expect(dtypeFromTypestr(`=${typestr.slice(1)}`)).toBe(dtype(name));
    }
    expect(dtypeFromTypestr('<u1')).toBe(dtype('uint8'));
  });

  it('gives vector types with lanes', () => {
    const f4 = dtypeOf(DLDataTypeCode.Float, 32, 4);
    expect([f4.name, f4.itemsize, f4.lanes, f4.typestr]).toEqual(['float32x4', 16, 4, '|V16']);
    expect(dtype('float32x4')).toBe(f4);
    expect(dtype('float32').withLanes(4)).toBe(f4);
    const fp4x2 = dtypeOf(DLDataTypeCode.Float4_e2m1fn, 4, 2);
    expect([fp4x2.itemsize, fp4x2.isSubByte, fp4x2.typestr]).toEqual([1, false, '|V1']);
  });

  it('refuses unknown codes, widths and lanes with UnknownDTypeError', () => {
    expect(() => dtypeOf(18, 8)).toThrow(UnknownDTypeError);
    expect(() => dtypeOf(18, 8)).toThrow(/type code 18 is not a DLPack 1.3 code/);
    expect(() => dtypeOf(2, 8)).toThrow(/code 2 takes bits 16\/32\/64, not 8/);
    expect(() => dtypeOf(0, 12, 2)).toThrow(UnknownDTypeError);
    expect(() => dtypeOf(2, 32, 0)).toThrow(/lanes must be an integer/);
    expect(() => dtype('float128')).toThrow(/unknown dtype name 'float128'/);
    expect(() => dtype('nope')).toThrow(UnknownDTypeError);
  });

  it('refuses big-endian, opaque and malformed typestrs', () => {
    expect(() => dtypeFromTypestr('>f4')).toThrow(/big-endian/);
    expect(() => dtypeFromTypestr('|V2')).toThrow(/opaque bytes/);
    expect(() => dtypeFromTypestr('<f3')).toThrow(UnknownDTypeError);
    expect(() => dtypeFromTypestr('float32')).toThrow(UnknownDTypeError);
  });

  it('prints as its name', () => {
    expect(String(dtype('bfloat16'))).toBe('bfloat16');
    expect(JSON.stringify({ t: dtype('int8') })).toBe('{"t":"int8"}');
  });
});
