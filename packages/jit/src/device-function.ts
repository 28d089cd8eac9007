import type { CapturedArrayConstant } from './captured-arrays.js';
import { checkJitOptions, DEVICE_FUNCTION_OPTIONS } from './jit-options.js';
import type { DtypeToken } from './cuda.js';
import { snapshotConstants } from './constants-snapshot.js';
import { JitError } from './errors.js';
import type { ExternalDeviceFunction } from './external-device-function.js';
import { parseKernel, type ParsedKernel } from './parse/parse-kernel.js';
import { captureCallSite, type CallSite } from './parse/source-locator.js';

/**
 * A value a kernel may name without receiving it as an argument
 * (`jit(fn, { constants: { N: 16, square, TABLE } })`): a number, bigint or
 * boolean baked into the code; a device function to call (`jit.device`, or
 * linked code that `declareDevice` declares); a host array
 * whose elements `cuda.const.arrayLike(TABLE)` puts in constant memory; or a
 * scalar maker (`f32`, `i32`, ...) that the kernel uses as a dtype
 * (`cuda.shared.array(n, DTYPE)`), for kernels generic in their element type.
 */
export type KernelConstant =
  | number
  | bigint
  | boolean
  | DeviceFunction
  | DeviceFunctionCallable<(...args: never[]) => unknown>
  | ExternalDeviceFunction
  | ArrayLike<number | bigint>
  | DtypeToken
  | CapturedArrayConstant;

export interface DeviceFunctionOptions {
  /** What the device function itself names (numbers, other device functions, host arrays). */
  readonly constants?: Readonly<Record<string, KernelConstant>>;
  /** Its name in messages (default: the function's name). */
  readonly name?: string;
}

/**
 * A function that kernels call (numba's `@cuda.jit(device=True)`), made by
 * `jit.device(fn)` and reached through a kernel's `constants`. It is typed
 * at each call site with the argument types there and inlined; it may take
 * arrays, call other device functions (not itself), and return one scalar
 * or nothing.
 */
export class DeviceFunction {
  /** Its name: the option's, else the function's own; '' for an anonymous function (kernels then name it by the constant they call). */
  readonly name: string;
  /** @internal The function's text and syntax tree, as the typer reads them. */
  readonly parsed: ParsedKernel;
  readonly constants: Readonly<Record<string, KernelConstant>>;

  /** @internal use `jit.device`. */
  constructor(fn: (...args: never[]) => unknown, options: DeviceFunctionOptions, callSite: CallSite | undefined) {
    if (typeof fn !== 'function') throw new TypeError(`jit.device: expected a function, got ${fn === null ? 'null' : typeof fn}`);
    checkJitOptions('jit.device()', options, DEVICE_FUNCTION_OPTIONS);
    this.parsed = parseKernel(fn, callSite);
    this.name = options.name ?? this.parsed.record?.name ?? fn.name;
    this.constants = snapshotConstants(options.constants, 'jit.device');
  }
}

const DEFINITION = Symbol('cuda-js.deviceFunction');

/** What `jit.device(fn)` gives: callable in kernels with `fn`'s types (outside kernels it throws), and its definition. */
export type DeviceFunctionCallable<F extends (...args: never[]) => unknown> = F & { readonly [DEFINITION]: DeviceFunction };

/** The device function that `value` is (a `jit.device` result, or a DeviceFunction), or undefined. */
export function deviceFunctionOf(value: unknown): DeviceFunction | undefined {
  if (value instanceof DeviceFunction) return value;
  if (typeof value === 'function' && DEFINITION in value) {
    const definition = (value as { readonly [DEFINITION]: unknown })[DEFINITION];
    if (definition instanceof DeviceFunction) return definition;
  }
  return undefined;
}

/**
 * Makes a device function of a JavaScript function, for kernels to call
 * (they name it in their `constants`):
 *
 * ```ts
 * const square = jit.device((x: number) => x * x);
 * const k = jit((a: Float32Array) => { const i = cuda.grid(1); a[i] = square(a[i]); }, { constants: { square } });
 * ```
 */
export function device<F extends (...args: never[]) => unknown>(fn: F, options: DeviceFunctionOptions = {}): DeviceFunctionCallable<F> {
  const definition = new DeviceFunction(fn, options, captureCallSite(device));
  const callable = (): never => {
    throw new JitError(`the device function${definition.name ? ` '${definition.name}'` : ''} runs only inside kernels compiled by jit(); name it in the kernel's constants`);
  };
  Object.defineProperty(callable, 'name', { value: definition.name });
  Object.defineProperty(callable, DEFINITION, { value: definition });
  return callable as unknown as DeviceFunctionCallable<F>;
}
