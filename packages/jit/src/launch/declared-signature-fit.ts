import type { KernelArgumentError, KernelTypeError } from '../errors.js';
import { isArrayType, isFloat, isInteger, typeName, type ArrayType, type JitType } from '../typing/jit-types.js';
import { argumentError } from './argument-error.js';
import type { LaunchTarget } from './argument-types.js';

/**
 * The declared signature (`signatures` in the kernel's options) that a
 * launch's arguments fit where their own types match none, as numba's
 * dispatcher converts arguments to an explicit signature: per parameter,
 * the argument's own type; for a `pointer(S)` parameter, a bigint (a raw
 * device address, GPU only) or a 1-D compact array of `S`; for an array
 * parameter of any strides (layout 'A', numba's `float32[:]`), an array of
 * its element type and dimensions in any layout; for a scalar
 * parameter, a JS number (an integer-valued one for an integer type: the
 * launch checks its range). The first declared signature that fits is
 * taken; undefined when none does (the launch then compiles for the
 * arguments' own types, as without `signatures`).
 *
 * @param types the arguments' own types (argument-types.ts), the captured device arrays' after the parameters'
 * @param declared the declared signatures, the kernel's parameters only
 * @throws {KernelArgumentError} for a raw address given to the simulator, which cannot read device memory, and a bigint outside [0, 2^64) for a pointer
 */
export function fitDeclaredSignature(
  types: readonly JitType[],
  args: readonly unknown[],
  declared: readonly (readonly JitType[])[],
  params: readonly string[],
  target: LaunchTarget,
): JitType[] | undefined {
  for (const signature of declared) {
    if (signature.length !== params.length) continue;
    let fits = true;
    for (let i = 0; i < signature.length && fits; i++)
      fits = fitsParameter(signature[i]!, types[i]!, args[i], i, params, target);
    if (fits) return [...signature, ...types.slice(signature.length)];
  }
  return undefined;
}

function fitsParameter(
  want: JitType,
  got: JitType,
  arg: unknown,
  i: number,
  params: readonly string[],
  target: LaunchTarget,
): boolean {
  if (want === got) return true;
  if (isArrayType(want)) {
    // an array of any strides (numba's `float32[:]`) takes a compact one too; code that only reads takes a writable one
    if (!want.pointer) return isArrayType(got) && fitsArray(want, got);
    if (typeof arg === 'bigint') {
      if (arg < 0n || arg >= 1n << 64n)
        throw argumentError(
          params,
          i,
          `${arg} for the pointer parameter, which is no device address (an address is in [0, 2^64))`,
        );
      if (target === 'simulator') {
        throw argumentError(
          params,
          i,
          `a raw device address (0x${arg.toString(16)}) for the pointer parameter, which the simulator cannot read (it runs on the CPU); pass the array itself`,
        );
      }
      return true;
    }
    return isArrayType(got) && got.dtype === want.dtype && got.ndim === 1 && got.layout === 'C';
  }
  if (typeof arg !== 'number') return false;
  return isFloat(want) || (isInteger(want) && Number.isInteger(arg));
}

/** Whether an array argument of type `got` fits a declared array type `want` (not a pointer). */
function fitsArray(want: ArrayType, got: ArrayType): boolean {
  const layoutFits = want.layout === 'A' || want.layout === got.layout;
  return (
    !got.pointer && got.dtype === want.dtype && got.ndim === want.ndim && layoutFits && (want.readonly || !got.readonly)
  );
}

/**
 * The error for an array argument whose dimensions differ from those of the
 * parameter in every declared signature (a 1-D array for a declared 2-D
 * parameter), when typing the kernel for the arguments' own types failed
 * (`cause`): it names the argument, not the kernel line that typing stopped at.
 */
export function declaredDimensionsError(
  types: readonly JitType[],
  declared: readonly (readonly JitType[])[],
  params: readonly string[],
  cause: KernelTypeError,
): KernelArgumentError | undefined {
  for (let i = 0; i < params.length; i++) {
    const got = types[i];
    if (got === undefined || !isArrayType(got) || got.pointer) continue;
    const wanted = declared.map((signature) => signature[i]);
    if (!wanted.every((w) => w !== undefined && isArrayType(w) && !w.pointer && w.ndim !== got.ndim)) continue;
    const names = [...new Set(wanted.map((w) => typeName(w!)))].join(' or ');
    const ndims = [...new Set(wanted.map((w) => `${(w as ArrayType).ndim}-D`))].join(' or ');
    return argumentError(
      params,
      i,
      `a ${got.ndim}-D array (${typeName(got)}) where the declared signatures take a ${ndims} array (${names}); typing the kernel for a ${got.ndim}-D one failed: ${cause.detail}`,
      cause,
    );
  }
  return undefined;
}

/** Whether two signatures hold the same type objects, one by one. */
export function sameTypes(a: readonly JitType[], b: readonly JitType[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
