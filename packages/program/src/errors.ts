// The package's named errors. Failures of the CUDA libraries themselves stay
// the bindings' own errors (`NvrtcError`, `NvvmError`, `NvJitLinkError`,
// `CudaError`), which carry the code, the function and the compile log.
import { ClosedResourceError } from '@cuda-js/bindings';

export { ClosedResourceError };

/**
 * The root of every error that @cuda-js/program defines: one `instanceof`
 * check for them all. Use after `close()` is the bindings' shared
 * `ClosedResourceError` (also exported here as the deprecated `ClosedError`).
 */
export class ProgramError extends Error {
  override readonly name: string = 'ProgramError';
}

function list(values: readonly string[]): string {
  return values.length === 0 ? '(none)' : values.join(', ');
}

/** Base of the errors about a `ProgramOptions` or `LinkerOptions` entry. */
export class OptionError extends ProgramError {
  override readonly name: string = 'OptionError';
  constructor(
    /** The option's name (`maxRegisters`). */
    readonly option: string,
    message: string,
  ) {
    super(message);
  }
}

/** An option name that this package does not know: never ignored. */
export class UnknownOptionError extends OptionError {
  override readonly name = 'UnknownOptionError';
  constructor(
    option: string,
    /** Where the option was given: `ProgramOptions`, `LinkerOptions`, `compile options`, ... */
    readonly where: string,
    /** Every option name that is accepted there. */
    readonly known: readonly string[],
    /** The closest known name, when one is close. */
    readonly suggestion: string | undefined,
  ) {
    super(
      option,
      `unknown ${where} option '${option}'${suggestion ? ` (did you mean '${suggestion}'?)` : ''}; known options: ${list(known)}`,
    );
  }
}

/** An option whose value has the wrong type or is out of range. */
export class InvalidOptionError extends OptionError {
  override readonly name = 'InvalidOptionError';
  constructor(
    option: string,
    /** The value that was given. */
    readonly value: unknown,
    /** What is accepted, in words. */
    readonly expected: string,
  ) {
    super(option, `option '${option}' must be ${expected}; got ${describe(value)}`);
  }
}

/** A known option that the chosen code type, target or backend cannot honour. */
export class UnsupportedOptionError extends OptionError {
  override readonly name = 'UnsupportedOptionError';
  constructor(
    option: string,
    /** The code type or backend that refused it (`nvvm`, `driver linker`, ...). */
    readonly context: string,
    reason: string,
  ) {
    super(option, `option '${option}' is not supported for ${context}: ${reason}`);
  }
}

/** A compile or link target that the code type cannot produce. */
export class UnsupportedTargetError extends ProgramError {
  override readonly name = 'UnsupportedTargetError';
  constructor(
    /** The code type (`c++`, `nvvm`, `ptx`) or the linker. */
    readonly source: string,
    readonly target: unknown,
    readonly supported: readonly string[],
    hint?: string,
  ) {
    super(
      `${source} cannot be compiled to ${describe(target)}; supported targets: ${list(supported)}${hint ? `. ${hint}` : ''}`,
    );
  }
}

/** A `code` or `codeType` argument that is not usable. */
export class InvalidCodeError extends ProgramError {
  override readonly name = 'InvalidCodeError';
}

/** A GPU architecture name that is malformed or that the compiler does not support. */
export class UnsupportedArchitectureError extends ProgramError {
  override readonly name = 'UnsupportedArchitectureError';
  constructor(
    readonly arch: unknown,
    message: string,
    /** The architectures the compiler supports, as `sm_XY`, where known. */
    readonly supported: readonly string[] = [],
  ) {
    super(message);
  }
}

/**
 * No `arch` option was given and there is no CUDA device to take it from.
 * Pass `arch` (for example `'sm_90'`) to compile without a device.
 */
