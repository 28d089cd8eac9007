import type { CompileCache, LinkerOptions, LogSink, ProgramOptions } from '@cuda-js/program';
import { jitCache, wantsCache } from './jit-cache.js';
import type { LinkInput } from '../external-device-function.js';
import type { CompileRoute } from './compile-route.js';

export type { CompileRoute } from './compile-route.js';

/** Options of {@link compileToPtx} and {@link compileKernel}. */
export interface KernelCompileOptions {
  /** Target architecture (`'sm_90'`, `90`); default: the current device's. */
  readonly arch?: string | number;
  /** Contract multiply-adds into FMA. Default libNVVM's (true, as nvcc). Off keeps every f32 op rounded on its own, as the simulator does. */
  readonly fma?: boolean;
  /** Fast, less precise f32 math: flush denormals, approximate division and square root, FMA. */
  readonly fastMath?: boolean;
  /** Flush f32 denormals to zero; overrides `fastMath`'s choice. */
  readonly ftz?: boolean;
  /** IEEE-rounded f32 division; overrides `fastMath`'s choice. */
  readonly precDiv?: boolean;
  /** IEEE-rounded f32 square root; overrides `fastMath`'s choice. */
  readonly precSqrt?: boolean;
  /** libNVVM's optimization level: 3 (default) or 0. */
  readonly optimizationLevel?: 0 | 3;
  /** Register limit per thread; applied by the linker, so it takes the `'cubin'` route. */
  readonly maxRegisters?: number;
  /** Line information for profilers; added by the linker, so it takes the `'cubin'` route. */
  readonly lineinfo?: boolean;
  /** The kernel's name, for compile logs (`<name>.ll`). */
  readonly name?: string;
  /** The route asked for (see {@link CompileRoute}; compile-route.ts decides the one taken). Default `'auto'`. */
  readonly route?: CompileRoute;
  /** A compile cache for the PTX (and the cubin). */
  readonly cache?: CompileCache;
  /** Receives libNVVM's log, when there is one (and NVRTC's and the linker's, for `link` inputs). */
  readonly logs?: LogSink;
  /**
   * Code that the kernel calls (the `link` of its `declareDevice` functions),
   * linked with it into a cubin (see linked-kernel.ts): `{ cuda }` compiled
   * by NVRTC, `{ ptx }` and ObjectCodes as they are. An LTO-IR input makes
   * the whole link one with link-time optimization, through nvJitLink.
   */
  readonly link?: readonly LinkInput[];
}

/**
 * The compile options of a JIT kernel (of its `arch`, `fma`, `fastMath` and
 * `cache` options). With the disk cache, the route asked for is `'cubin'`:
 * the cubin is made and kept too, so that a hit loads machine code, with no
 * PTX for the driver to compile (compile-route.ts decides the rest).
 */
export function jitCompileOptions(
  options: {
    readonly arch?: string | undefined;
    readonly fma?: boolean | undefined;
    readonly fastMath?: boolean | undefined;
    readonly cache?: boolean | undefined;
  },
  name: string,
): KernelCompileOptions {
  const cache = wantsCache(options.cache) ? jitCache() : undefined;
  return {
    arch: options.arch,
    fma: options.fma,
    fastMath: options.fastMath,
    name,
    ...(cache ? { cache, route: 'cubin' } : {}),
  };
}

/** Whether NVVM IR calls libdevice (`__nv_*`): linking it costs a few milliseconds, so kernels without math skip it. */
export function callsLibdevice(ir: string): boolean {
  return /^declare [^\n]* @__nv_/m.test(ir);
}

/** The Program options of the libNVVM step for `ir`. */
export function nvvmProgramOptions(options: KernelCompileOptions, ir?: string): ProgramOptions {
  const useLibdevice = ir === undefined || callsLibdevice(ir);
  const out: { -readonly [K in keyof ProgramOptions]: ProgramOptions[K] } = {
    useLibdevice,
    name: `${options.name ?? 'kernel'}.ll`,
  };
  if (options.arch !== undefined) out.arch = options.arch;
  if (options.fma !== undefined) out.fma = options.fma;
  if (options.fastMath !== undefined) out.fastMath = options.fastMath;
  if (options.ftz !== undefined) out.ftz = options.ftz;
  if (options.precDiv !== undefined) out.precDiv = options.precDiv;
  if (options.precSqrt !== undefined) out.precSqrt = options.precSqrt;
  if (options.optimizationLevel !== undefined) out.optimizationLevel = options.optimizationLevel;
  return out;
}

/**
 * The Linker options of a kernel linked with its `link` inputs: the link
 * step's options, and with link-time optimization (`lto`) also the math
 * modes and the optimization level, which nvJitLink then applies to the code
 * it generates (so that they mean what they mean for libNVVM).
 */
export function linkerOptions(options: KernelCompileOptions, lto: boolean): LinkerOptions {
  const out: { -readonly [K in keyof LinkerOptions]: LinkerOptions[K] } = { name: `${options.name ?? 'kernel'}.cubin` };
  if (options.arch !== undefined) out.arch = options.arch;
  if (options.maxRegisters !== undefined) out.maxRegisters = options.maxRegisters;
  if (options.lineinfo !== undefined) out.lineinfo = options.lineinfo;
  if (!lto) return out;
  out.backend = 'nvJitLink';
  out.linkTimeOptimization = true;
  const fast = options.fastMath === true;
  const ftz = options.ftz ?? (fast ? true : undefined);
  const precDiv = options.precDiv ?? (fast ? false : undefined);
  const precSqrt = options.precSqrt ?? (fast ? false : undefined);
  const fma = options.fma ?? (fast ? true : undefined);
  if (ftz !== undefined) out.ftz = ftz;
  if (precDiv !== undefined) out.precDiv = precDiv;
  if (precSqrt !== undefined) out.precSqrt = precSqrt;
  if (fma !== undefined) out.fma = fma;
  if (options.optimizationLevel !== undefined) out.optimizationLevel = options.optimizationLevel;
  return out;
}

/** The Program options of the link step (PTX to cubin). */
export function linkProgramOptions(options: KernelCompileOptions): ProgramOptions {
  const out: { -readonly [K in keyof ProgramOptions]: ProgramOptions[K] } = { name: `${options.name ?? 'kernel'}.ptx` };
  if (options.arch !== undefined) out.arch = options.arch;
  if (options.maxRegisters !== undefined) out.maxRegisters = options.maxRegisters;
  if (options.lineinfo !== undefined) out.lineinfo = options.lineinfo;
  return out;
}
