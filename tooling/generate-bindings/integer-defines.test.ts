import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JS modules of the generator, with no type declarations
import { integerDefines } from './c-declarations.mjs';

interface Define {
  value: number | bigint;
  cast: string | undefined;
  body: string;
}
type Options = {
  names?: RegExp;
  known?: Record<string, number>;
  castKind?: (type: string) => 'number' | 'bigint' | undefined;
};
const read = integerDefines as (header: string, options?: Options) => Map<string, Define>;

// What the generator's castKind answers for cuda.h's types: CUdevice is an int, CUstream and void* are pointers.
const CAST_KINDS: Readonly<Record<string, 'number' | 'bigint'>> = {
  CUdevice: 'number',
  CUstream: 'bigint',
  'void*': 'bigint',
};
const kindOf = (type: string) => CAST_KINDS[type];
const values = (header: string, options: Options = {}) =>
  Object.fromEntries([...read(header, { castKind: kindOf, ...options })].map(([name, d]) => [name, d.value]));

describe("the integer #defines of a header (driver.constants' source)", () => {
  it('reads literals in decimal and hex, with C suffixes and trailing comments', () => {
    expect(
      values('#define CU_A 64\n#define CU_B 0x02 /**< doc */\n#define CU_C 0x10u // doc\n#  define CU_D 7ULL\n'),
    ).toEqual({ CU_A: 64, CU_B: 2, CU_C: 16, CU_D: 7 });
  });

  it('evaluates expressions of earlier defines and of known enum members', () => {
    const header =
      '#define CU_A 0x1\n#define CU_B (CU_A << 4)\n#define CU_C (CU_A | CU_B | CU_ENUM_MEMBER)\n#define CU_ALIAS CU_ENUM_MEMBER\n#define CU_NEG -1\n';
    expect(values(header, { known: { CU_ENUM_MEMBER: 0x100 } })).toEqual({
      CU_A: 1,
      CU_B: 16,
      CU_C: 0x111,
      CU_ALIAS: 0x100,
      CU_NEG: -1,
    });
  });

  it('types a whole-body cast by what its type holds: a number for an int, a bigint for a pointer or handle', () => {
    const header =
      '#define CU_DEVICE_CPU ((CUdevice)-1)\n#define CU_STREAM_LEGACY ((CUstream)0x1)\n#define CU_END_AS_INT 0x00\n#define CU_END ((void*)CU_END_AS_INT)\n#define CU_BARE (CUstream)2\n';
    const defines = read(header, { castKind: kindOf });
    expect(Object.fromEntries([...defines].map(([n, d]) => [n, d.value]))).toEqual({
      CU_DEVICE_CPU: -1,
      CU_STREAM_LEGACY: 1n,
      CU_END_AS_INT: 0,
      CU_END: 0n,
      CU_BARE: 2n,
    });
    expect(defines.get('CU_STREAM_LEGACY')).toEqual({ value: 1n, cast: 'CUstream', body: '((CUstream)0x1)' });
  });

  it('makes a bigint of a value past the safe integers', () => {
    expect(values('#define CU_ALL_ONES 0xffffffffffffffffULL\n#define CU_SMALL 0xffffffffULL\n')).toEqual({
      CU_ALL_ONES: 0xffffffffffffffffn,
      CU_SMALL: 0xffffffff,
    });
  });

  it('leaves out function-like macros, API renames, empty and non-integer bodies, and casts to unknown types', () => {
    const header = [
      '#define CU_F(x) ((x) + 1)',
      '#define cuMemAlloc cuMemAlloc_v2',
      '#define CU_RENAME cuMemAlloc_v2',
      '#define CU_UUID_HAS_BEEN_DEFINED',
      '#define CUDA_CB __stdcall',
      '#define CU_TEXT "text"',
      '#define CU_FLOAT 1.5',
      '#define CU_UNKNOWN_CAST ((CUwhatever)1)',
      '#define CU_INNER_CAST (1 + (CUstream)2)',
      '#define CU_CONDITION (1 ? 2 : 3)',
      '#define CU_CONTINUED 1 \\',
      '/* #define CU_COMMENTED 1 */',
      '#define OTHER_PREFIX 1',
    ].join('\n');
    expect(values(header, { names: /^CU(DA)?_/ })).toEqual({});
  });

  it('refuses a name defined twice with two values, and a negative value from an unsigned literal', () => {
    expect(() => read('#define CU_A 1\n#define CU_A 2\n')).toThrow(/CU_A has two values/);
    expect(values('#define CU_A 1\n#define CU_A 0x1\n')).toEqual({ CU_A: 1 }); // the same value twice (#if branches) is one define
    expect(() => read('#define CU_MASK (~0u)\n')).toThrow(/unsigned literal of unknown width/);
  });
});
