import type { CapturedArrayConstant } from './captured-arrays.js';
import { checkJitOptions, DEVICE_FUNCTION_OPTIONS } from './jit-options.js';
import type { DtypeToken } from './cuda.js';
import { snapshotConstants } from './constants-snapshot.js';
import { JitError } from './errors.js';
import type { ExternalDeviceFunction } from './external-device-function.js';
import { parseKernel, type ParsedKernel } from './parse/parse-kernel.js';
import { kernelRecordOf } from './parse/kernel-record.js';
import { captureCallSite, type CallSite } from './parse/source-locator.js';
import type { ScalarName } from './typing/jit-types.js';
import { scalarToken } from './typing/signature.js';

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
  /**
   * What the device function itself names (numbers, other device functions,
   * host arrays); or a function that gives them, called once, when a kernel
   * that calls this function is first compiled: for device functions that
   * call each other, one named before the other is made
   * (`constants: () => ({ isOdd })`). A function calls itself by its own
   * name without naming itself here.
   */
  readonly constants?:
    | (Readonly<Record<string, KernelConstant>> | (() => Readonly<Record<string, KernelConstant>>))
    | undefined;
  /** Its name in messages (default: the function's name). */
  readonly name?: string | undefined;
  /**
   * Its return type (a scalar maker such as `f64`, or its name), as numba's
   * signature `'f8(f8)'` declares it: every returned value is converted to
   * it. Needed only by a recursive function whose return type cannot be
   * inferred; otherwise the type is the join of the returned values'.
   */
  readonly returns?: (((value: never) => unknown) | ScalarName) | undefined;
}

/**
 * A function that kernels call (numba's `@cuda.jit(device=True)`), made by
 * `jit.device(fn)` and reached through a kernel's `constants`. It is typed
 * at each call site with the argument types there and inlined; it may take
 * arrays, call other device functions, and return one scalar or nothing.
 * A recursive one (it calls itself, directly or through others) is not
 * inlined but compiled as a function of its own per list of argument types;
 * it takes and uses scalars only, and its return type is declared
 * (`returns`) or inferred from a return that is not recursive, as numba's.
 */
export class DeviceFunction {
  /** Its name: the option's, else the function's own; '' for an anonymous function (kernels then name it by the constant they call). */
  readonly name: string;
  readonly #fn: (...args: never[]) => unknown;
  readonly #callSite: CallSite | undefined;
  #parsed: ParsedKernel | undefined;
  #constants: Readonly<Record<string, KernelConstant>> | undefined;
  readonly #snapshot: Readonly<Record<string, KernelConstant>> | undefined;
  readonly #makeConstants: (() => unknown) | undefined;
  /** The declared return type (`returns`), if any. */
  readonly returns: ScalarName | undefined;

  /**
   * @internal use `jit.device`. `parseNow` false (the library's own device
   * functions, made when the package is imported) parses the text when a
   * kernel first reads it instead: an import parses nothing.
   */
  constructor(
    fn: (...args: never[]) => unknown,
    options: DeviceFunctionOptions,
    callSite: CallSite | undefined,
    parseNow = true,
  ) {
    if (typeof fn !== 'function')
      throw new TypeError(`jit.device: expected a function, got ${fn === null ? 'null' : typeof fn}`);
    checkJitOptions('jit.device()', options, DEVICE_FUNCTION_OPTIONS);
    this.#fn = fn;
    this.#callSite = callSite;
    if (parseNow) this.#parsed = parseKernel(fn, callSite);
    this.name = options.name ?? kernelRecordOf(fn)?.name ?? fn.name;
    if (typeof options.constants === 'function') this.#makeConstants = options.constants;
    else this.#snapshot = snapshotConstants(options.constants, 'jit.device');
    this.returns =
      options.returns === undefined ? undefined : scalarToken(options.returns, 'jit.device(fn, { returns })');
  }

  /** @internal The function's text and syntax tree, as the typer reads them (parsed on first use where the constructor did not). */
  get parsed(): ParsedKernel {
    this.#parsed ??= parseKernel(this.#fn, this.#callSite);
    return this.#parsed;
  }

  /** What the function names: its constants (read once; made by the `constants` function on first use), and itself by its own name. */
  get constants(): Readonly<Record<string, KernelConstant>> {
    if (this.#constants === undefined) {
      const made =
        this.#snapshot ??
        snapshotConstants(
          this.#makeConstants!(),
          `jit.device${this.name ? ` '${this.name}'` : ''}: the constants function's result`,
        );
      this.#constants = this.#withSelf(made);
    }
    return this.#constants;
  }

  /** The constants, with the function itself under its own name where its text calls that name and no constant has it (numba resolves a recursive call by the global name). */
  #withSelf(constants: Readonly<Record<string, KernelConstant>>): Readonly<Record<string, KernelConstant>> {
    const name = this.name;
    if (
      !/^[A-Za-z_$][\w$]*$/.test(name) ||
      Object.hasOwn(constants, name) ||
      !new RegExp(`(^|[^\\w$.])${name.replace(/\$/g, '\\$')}\\s*\\(`).test(this.parsed.source.slice(1))
    )
      return constants;
    return Object.freeze({ ...constants, [name]: this });
  }
}

const DEFINITION = Symbol('cuda-js.deviceFunction');

/** What `jit.device(fn)` gives: callable in kernels with `fn`'s types (outside kernels it throws), and its definition. */
export type DeviceFunctionCallable<F extends (...args: never[]) => unknown> = F & {
  readonly [DEFINITION]: DeviceFunction;
};

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
export function device<F extends (...args: never[]) => unknown>(
  fn: F,
  options: DeviceFunctionOptions = {},
): DeviceFunctionCallable<F> {
  return callableOf<F>(new DeviceFunction(fn, options, captureCallSite(device)));
}

/**
 * `jit.device` for the package's own device functions (library/random.ts),
 * made at import: the text is parsed when a kernel first calls the function,
 * and no call site is captured (a message about the function finds its
 * definition by the function itself, definition-site.ts), so that an import
 * neither parses nor reads a stack.
 */
export function libraryDevice<F extends (...args: never[]) => unknown>(
  fn: F,
  options: DeviceFunctionOptions,
): DeviceFunctionCallable<F> {
  return callableOf<F>(new DeviceFunction(fn, options, undefined, false));
}

function callableOf<F extends (...args: never[]) => unknown>(definition: DeviceFunction): DeviceFunctionCallable<F> {
  const callable = (): never => {
    throw new JitError(
      `the device function${definition.name ? ` '${definition.name}'` : ''} runs only inside kernels compiled by jit(); name it in the kernel's constants`,
    );
  };
  Object.defineProperty(callable, 'name', { value: definition.name });
  Object.defineProperty(callable, DEFINITION, { value: definition });
  return callable as unknown as DeviceFunctionCallable<F>;
}
