import { isAnything, isFunction } from '@cuda-js/options';
import { checkJitOptions } from './jit-options.js';

// The link inputs are read by the linker step, with its own errors.
const DECLARE_DEVICE_OPTIONS = { link: isAnything, simulate: isFunction };
import { ObjectCode } from '@cuda-js/program';
import { JitError } from './errors.js';
import type { ArrayRank, KernelArray, KernelElement, ScalarOfToken, TypedArrayScalars } from './kernel-array.js';
import { isArrayType, isScalarName, type ArrayType, type JitType, type ScalarName } from './typing/jit-types.js';
import { resolveSignature, type TypeToken } from './typing/signature.js';

/**
 * Device code to link into a kernel that calls an external function:
 * - `{ cuda: source }`: CUDA C++, compiled by NVRTC (relocatable device
 *   code; to LTO-IR where the kernel is linked with link-time optimization);
 * - `{ ptx: text }`: PTX text;
 * - an `ObjectCode` of @cuda-js/program: PTX, cubin, fatbin, LTO-IR (linked
 *   with link-time optimization through nvJitLink), an object or a library.
 */
export type LinkInput = CudaLinkInput | { readonly ptx: string; readonly name?: string } | ObjectCode;

/**
 * CUDA C++ to link, compiled by NVRTC; `includePaths` are searched for its
 * `#include`s before the CUDA headers (numba's extra NVRTC search paths),
 * and `headers` are in-memory headers by include name (`{ 'params.h': '#define N 4' }`).
 */
export interface CudaLinkInput {
  readonly cuda: string;
  readonly name?: string;
  readonly includePaths?: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
}

/** The scalar types of C's ABI that a linked function takes and returns (see lower/external-call-lowering.ts). */
const C_SCALARS: ReadonlySet<string> = new Set([
  'bool',
  'i8',
  'u8',
  'i16',
  'u16',
  'i32',
  'u32',
  'i64',
  'u64',
  'f32',
  'f64',
]);

/** The signature of an external device function: its argument types and its result type. */
export interface ExternalSignature {
  /** Scalars (`f32`, ...) and arrays (`array(f32, 1)`, passed as a pointer to their first element). */
  readonly args: readonly TypeToken[];
  /** A scalar type. */
  readonly returns: TypeToken;
}

export interface DeclareDeviceOptions {
  /** The code that defines the function, linked into every kernel that calls it. */
  readonly link?: LinkInput | readonly LinkInput[] | undefined;
  /**
   * A JavaScript stand-in for the simulator, called at each call with the
   * arguments in order: bool as a boolean, i64 and u64 as bigints, other
   * scalars as numbers, an array as a typed array of its elements that
   * starts at its first element (`p[k]` is C's `p[k]`; Uint8Array for bool).
   * What it returns becomes the declared result type (a number converted as
   * from f64, a bigint as an integer, a boolean as 0 or 1). Without it the
   * simulator refuses the call when a thread reaches it.
   */
  readonly simulate?: ((...args: never[]) => unknown) | undefined;
}

/**
 * A device function defined outside the kernel language (numba's
 * `declare_device` with `link=`): kernels call it by the name they give it in
 * their `constants`; the PTX calls `symbol`, which the linked code defines
 * (with C linkage: `extern "C" __device__`), with C's types: `bool`,
 * `int8_t`/`uint8_t` through `int64_t`/`uint64_t`, `float`, `double`, and
 * `T*` for an array (a pointer to its first element, which the function
 * may write unless the array is read-only). A kernel that calls it is
 * linked with the code of every such function it calls into one cubin (see
 * compile/linked-kernel.ts).
 */
export class ExternalDeviceFunction {
  readonly symbol: string;
  readonly args: readonly JitType[];
  readonly returns: ScalarName;
  readonly link: readonly LinkInput[];
  readonly simulate: ((...args: never[]) => unknown) | undefined;

  /** @internal use {@link declareDevice}. */
  constructor(symbol: string, signature: ExternalSignature, options: DeclareDeviceOptions) {
    if (typeof symbol !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(symbol))
      throw new JitError(`declareDevice: the symbol must be a C identifier, got ${JSON.stringify(symbol)}`);
    if (signature === null || typeof signature !== 'object' || !Array.isArray(signature.args))
      throw new JitError('declareDevice: the signature is { args: [...types], returns: type }');
    checkJitOptions('declareDevice()', options, DECLARE_DEVICE_OPTIONS);
    this.symbol = symbol;
    this.args = Object.freeze(resolveSignature(signature.args));
    const [returns] = resolveSignature([signature.returns]);
    if (returns === undefined || isArrayType(returns) || !isScalarName(returns))
      throw new JitError(`declareDevice: '${symbol}' must return a scalar type`);
    this.returns = returns;
    for (const t of [...this.args, returns]) {
      if (!isArrayType(t) && !C_SCALARS.has(t))
        throw new JitError(
          `declareDevice: '${symbol}': linked functions take and return ${[...C_SCALARS].join(', ')} and arrays; not ${t}`,
        );
    }
    const link =
      options.link === undefined ? [] : Array.isArray(options.link) ? options.link : [options.link as LinkInput];
    for (const input of link) {
      const ok =
        input instanceof ObjectCode ||
        (input !== null &&
          typeof input === 'object' &&
          (typeof (input as { cuda?: unknown }).cuda === 'string' ||
            typeof (input as { ptx?: unknown }).ptx === 'string'));
      if (!ok)
        throw new JitError(
          `declareDevice: '${symbol}': each link input is { cuda: source }, { ptx: text } or an ObjectCode`,
        );
      if (!(input instanceof ObjectCode) && 'cuda' in input) checkCudaInput(symbol, input);
    }
    this.link = Object.freeze([...link]);
    if (options.simulate !== undefined && typeof options.simulate !== 'function')
      throw new JitError(`declareDevice: '${symbol}': simulate must be a function`);
    this.simulate = options.simulate;
    Object.freeze(this);
  }
}

