import { parseKernel, type ParsedKernel } from './parse/parse-kernel.js';
import { captureCallSite, type CallSite } from './parse/source-locator.js';

/**
 * A value a kernel may name without receiving it as an argument
 * (`jit(fn, { constants: { N: 16, square, TABLE } })`): a number, bigint or
 * boolean baked into the code; a device function to call; or a host array
 * whose elements `cuda.const.arrayLike(TABLE)` puts in constant memory.
 */
export type KernelConstant = number | bigint | boolean | DeviceFunction | ArrayLike<number | bigint>;

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
  readonly name: string;
  readonly parsed: ParsedKernel;
  readonly constants: Readonly<Record<string, KernelConstant>>;

  /** @internal use `jit.device`. */
  constructor(fn: (...args: never[]) => unknown, options: DeviceFunctionOptions, callSite: CallSite | undefined) {
    if (typeof fn !== 'function') throw new TypeError(`jit.device: expected a function, got ${fn === null ? 'null' : typeof fn}`);
    this.parsed = parseKernel(fn, callSite);
    this.name = options.name ?? (fn.name || this.parsed.name);
    this.constants = Object.freeze({ ...(options.constants ?? {}) });
  }
}

/** Makes a device function of a JavaScript function: `const square = jit.device((x: number) => x * x)`. */
export function device(fn: (...args: never[]) => unknown, options: DeviceFunctionOptions = {}): DeviceFunction {
  return new DeviceFunction(fn, options, captureCallSite());
}
