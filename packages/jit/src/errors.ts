import type { OptionProblem } from '@cuda-js/options';

/** Where in the user's own file a piece of kernel code is. */
export interface SourcePosition {
  /** The file the kernel was written in, where it could be found (a path or URL), else `<kernel>`. */
  readonly file: string;
  /** 1-based line in that file. */
  readonly line: number;
  /** 1-based column in that file. */
  readonly column: number;
  /** The source line with a caret under the position. */
  readonly snippet: string;
}

/**
 * Offsets in the kernel function's text (`fn.toString()`), for messages;
 * in a device function's text where `locator` is given (code inlined from
 * a `jit.device` function). Made by parse, carried by the typed IR
 * (typed-ir.ts re-exports it), read back here for messages.
 */
export interface Loc {
  readonly start: number;
  readonly end: number;
  readonly locator?: SourceLocator;
}

/** Maps offsets in a kernel's text to positions in the user's file. */
export interface SourceLocator {
  position(loc: Loc): SourcePosition;
}

/**
 * The root of the JIT's errors. Errors about the user's kernel code carry
 * the position in the user's file (`file`, `line`, `column`) and a snippet
 * with a caret; the message starts with `file:line:column`.
 */
export class JitError extends Error {
  override name = 'JitError';
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly snippet: string | undefined;
  /** The message without the position and snippet. */
  readonly detail: string;

  constructor(detail: string, at?: { locator: SourceLocator; loc: Loc | undefined }, options?: ErrorOptions) {
    const position = at?.loc ? at.locator.position(at.loc) : undefined;
    super(
      position ? `${position.file}:${position.line}:${position.column}: ${detail}\n${position.snippet}` : detail,
      options,
    );
    this.detail = detail;
    this.file = position?.file;
    this.line = position?.line;
    this.column = position?.column;
    this.snippet = position?.snippet;
  }
}

/** Syntax that kernels do not support (or that does not parse). */
export class UnsupportedSyntaxError extends JitError {
  override name = 'UnsupportedSyntaxError';
}

/** A name that is neither a parameter, a local, a constant nor a known global. */
export class FreeVariableError extends JitError {
  override name = 'FreeVariableError';
}

/**
 * The kernel's text (`fn.toString()`) is not what was written: a bundler or
 * minifier rewrote it (renamed `cuda` to `n`, joined statements with commas,
 * turned `const` into `let`). The message says what gave it away; `cause`
 * is the error that the rewritten text met, where there was one. The build
 * plugin `@cuda-js/unplugin` records each kernel before such tools run.
 */
export class RewrittenKernelError extends JitError {
  override name = 'RewrittenKernelError';
}

/** Types that do not fit: both types are named in the message. */
export class KernelTypeError extends JitError {
  override name = 'KernelTypeError';
}

/** A recursive device function whose return type cannot be inferred (declare it with `jit.device(fn, { returns })`). */
export class RecursionTypeError extends KernelTypeError {
  override name = 'RecursionTypeError';
}

/** An argument at launch that does not fit the kernel (count, kind, device, read-only). */
export class KernelArgumentError extends JitError {
  override name = 'KernelArgumentError';
}

/**
 * An argument of a function of the JIT's library, outside a launch, that it
 * cannot take: a count, a seed (`createXoroshiro128pStates(-1, seed)`).
 */
export class JitArgumentError extends JitError {
  override name = 'JitArgumentError';
}

/** An error raised while a kernel runs in the simulator (an index out of bounds, an integer division by zero). */
export class SimulatorError extends JitError {
  override name = 'SimulatorError';
}

/**
 * A kernel uses an instruction that the architecture it is compiled for
 * lacks (`cuda.mma.*` and the fragment packers need sm_80): the message
 * names the intrinsic, its PTX instruction, the architecture it needs and
 * the one given.
 */
export class ArchitectureTooOldError extends JitError {
  override name = 'ArchitectureTooOldError';
}

/** The simulator's spellings, for messages that point a user without a GPU at it (a launch's, an array maker's). */
export const SIMULATOR_HINT =
  "to run on the CPU instead, make the kernel with jit(fn, { target: 'simulator' }) and its arrays with toDevice(x, { target: 'simulator' }) (deviceArray and the other array makers likewise), or set CUDA_JS_SIMULATOR=1 in the environment for every kernel and array";

/**
 * A GPU launch (or compile, or an array maker: toDevice, deviceArray, ...) found no GPU to use: no driver library, no
 * device, or a driver that refuses. `cause` is the error that said so
 * (core's DeviceNotFoundError, pathfinder's LibraryNotFoundError with every
 * place it looked, the driver's CudaError); the message adds how to run in
 * the simulator.
 */
export class NoGpuError extends JitError {
  override name = 'NoGpuError';
}

/**
 * Runs a stage of the pipeline over a kernel's tree, turning a call stack
 * that ran out (an expression or block nested thousands deep: a RangeError
 * of the engine) into an {@link UnsupportedSyntaxError} that says so.
 */
export function withNestingBound<T>(stage: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      throw new UnsupportedSyntaxError(
        `${stage}: the kernel nests expressions or blocks too deeply (the call stack ran out); split it into smaller expressions`,
        undefined,
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * An options object of the JIT (`jit(fn, options)`, `jit.device`, `vectorize`,
 * ...) with an unknown key, named with the nearest known one (`fastmath` →
 * `fastMath`), or a value of the wrong type (`{ fma: 'no' }`).
 */
export class JitOptionError extends JitError {
  override name = 'JitOptionError';
  constructor(
    /** What was wrong: the key, what was expected, the suggestion. */
    readonly problem: OptionProblem,
  ) {
    super(problem.message);
  }
}

/**
 * A kernel artifact (from `cuda-js build-kernels` or `buildKernelArtifact`)
 * that does not match the kernel it names: the kernel's text, its
 * constants, its device functions or its math options changed since the
 * build, or a different `@cuda-js/jit` built it. The artifact is refused,
 * never loaded; build it again.
 */
export class StaleKernelArtifactError extends JitError {
  override name = 'StaleKernelArtifactError';
}

/**
 * A launch that the loaded kernel artifacts do not cover (another
 * signature, or a device whose architecture has neither a cubin nor PTX it
 * can run) where libNVVM is not there to compile the kernel either. The
 * message lists what was built: each signature with its cubins and PTX.
 */
export class KernelNotBuiltError extends JitError {
  override name = 'KernelNotBuiltError';
}

/** A kernel artifact that cannot be read: not a manifest of this format, a missing code file, or damaged code. */
export class KernelArtifactFormatError extends JitError {
  override name = 'KernelArtifactFormatError';
}

/** Building kernels ahead of time failed: no ptxas to make cubins, ptxas refused the PTX, or a kernel that this build cannot compile (one that links code). */
export class KernelBuildError extends JitError {
  override name = 'KernelBuildError';
}
