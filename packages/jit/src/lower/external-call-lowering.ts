// Calls of linked device code (typed-ir.ts's ExternalCall): the symbol is
// declared once in the module, with C's ABI for its types as clang (and so
// NVRTC) passes them, so that the PTX prototype libNVVM writes for the call
// matches the one of an `extern "C" __device__` definition:
// - bool is `zeroext i1` (C's `bool`: a byte, 0 or 1, widened to 32 bits in
//   the PTX parameter);
// - i8 and i16 are `signext`, u8 and u16 `zeroext` (also widened to 32 bits);
// - i32, u32, i64, u64, f32 and f64 are passed as they are;
// - an array is a generic pointer to its element 0 (`float*`; `i8*` for
//   bool), cast from its address space where it is not generic (shared,
//   const).
// The same attributes are written at the call, as LLVM wants them to match.
import { isArrayType, type JitType, type ScalarName } from '../typing/jit-types.js';
import type { Expr, ExternalCall } from '../typing/typed-ir.js';
import type { ArrayAccess } from './array-addressing.js';
import { memoryType, pointerType, registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';

/** A lowered argument: a scalar's value, or the array whose element 0 is passed. */
export type LoweredArgument =
  | { readonly kind: 'value'; readonly value: TypedValue }
  | { readonly kind: 'pointer'; readonly array: ArrayAccess };

/** The extension attribute C's ABI gives a scalar type, or '' for none. */
function extension(t: ScalarName): string {
  switch (t) {
    case 'bool':
    case 'u8':
    case 'u16':
      return 'zeroext';
    case 'i8':
    case 'i16':
      return 'signext';
    default:
      return '';
  }
}

/** The type of a parameter in the declaration, with its attribute: `i1 zeroext`, `float*`. */
function parameterType(t: JitType): string {
  if (isArrayType(t)) return `${memoryType(t.dtype)}*`;
  const ext = extension(t);
  return ext ? `${registerType(t)} ${ext}` : registerType(t);
}

/** The result type with its attribute, as `declare` and `call` write it: `zeroext i1`, `float`. */
function resultType(t: ScalarName): string {
  const ext = extension(t);
  return ext ? `${ext} ${registerType(t)}` : registerType(t);
}

const SYMBOL = /^[A-Za-z_$][\w$]*$/;

/** The entry of `ctx.kernel.externals` that a call names, checked against the call. */
function externalOf(ctx: LoweringContext, call: Extract<Expr, { op: 'call' }>): ExternalCall {
  const external = ctx.kernel.externals?.[call.external];
  if (!external) throw new LoweringError(`call of external ${call.external}, which the kernel does not have`);
  if (external.symbol !== call.symbol)
    throw new LoweringError(`call of '${call.symbol}' names external ${call.external}, which is '${external.symbol}'`);
  if (!SYMBOL.test(external.symbol))
    throw new LoweringError(`external symbol ${JSON.stringify(external.symbol)} is not an identifier`);
  if (external.symbol === ctx.kernel.symbol)
    throw new LoweringError(`external symbol '${external.symbol}' is the kernel's own`);
  if (external.returns !== call.type)
    throw new LoweringError(`call of '${call.symbol}' of type ${call.type}; it returns ${external.returns}`);
  return external;
}

/** One argument as the call passes it: `float %t3`, `i8 signext %t4`, `float* %p`. */
function argumentText(
  ctx: LoweringContext,
  symbol: string,
  k: number,
  declared: JitType,
  arg: LoweredArgument | undefined,
): string {
  const where = `argument ${k + 1} of '${symbol}'`;
  if (arg === undefined) throw new LoweringError(`${where} is missing`);
  if (isArrayType(declared)) {
    if (arg.kind !== 'pointer')
      throw new LoweringError(`${where} is an array (${declared.name}), given a ${arg.value.type}`);
    const { array } = arg;
    if (array.dtype !== declared.dtype || array.ndim !== declared.ndim)
      throw new LoweringError(`${where} is ${declared.name}, given ${array.description}`);
    const t = memoryType(array.dtype);
    const generic = `${t}*`;
    if (array.addressSpace === 0) return `${generic} ${array.base}`;
    const cast = ctx.builder.compute(`addrspacecast ${pointerType(t, array.addressSpace)} ${array.base} to ${generic}`);
    return `${generic} ${cast}`;
  }
  if (arg.kind !== 'value') throw new LoweringError(`${where} is a ${declared}, given ${arg.array.description}`);
  if (arg.value.type !== declared) throw new LoweringError(`${where} is a ${declared}, given a ${arg.value.type}`);
  return `${parameterType(declared)} ${arg.value.ref}`;
}

/** A call of linked code with its arguments lowered (in order); gives its result. */
export function lowerExternalCall(
  ctx: LoweringContext,
  call: Extract<Expr, { op: 'call' }>,
  args: readonly LoweredArgument[],
): TypedValue {
  const external = externalOf(ctx, call);
  if (args.length !== external.args.length)
    throw new LoweringError(
      `'${call.symbol}' takes ${external.args.length} argument(s), the call gives ${args.length}`,
    );
  const fn = ctx.declarations.declare(external.symbol, resultType(external.returns), external.args.map(parameterType));
  const passed = external.args.map((declared, k) => argumentText(ctx, call.symbol, k, declared, args[k]));
  const ref = ctx.builder.compute(`call ${resultType(external.returns)} ${fn}(${passed.join(', ')})`);
  return { ref, type: external.returns };
}