export class ArchitectureRequiredError extends ProgramError {
  override readonly name = 'ArchitectureRequiredError';
  /** Why the current device's architecture is not available (no driver, no device). */
  readonly reason: string;
  /** `options.example`: where the caller passes `arch` (a layer above names its own call, as the JIT's `jit(fn, { arch: 'sm_90' })`). */
  constructor(reason: string, options?: ErrorOptions & { readonly example?: string }) {
    super(
      `no 'arch' option was given and the current device's architecture is not available (${reason}); pass arch explicitly, for example ${options?.example ?? "{ arch: 'sm_90' }"}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.reason = reason;
  }
}

/** Neither nvJitLink nor the driver's cuLink* API can be used on this machine. */
export class LinkerUnavailableError extends ProgramError {
  override readonly name = 'LinkerUnavailableError';
  constructor(
    /** Why each backend was not usable, keyed by backend (`nvJitLink`, `driver`). */
    readonly reasons: Readonly<Record<string, string>>,
    options?: ErrorOptions,
  ) {
    super(
      `no linker is available:\n${Object.entries(reasons)
        .map(([backend, reason]) => `  - ${backend}: ${reason}`)
        .join(
          '\n',
        )}\nInstall nvJitLink (the nvidia-nvjitlink pip wheel or the CUDA toolkit), or run where a CUDA device and its driver are present.`,
      options,
    );
  }
}

/** A link that failed; carries the linker's error and info logs. */
export class LinkError extends ProgramError {
  override readonly name = 'LinkError';
  constructor(
    /** `nvJitLink` or `driver`. */
    readonly backend: string,
    /** What the linker wrote to its error log. */
    readonly errorLog: string,
    /** What the linker wrote to its info log. */
    readonly infoLog: string,
    options?: ErrorOptions,
  ) {
    const cause = options?.cause instanceof Error ? options.cause.message.split('\n')[0] : 'link failed';
    super(
      `${backend} link failed: ${cause}${errorLog ? `\nerror log:\n${errorLog.trimEnd()}` : ''}${infoLog ? `\ninfo log:\n${infoLog.trimEnd()}` : ''}`,
      options,
    );
  }
}

/** ObjectCode of a kind that the driver cannot load by itself (LTO-IR, objects, libraries). */
export class NotLoadableError extends ProgramError {
  override readonly name = 'NotLoadableError';
  constructor(readonly codeType: string) {
    super(
      `ObjectCode of type '${codeType}' cannot be loaded by the driver; link it first (new Linker([...], { arch }).link('cubin'))`,
    );
  }
}

/** The driver refused to load an ObjectCode; the message says what to do where it can. */
export class ObjectCodeLoadError extends ProgramError {
  override readonly name = 'ObjectCodeLoadError';
  constructor(
    readonly codeType: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** No kernel of that name in a loaded ObjectCode. */
export class KernelNotFoundError extends ProgramError {
  override readonly name = 'KernelNotFoundError';
  constructor(
    readonly kernelName: string,
    /** The symbol looked up (the lowered name, for a name expression). */
    readonly symbol: string,
    /** Kernel symbols the module holds, where the driver can list them. */
    readonly available: readonly string[] | undefined,
    options?: ErrorOptions,
  ) {
    const looked = symbol === kernelName ? `'${kernelName}'` : `'${kernelName}' (symbol '${symbol}')`;
    const hint = available ? `; kernels in this module: ${list(available)}` : '';
    const mangled =
      symbol === kernelName && /[<(:]/.test(kernelName)
        ? '. For a template or C++ name, pass it in compile(..., { nameExpressions }) first'
        : '';
    super(`no kernel ${looked}${hint}${mangled}`, options);
  }
}

/**
 * A CUDA-owning object was used after `close()`: the bindings' shared
 * `ClosedResourceError` under its former name.
 * @deprecated Use `ClosedResourceError` (the same class: `instanceof` checks of either name agree).
 */
export const ClosedError: typeof ClosedResourceError = ClosedResourceError;
/** @deprecated Use `ClosedResourceError`. */
export type ClosedError = ClosedResourceError;

/** An operation that needs a current CUDA context found none. */
export class NoCurrentContextError extends ProgramError {
  override readonly name = 'NoCurrentContextError';
  constructor(operation: string) {
    super(
      `${operation} needs a current CUDA context and there is none; make a device's context current first (cuCtxSetCurrent, or Device.setCurrent() in @cuda-js/core)`,
    );
  }
}

/**
 * A short description of any value for an error message, that never throws
 * (no `JSON.stringify` of objects, which throws on bigints and cycles; no
 * `toString` of the caller's objects). The one formatter of this package.
 */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 120 ? `${value.slice(0, 117)}...` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'function') return 'a function';
  if (value === null || value === undefined || typeof value !== 'object') return String(value);
  try {
    if (Array.isArray(value)) return 'an array';
  } catch {
    return 'a revoked proxy';
  }
  if (ArrayBuffer.isView(value)) return `a ${Object.prototype.toString.call(value).slice(8, -1)}`;
  return 'an object';
}

const describe = formatValue;

/** An argument of a method (not an option) that has the wrong type or is out of range. */
export class InvalidArgumentError extends ProgramError {
  override readonly name = 'InvalidArgumentError';
  constructor(
    readonly argument: string,
    readonly value: unknown,
    readonly expected: string,
  ) {
    super(`argument '${argument}' must be ${expected}; got ${describe(value)}`);
  }
}

/**
 * A compile cache folder or entry that cannot be used: a folder on a pseudo
 * file system (/proc, /sys: mkdir there never finishes), or an entry that is
 * no regular file of bounded size (a FIFO, a device, a link to /dev/zero).
 * The cache counts it in `diskErrors`; a compile never fails on it.
 */
export class CacheStorageError extends ProgramError {
  override readonly name = 'CacheStorageError';
}

/** A linker input whose kind the chosen linker backend cannot take. */
export class UnsupportedInputError extends ProgramError {
  override readonly name = 'UnsupportedInputError';
  constructor(
    readonly codeType: string,
    readonly backend: string,
    hint: string,
  ) {
    super(`the ${backend} linker cannot take '${codeType}' input: ${hint}`);
  }
}
