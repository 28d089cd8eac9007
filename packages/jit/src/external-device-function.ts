import { ObjectCode } from '@cuda-js/program';
import { JitError } from './errors.js';
import { isArrayType, isScalarName, type JitType, type ScalarName } from './types/jit-types.js';
import { resolveSignature, type TypeToken } from './types/signature.js';

/**
 * Device code to link into a kernel that calls an external function:
 * - `{ cuda: source }`: CUDA C++, compiled by NVRTC (relocatable device
 *   code; to LTO-IR where the kernel is linked with link-time optimization);
 * - `{ ptx: text }`: PTX text;
 * - an `ObjectCode` of @cuda-js/program: PTX, cubin, fatbin, LTO-IR (linked
 *   with link-time optimization through nvJitLink), an object or a library.
 */
export type LinkInput = { readonly cuda: string; readonly name?: string } | { readonly ptx: string; readonly name?: string } | ObjectCode;

/** The signature of an external device function: its argument types and its result type. */
export interface ExternalSignature {
  /** Scalars (`f32`, ...) and arrays (`array(f32, 1)`, passed as a pointer to their first element). */
  readonly args: readonly TypeToken[];
  /** A scalar type. */
  readonly returns: TypeToken;
}

export interface DeclareDeviceOptions {
  /** The code that defines the function, linked into every kernel that calls it. */
  readonly link?: LinkInput | readonly LinkInput[];
  /** A JavaScript stand-in for the simulator, given the same arguments (arrays as the kernel sees them); without it the simulator refuses the call. */
  readonly simulate?: (...args: never[]) => unknown;
}

/**
 * A device function defined outside the kernel language (numba's
 * `declare_device` with `link=`): kernels call it by the name they give it in
 * their `constants`; the PTX calls `symbol`, which the linked code defines
 * (with C linkage: `extern "C" __device__`).
 */
export class ExternalDeviceFunction {
  readonly symbol: string;
  readonly args: readonly JitType[];
  readonly returns: ScalarName;
  readonly link: readonly LinkInput[];
  readonly simulate: ((...args: never[]) => unknown) | undefined;

  /** @internal use {@link declareDevice}. */
  constructor(symbol: string, signature: ExternalSignature, options: DeclareDeviceOptions) {
    if (typeof symbol !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(symbol)) throw new JitError(`declareDevice: the symbol must be a C identifier, got ${JSON.stringify(symbol)}`);
    if (signature === null || typeof signature !== 'object' || !Array.isArray(signature.args)) throw new JitError('declareDevice: the signature is { args: [...types], returns: type }');
    this.symbol = symbol;
    this.args = Object.freeze(resolveSignature(signature.args));
    const [returns] = resolveSignature([signature.returns]);
    if (returns === undefined || isArrayType(returns) || !isScalarName(returns)) throw new JitError(`declareDevice: '${symbol}' must return a scalar type`);
    this.returns = returns;
    const link = options.link === undefined ? [] : Array.isArray(options.link) ? options.link : [options.link as LinkInput];
    for (const input of link) {
      const ok = input instanceof ObjectCode || (input !== null && typeof input === 'object' && (typeof (input as { cuda?: unknown }).cuda === 'string' || typeof (input as { ptx?: unknown }).ptx === 'string'));
      if (!ok) throw new JitError(`declareDevice: '${symbol}': each link input is { cuda: source }, { ptx: text } or an ObjectCode`);
    }
    this.link = Object.freeze([...link]);
    if (options.simulate !== undefined && typeof options.simulate !== 'function') throw new JitError(`declareDevice: '${symbol}': simulate must be a function`);
    this.simulate = options.simulate;
    Object.freeze(this);
  }
}

/**
 * Declares a device function that linked code defines:
 *
 * ```ts
 * const mul = declareDevice('mul_f32', { args: [f32, f32], returns: f32 }, {
 *   link: { cuda: 'extern "C" __device__ float mul_f32(float a, float b) { return a * b; }' },
 * });
 * const k = jit((x: Float32Array) => { const i = cuda.grid(1); x[i] = mul(x[i], 2); }, { constants: { mul } });
 * ```
 */
export function declareDevice(symbol: string, signature: ExternalSignature, options: DeclareDeviceOptions = {}): ExternalDeviceFunction {
  return new ExternalDeviceFunction(symbol, signature, options);
}
