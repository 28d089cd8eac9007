// The signatures of the ufunc builders, as numba writes them
// ('float32(float32, float32)', 'void(float32[:], float32, float32[:])')
// or as cuda-js's other signatures do ({ args: [f32, f32], returns: f32 }).
import { Scalar } from '@cuda-js/core';
import { JitError, KernelArgumentError } from '../errors.js';
import type { Operand } from './ufunc-operands.js';
import { isArrayType, SCALARS, type ScalarName } from '../typing/jit-types.js';
import { parseNumbaSignature } from '../typing/numba-signature.js';
import { resolveSignature, type TypeToken } from '../typing/signature.js';

/** A signature as the ufunc builders take it: numba's text, or the types as tokens (`f32`, `'f32'`). */
export type UfuncSignatureSpec = string | { readonly args: readonly TypeToken[]; readonly returns?: TypeToken };

/** A parsed signature: each argument's element type and rank (0 for a scalar, n for `[:, ...]`), and the result type where there is one. */
export interface UfuncSignature {
  readonly args: readonly ScalarName[];
  /** Per argument, the rank its text gave (`float32[:]`: 1), or undefined where it said none (tokens, plain names). */
  readonly ranks: readonly (number | undefined)[];
  readonly returns: ScalarName | undefined;
  /** As written, for messages. */
  readonly text: string;
}

function scalarToken(token: TypeToken, text: string): ScalarName {
  const [t] = resolveSignature([token]);
  if (t === undefined || isArrayType(t))
    throw new JitError(`signature ${text}: give the element types (f32, i32, ...); ranks come from the layout`);
  return t;
}

/**
 * Reads one signature.
 *
 * @throws {JitError} for text that is not a signature, or an unknown type name
 */
export function parseUfuncSignature(spec: UfuncSignatureSpec): UfuncSignature {
  if (typeof spec === 'string') {
    const { args, returns, text } = parseNumbaSignature(spec);
    return { args: args.map((a) => a.scalar), ranks: args.map((a) => a.rank), returns, text };
  }
  if (spec === null || typeof spec !== 'object' || !Array.isArray(spec.args)) {
    throw new JitError(
      `a signature is numba's text ('float32(float32, float32)') or { args: [f32, f32], returns: f32 }; got ${spec === null ? 'null' : typeof spec}`,
    );
  }
  const shown = `{ args: [${spec.args.map(String).join(', ')}] }`;
  const args = spec.args.map((t) => scalarToken(t, shown));
  return {
    args,
    ranks: args.map(() => undefined),
    returns: spec.returns === undefined ? undefined : scalarToken(spec.returns, shown),
    text: shown,
  };
}

/** Whether numpy casts a `from` element to `to` safely (no value is lost): how the builders choose among signatures. */
export function castsSafely(from: ScalarName, to: ScalarName): boolean {
  if (from === to || from === 'bool') return true;
  const f = SCALARS[from];
  const t = SCALARS[to];
  if (to === 'bool') return false;
  if (!f.isFloat) {
    if (t.isFloat) return f.bits <= (to === 'f64' ? 32 : to === 'f32' ? 16 : 8);
    if (f.isSigned) return t.isSigned && t.bits >= f.bits;
    return t.isSigned ? t.bits > f.bits : t.bits >= f.bits;
  }
  if (!t.isFloat) return false;
  // f16 and bf16 each widen into f32 and f64, not into each other
  return t.bits > f.bits;
}

/** The kinds of numpy's 'same_kind' casting, in the order it casts along: bool, unsigned, signed, float. */
function kindRank(t: ScalarName): number {
  if (t === 'bool') return 0;
  const s = SCALARS[t];
  return s.isFloat ? 3 : s.isSigned ? 2 : 1;
}

/**
 * Whether numpy's default casting of a ufunc's result into a given `out`
 * ('same_kind') takes `from` to `to`: a safe cast, one within a kind (f64 to
 * f32, i64 to i8) or to a later kind; never float to integer, signed to
 * unsigned, or a number to bool.
 */
export function castsSameKind(from: ScalarName, to: ScalarName): boolean {
  return castsSafely(from, to) || kindRank(from) <= kindRank(to);
}

/** Whether a scalar argument's value fits `to` (numba takes Python scalars by value: an integral number fits integer types). */
export function scalarFits(operand: Operand & { kind: 'scalar' }, to: ScalarName): boolean {
  const v = operand.value;
  if (v instanceof Scalar) return castsSafely(v.type as ScalarName, to);
  if (typeof v === 'boolean') return true;
  if (typeof v === 'bigint') return to !== 'bool' && !to.startsWith('f') && !to.startsWith('bf');
  return to !== 'bool' && (to.startsWith('f') || to.startsWith('bf') || Number.isInteger(v));
}

/**
 * The first signature that the inputs match exactly, else the first that
 * they cast to safely (numpy's choice among a ufunc's loops).
 */
export function chooseSignature(
  name: string,
  signatures: readonly UfuncSignature[],
  inputs: readonly Operand[],
): number {
  const exact = signatures.findIndex((s) =>
    inputs.every((op, k) =>
      op.kind === 'scalar' ? !(op.value instanceof Scalar) || op.dtype === s.args[k] : op.dtype === s.args[k],
    ),
  );
  if (exact >= 0) return exact;
  const safe = signatures.findIndex((s) =>
    inputs.every((op, k) => (op.kind === 'scalar' ? scalarFits(op, s.args[k]!) : castsSafely(op.dtype, s.args[k]!))),
  );
  if (safe >= 0) return safe;
  throw new KernelArgumentError(
    `${name}: no signature takes inputs of ${inputs.map((op) => (op.kind === 'scalar' ? `${op.dtype} scalar` : op.dtype)).join(', ')} ` +
      `(the signatures are ${signatures.map((s) => s.text).join('; ')}); convert the inputs, or add a signature`,
  );
}
