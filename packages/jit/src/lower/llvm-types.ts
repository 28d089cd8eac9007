// How the kernel language's scalar types are spelled in NVVM IR (LLVM 7
// text), and how their constants are written.
import { bfloat16Bits, float16Bits } from '@cuda-js/core';
import { bitsOf, isFloat, type ScalarName } from '../typing/jit-types.js';
import { LoweringError } from './lowering-error.js';

const REGISTER_TYPES: Readonly<Record<ScalarName, string>> = {
  bool: 'i1',
  i8: 'i8',
  u8: 'i8',
  i16: 'i16',
  u16: 'i16',
  i32: 'i32',
  u32: 'i32',
  i64: 'i64',
  u64: 'i64',
  f16: 'half',
  // LLVM 7 has no bfloat: a bf16 is its bits (see half-float-lowering.ts).
  bf16: 'i16',
  f32: 'float',
  f64: 'double',
};

/** The type of a value of `t` in a register (bool is i1; signedness lives in the operations, not the type). */
export function registerType(t: ScalarName): string {
  return REGISTER_TYPES[t];
}

/** The type of `t` in memory and as a kernel parameter: bool is a byte there, as the ABI says. */
export function memoryType(t: ScalarName): string {
  return t === 'bool' ? 'i8' : REGISTER_TYPES[t];
}

/** Bytes of `t` in memory, which is also its natural alignment. */
export function memoryBytes(t: ScalarName): number {
  return t === 'bool' ? 1 : bitsOf(t) / 8;
}

const scratch = new DataView(new ArrayBuffer(8));

/**
 * A float constant as LLVM wants it: the hexadecimal bits of the IEEE double
 * with the same value (for f32 too), which is exact for every value, NaN and
 * the infinities included, where decimal text would need to round-trip; an
 * f16 (`half`) as its own bits, `0xH3C00`.
 */
export function floatLiteral(value: number, t: 'f16' | 'f32' | 'f64'): string {
  if (t === 'f16') return `0xH${float16Bits(value).toString(16).toUpperCase().padStart(4, '0')}`;
  scratch.setFloat64(0, t === 'f32' ? Math.fround(value) : value);
  const high = scratch.getUint32(0).toString(16).padStart(8, '0');
  const low = scratch.getUint32(4).toString(16).padStart(8, '0');
  return `0x${(high + low).toUpperCase()}`;
}

/** An integer constant, written signed at the type's width (LLVM's parser reads it so for every width). */
export function integerLiteral(value: number | bigint, bits: number): string {
  if (typeof value === 'number' && !Number.isInteger(value))
    throw new LoweringError(`integer constant ${value} is not an integer`);
  return BigInt.asIntN(bits, BigInt(value)).toString();
}

/** A constant of `t` in register form. */
export function constantLiteral(t: ScalarName, value: number | bigint | boolean): string {
  if (t === 'bool') {
    if (typeof value === 'boolean') return value ? 'true' : 'false';
    return value !== 0 && value !== 0n ? 'true' : 'false';
  }
  if (typeof value === 'boolean') return integerOrFloat(t, value ? 1 : 0);
  return integerOrFloat(t, value);
}

function integerOrFloat(t: ScalarName, value: number | bigint): string {
  if (t === 'bf16') return integerLiteral(bfloat16Bits(Number(value)), 16);
  if (isFloat(t)) return floatLiteral(Number(value), t as 'f16' | 'f32' | 'f64');
  return integerLiteral(value, bitsOf(t));
}

/** The zero of `t` in register form (what locals start as). */
export function zeroLiteral(t: ScalarName): string {
  return constantLiteral(t, t === 'bool' ? false : 0);
}

/** A name from the user's source made safe for an LLVM local identifier (`%name`). */
export function identifierPart(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_$]/g, '_');
  return safe.length > 0 ? safe : '_';
}

/**
 * NVPTX's address spaces: 0 generic (kernel parameters' pointers, allocas),
 * 1 global, 3 shared, 4 constant.
 */
export type AddressSpace = 0 | 1 | 3 | 4;

/** A pointer type to `t` (an LLVM type) in `space`: `float*`, `float addrspace(3)*`. */
export function pointerType(t: string, space: AddressSpace): string {
  return space === 0 ? `${t}*` : `${t} addrspace(${space})*`;
}

/** The integer type of `t`'s width (for floats: the type of their bits). */
export function bitsType(t: ScalarName): string {
  return `i${bitsOf(t)}`;
}
