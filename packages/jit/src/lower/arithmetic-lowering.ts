// Unary, binary and compare operators, with typed-ir.ts's rules: integers
// wrap (no nsw/nuw flags), division never reaches LLVM's undefined cases,
// shift amounts are taken modulo the width, float compares are ordered
// except `ne`. f16 computes as `half` (`rem` in f32), bf16 in f32 rounded
// back after each operation (half-float-lowering.ts).
import { bitsOf, isFloat, isSigned, type ScalarName } from '../typing/jit-types.js';
import type { BinaryOperator, CompareOperator, UnaryOperator } from '../typing/typed-ir.js';
import { narrowFromFloat, widenToFloat } from './half-float-lowering.js';
import { floatLiteral, registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { libdeviceFunction } from './libdevice-function.js';

export function lowerUnary(ctx: LoweringContext, operator: UnaryOperator, operand: TypedValue): TypedValue {
  const b = ctx.builder;
  const type = operand.type;
  const t = registerType(type);
  const result = (ref: string): TypedValue => ({ ref, type });
  switch (operator) {
    case 'neg':
      if (type === 'bool') break;
      if (type === 'bf16') return result(b.compute(`xor i16 ${operand.ref}, -32768`)); // the sign bit
      // LLVM 7 has no fneg: subtracting from -0 flips the sign of every value, zeros included.
      if (isFloat(type))
        return result(b.compute(`fsub ${t} ${floatLiteral(-0, type as 'f16' | 'f32' | 'f64')}, ${operand.ref}`));
      return result(b.compute(`sub ${t} 0, ${operand.ref}`));
    case 'not':
      if (type !== 'bool') break;
      return result(b.compute(`xor i1 ${operand.ref}, true`));
    case 'bitnot':
      if (isFloat(type) || type === 'bool') break;
      return result(b.compute(`xor ${t} ${operand.ref}, -1`));
  }
  throw new LoweringError(`unary '${operator}' on ${type}`);
}

const FLOAT_OPCODES: Partial<Record<BinaryOperator, string>> = { add: 'fadd', sub: 'fsub', mul: 'fmul', div: 'fdiv' };
const INTEGER_OPCODES: Partial<Record<BinaryOperator, string>> = {
  add: 'add',
  sub: 'sub',
  mul: 'mul',
  and: 'and',
  or: 'or',
  xor: 'xor',
};
const BOOLEAN_OPCODES: Partial<Record<BinaryOperator, string>> = { and: 'and', or: 'or', xor: 'xor' };

export function lowerBinary(
  ctx: LoweringContext,
  operator: BinaryOperator,
  left: TypedValue,
  right: TypedValue,
): TypedValue {
  const b = ctx.builder;
  const type = left.type;
  if (right.type !== type) throw new LoweringError(`binary '${operator}' on ${left.type} and ${right.type}`);
  const t = registerType(type);
  const result = (ref: string): TypedValue => ({ ref, type });
  if (type === 'bf16' || (type === 'f16' && operator === 'rem')) {
    // f32 holds the exact operands; its result, rounded back, is the one rounding of the exact one (fmod is exact)
    const wide = lowerBinary(
      ctx,
      operator,
      { ref: widenToFloat(ctx, left), type: 'f32' },
      { ref: widenToFloat(ctx, right), type: 'f32' },
    );
    return result(narrowFromFloat(ctx, wide.ref, type));
  }
  if (isFloat(type)) {
    const opcode = FLOAT_OPCODES[operator];
    if (opcode) return result(b.compute(`${opcode} ${t} ${left.ref}, ${right.ref}`));
    if (operator === 'rem') {
      // LLVM's frem lowers on NVPTX to an inexact sequence; libdevice's fmod is C's fmod.
      const fn = libdeviceFunction(ctx, 'fmod', type);
      return result(b.compute(`call ${t} ${fn}(${t} ${left.ref}, ${t} ${right.ref})`));
    }
    throw new LoweringError(`binary '${operator}' on ${type}`);
  }
  if (type === 'bool') {
    const opcode = BOOLEAN_OPCODES[operator];
    if (!opcode) throw new LoweringError(`binary '${operator}' on bool`);
    return result(b.compute(`${opcode} i1 ${left.ref}, ${right.ref}`));
  }
  const opcode = INTEGER_OPCODES[operator];
  if (opcode) return result(b.compute(`${opcode} ${t} ${left.ref}, ${right.ref}`));
  switch (operator) {
    case 'div':
    case 'rem':
      return result(integerDivision(ctx, operator, type, left.ref, right.ref));
    case 'shl':
    case 'shr':
    case 'ushr': {
      // LLVM gives poison for amounts ≥ the width; JavaScript takes them modulo the width.
      const amount = b.compute(`and ${t} ${right.ref}, ${bitsOf(type) - 1}`);
      const opcode = operator === 'shl' ? 'shl' : operator === 'shr' && isSigned(type) ? 'ashr' : 'lshr';
      return result(b.compute(`${opcode} ${t} ${left.ref}, ${amount}`));
    }
  }
  throw new LoweringError(`binary '${operator}' on ${type}`);
}

// sdiv/udiv/srem/urem are undefined behaviour for a zero divisor, and sdiv
// and srem for MIN / -1, which LLVM's optimizer may exploit. The divisor is
// replaced by 1 in those cases, so the instruction is always defined:
// MIN / -1 then wraps to MIN (as the rule says, -MIN wraps), x % -1 is 0,
// and a zero divisor gives x / 0 = x, x % 0 = 0 (the simulator raises an
// error there instead; the GPU cannot).
function integerDivision(
  ctx: LoweringContext,
  operator: 'div' | 'rem',
  type: ScalarName,
  dividend: string,
  divisor: string,
): string {
  const b = ctx.builder;
  const t = registerType(type);
  const isZero = b.compute(`icmp eq ${t} ${divisor}, 0`);
  if (!isSigned(type)) {
    const safe = b.compute(`select i1 ${isZero}, ${t} 1, ${t} ${divisor}`);
    return b.compute(`${operator === 'div' ? 'udiv' : 'urem'} ${t} ${dividend}, ${safe}`);
  }
  const isMinusOne = b.compute(`icmp eq ${t} ${divisor}, -1`);
  const unsafe = b.compute(`or i1 ${isZero}, ${isMinusOne}`);
  const safe = b.compute(`select i1 ${unsafe}, ${t} 1, ${t} ${divisor}`);
  if (operator === 'rem') return b.compute(`srem ${t} ${dividend}, ${safe}`);
  const quotient = b.compute(`sdiv ${t} ${dividend}, ${safe}`);
  const negated = b.compute(`sub ${t} 0, ${dividend}`);
  return b.compute(`select i1 ${isMinusOne}, ${t} ${negated}, ${t} ${quotient}`);
}

// Float compares are ordered (false with a NaN) except `ne` (true with one).
const FLOAT_PREDICATES: Readonly<Record<CompareOperator, string>> = {
  eq: 'oeq',
  ne: 'une',
  lt: 'olt',
  le: 'ole',
  gt: 'ogt',
  ge: 'oge',
};
const SIGNED_PREDICATES: Readonly<Record<CompareOperator, string>> = {
  eq: 'eq',
  ne: 'ne',
  lt: 'slt',
  le: 'sle',
  gt: 'sgt',
  ge: 'sge',
};
const UNSIGNED_PREDICATES: Readonly<Record<CompareOperator, string>> = {
  eq: 'eq',
  ne: 'ne',
  lt: 'ult',
  le: 'ule',
  gt: 'ugt',
  ge: 'uge',
};

export function lowerCompare(
  ctx: LoweringContext,
  operator: CompareOperator,
  left: TypedValue,
  right: TypedValue,
): TypedValue {
  const type = left.type;
  if (right.type !== type) throw new LoweringError(`compare '${operator}' on ${left.type} and ${right.type}`);
  return { ref: compareRefs(ctx, operator, type, left.ref, right.ref), type: 'bool' };
}

/** The i1 of `left <operator> right`, both of `type` (bool compares as unsigned: false < true). */
export function compareRefs(
  ctx: LoweringContext,
  operator: CompareOperator,
  type: ScalarName,
  left: string,
  right: string,
): string {
  if (type === 'bf16')
    return compareRefs(
      ctx,
      operator,
      'f32',
      widenToFloat(ctx, { ref: left, type }),
      widenToFloat(ctx, { ref: right, type }),
    );
  const t = registerType(type);
  if (isFloat(type)) return ctx.builder.compute(`fcmp ${FLOAT_PREDICATES[operator]} ${t} ${left}, ${right}`);
  const predicate = (isSigned(type) ? SIGNED_PREDICATES : UNSIGNED_PREDICATES)[operator];
  return ctx.builder.compute(`icmp ${predicate} ${t} ${left}, ${right}`);
}