/** The value a kernel passes for a token of a declared signature: a number, bigint or boolean for a scalar, an array for an array type. */
export type KernelValueOfToken<T> = T extends ArrayType
  ? ArrayTokenValue<T['dtype'], T['ndim']>
  : KernelElement<ScalarOfToken<T>>;

/** What a kernel may pass for an array argument of a declared function: its parameter array, a typed array of the dtype, or a shared/local array. */
export type ArrayTokenValue<S extends ScalarName, N extends ArrayRank> =
  | KernelArray<S, N>
  | (N extends 1 ? TypedArrayScalarsOf<S> : never);

export type TypedArrayScalarsOf<S extends ScalarName> = S extends keyof TypedArrayScalars
  ? TypedArrayScalars[S]
  : never;

/** The JavaScript value the simulator's stand-in gets for a token: as in the kernel for scalars, the typed array of the elements for arrays (Uint16Array for f16/bf16, Uint8Array for bool). */
export type SimulatedValueOfToken<T> = T extends ArrayType
  ? SimulatedArrayOf<T['dtype']>
  : KernelElement<ScalarOfToken<T>>;

export type SimulatedArrayOf<S extends ScalarName> = S extends 'f16' | 'bf16'
  ? Uint16Array
  : S extends 'bool'
    ? Uint8Array
    : TypedArrayScalarsOf<S>;

/** A declared signature, typed by its tokens. */
export interface TypedExternalSignature<Args extends readonly TypeToken[], Returns extends TypeToken>
  extends ExternalSignature {
  readonly args: Args;
  readonly returns: Returns;
}

/** {@link DeclareDeviceOptions} with `simulate`'s arguments typed by the signature (its result may be any number, bigint or boolean: it is converted to the declared type). */
export interface TypedDeclareDeviceOptions<Args extends readonly TypeToken[]> extends DeclareDeviceOptions {
  readonly simulate?:
    | ((...args: { -readonly [K in keyof Args]: SimulatedValueOfToken<Args[K]> }) => number | bigint | boolean)
    | undefined;
}

/**
 * What {@link declareDevice} gives: the declaration, callable in kernels
 * with its declared signature's types (`mul(x[i]!, 3)` is a number for
 * `returns: f32`). Outside kernels a call throws: the code exists only on
 * the GPU (and as `simulate` in the simulator).
 */
export type DeclaredDeviceFunction<
  Args extends readonly TypeToken[] = readonly TypeToken[],
  Returns extends TypeToken = TypeToken,
> = ExternalDeviceFunction &
  ((...args: { -readonly [K in keyof Args]: KernelValueOfToken<Args[K]> }) => KernelValueOfToken<Returns>);

/**
 * Declares a device function that linked code defines:
 *
 * ```ts
 * const mul = declareDevice('mul_f32', { args: [f32, f32], returns: f32 }, {
 *   link: { cuda: 'extern "C" __device__ float mul_f32(float a, float b) { return a * b; }' },
 * });
 * const k = jit((x: Float32Array) => { const i = cuda.grid(1); x[i] = mul(x[i]!, 2); }, { constants: { mul } });
 * ```
 *
 * The result is an {@link ExternalDeviceFunction} that is also a function
 * (it throws outside kernels), so that TypeScript checks the calls that
 * kernels make.
 */
export function declareDevice<const Args extends readonly TypeToken[], const Returns extends TypeToken>(
  symbol: string,
  signature: TypedExternalSignature<Args, Returns>,
  options: TypedDeclareDeviceOptions<NoInfer<Args>> = {},
): DeclaredDeviceFunction<Args, Returns> {
  const definition = new ExternalDeviceFunction(symbol, signature, options as DeclareDeviceOptions);
  const callable = function declaredDeviceFunction(): never {
    throw new JitError(
      `'${definition.symbol}' is linked device code (declareDevice): it runs only inside kernels compiled by jit(); name it in the kernel's constants`,
    );
  };
  // the declaration's own fields, on a function whose prototype is the class's: instanceof and the fields hold, and it is callable
  Object.defineProperties(callable, Object.getOwnPropertyDescriptors(definition));
  Object.defineProperty(callable, 'name', { value: definition.symbol });
  Object.setPrototypeOf(callable, ExternalDeviceFunction.prototype);
  return Object.freeze(callable) as unknown as DeclaredDeviceFunction<Args, Returns>;
}

/** The include options of a `{ cuda }` input: a list of folder names, and a record of header texts. */
function checkCudaInput(symbol: string, input: CudaLinkInput): void {
  const paths = input.includePaths;
  if (paths !== undefined && (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string' && p !== ''))) {
    throw new JitError(`declareDevice: '${symbol}': includePaths is a list of folder names (strings)`);
  }
  const headers = input.headers;
  if (
    headers !== undefined &&
    (headers === null ||
      typeof headers !== 'object' ||
      Array.isArray(headers) ||
      !Object.values(headers).every((h) => typeof h === 'string'))
  ) {
    throw new JitError(
      `declareDevice: '${symbol}': headers is a record of header texts by include name ({ 'params.h': '#define N 4' })`,
    );
  }
}
