import { driver, type DriverEnums } from '@cuda-js/bindings';
import { computeCapability, computeName, parseArchitecture, smName, type Architecture } from './architecture.js';
import { UnsupportedOptionError, UnsupportedTargetError } from './errors.js';
import {
  isBoolean,
  isIntegerIn,
  isNonEmptyString,
  isOneOf,
  isStringArray,
  validateOptions,
  type OptionSpec,
} from './option-validation.js';

/** The linker library that does the work. */
export type LinkerBackend = 'nvJitLink' | 'driver';

/** What {@link Linker.link} produces. */
export type LinkTarget = 'cubin' | 'ptx';

/**
 * Options of a {@link Linker}, a plain object with camelCase names. nvJitLink
 * honours all of them; the driver's cuLink* (the fallback) only `backend`, `name`,
 * `arch`, `maxRegisters`, `optimizationLevel`, `debug`, `lineinfo` and
 * `verbose`, and refuses the rest with an {@link UnsupportedOptionError}.
 */
export interface LinkerOptions {
  /** The backend to link with; default: nvJitLink where it is present, else the driver. */
  readonly backend?: LinkerBackend | undefined;
  /** Name given to the linked ObjectCode. */
  readonly name?: string | undefined;
  /** Target GPU (`'sm_90'`, `90`). Default: the current device's. */
  readonly arch?: string | number | undefined;
  /** Register limit per thread (`-maxrregcount`). */
  readonly maxRegisters?: number | undefined;
  /** Timing information in the info log (`-time`). nvJitLink only. */
  readonly time?: boolean | undefined;
  /** Verbose info log (`-verbose`). */
  readonly verbose?: boolean | undefined;
  /** Link-time optimization (`-lto`); on by itself when an input is LTO-IR. nvJitLink only. */
  readonly linkTimeOptimization?: boolean | undefined;
  /** Optimization level (`-O`): nvJitLink accepts 0 and 3, the driver 0 to 3 (its 4 is the default). */
  readonly optimizationLevel?: 0 | 1 | 2 | 3 | undefined;
  /** Debug information (`-g`). */
  readonly debug?: boolean | undefined;
  /** Line information (`-lineinfo`). */
  readonly lineinfo?: boolean | undefined;
  /** LTO math modes (`-ftz`, `-prec-div`, `-prec-sqrt`, `-fma`). nvJitLink only. */
  readonly ftz?: boolean | undefined;
  readonly precDiv?: boolean | undefined;
  readonly precSqrt?: boolean | undefined;
  readonly fma?: boolean | undefined;
  /** Kernels that are used; the others may be removed (`-kernels-used`). nvJitLink only. */
  readonly kernelsUsed?: readonly string[] | undefined;
  /** Variables that are used (`-variables-used`). nvJitLink only. */
  readonly variablesUsed?: readonly string[] | undefined;
  /** Remove device variables that device code does not reference (`-optimize-unused-variables`). nvJitLink only. */
  readonly optimizeUnusedVariables?: boolean | undefined;
  /** Options passed to ptxas (`-Xptxas`). nvJitLink only. */
  readonly ptxasOptions?: readonly string[] | undefined;
  /** Threads for split compilation (`-split-compile`; 0: all processors). nvJitLink only. */
  readonly splitCompile?: number | undefined;
  /** Flags passed as they are to nvJitLink. nvJitLink only. */
  readonly extraFlags?: readonly string[] | undefined;
}

const BOTH: readonly LinkerBackend[] = ['nvJitLink', 'driver'];
const JITLINK: readonly LinkerBackend[] = ['nvJitLink'];
const JITLINK_ONLY = 'the driver linker (cuLink*) has no such option; install nvJitLink';

const isArch = (v: unknown): string | undefined => {
  try {
    parseArchitecture(v);
    return undefined;
  } catch {
    return "an architecture such as 'sm_90' or 90";
  }
};

/** Every LinkerOptions entry: its value check and the backends that honour it. */
export const LINKER_OPTION_SPECS: Readonly<Record<keyof LinkerOptions, OptionSpec<LinkerBackend>>> = {
  backend: { check: isOneOf(['nvJitLink', 'driver']), appliesTo: BOTH },
  name: { check: isNonEmptyString, appliesTo: BOTH },
  arch: { check: isArch, appliesTo: BOTH },
  maxRegisters: { check: isIntegerIn(1, 255), appliesTo: BOTH },
  time: { check: isBoolean, appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
  verbose: { check: isBoolean, appliesTo: BOTH },
  linkTimeOptimization: {
    check: isBoolean,
    appliesTo: JITLINK,
    notApplicable: 'link-time optimization needs nvJitLink',
  },
  optimizationLevel: { check: isIntegerIn(0, 3), appliesTo: BOTH },
  debug: { check: isBoolean, appliesTo: BOTH },
  lineinfo: { check: isBoolean, appliesTo: BOTH },
  ftz: { check: isBoolean, appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
  precDiv: { check: isBoolean, appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
  precSqrt: { check: isBoolean, appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
  fma: { check: isBoolean, appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
  kernelsUsed: { check: isStringArray, appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
  variablesUsed: { check: isStringArray, appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
  optimizeUnusedVariables: { check: isBoolean, appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
  ptxasOptions: { check: isStringArray, appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
  splitCompile: { check: isIntegerIn(0, 1024), appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
  extraFlags: { check: isStringArray, appliesTo: JITLINK, notApplicable: JITLINK_ONLY },
};

/**
 * Checks `options` for `backend`.
 *
 * @throws {UnknownOptionError} {@link InvalidOptionError} {@link UnsupportedOptionError}
 */
export function resolveLinkerOptions(options: unknown, backend: LinkerBackend): Readonly<LinkerOptions> {
  const name = backend === 'driver' ? 'the driver linker (cuLink*)' : 'nvJitLink';
  return validateOptions<LinkerBackend, LinkerOptions>('LinkerOptions', options, LINKER_OPTION_SPECS, backend, name);
}

const bit = (value: boolean): string => (value ? '1' : '0');

/**
 * The nvJitLink options for a link to `target` for `arch`. PTX output needs
 * link-time optimization (`lto`).
 *
 * @throws {UnsupportedTargetError} for `ptx` without LTO
 * @throws {UnsupportedOptionError} for optimization levels 1 and 2
 */
export function nvJitLinkFlags(
  options: Readonly<LinkerOptions>,
  arch: Architecture,
  target: LinkTarget,
  lto: boolean,
): string[] {
  if (target === 'ptx' && !lto) {
    throw new UnsupportedTargetError(
      'a link without LTO-IR inputs',
      target,
      ['cubin'],
      'nvJitLink emits PTX only from link-time optimization: link LTO-IR inputs, or set linkTimeOptimization',
    );
  }
  const level = options.optimizationLevel;
  if (level === 1 || level === 2)
    throw new UnsupportedOptionError('optimizationLevel', 'nvJitLink', 'it accepts 0 or 3');
  const flags = [`-arch=${target === 'ptx' ? computeName(arch) : smName(arch)}`];
  if (lto) flags.push('-lto');
  if (target === 'ptx') flags.push('-ptx');
  if (options.maxRegisters !== undefined) flags.push(`-maxrregcount=${options.maxRegisters}`);
  if (options.time) flags.push('-time');
  if (options.verbose) flags.push('-verbose');
  if (level !== undefined) flags.push(`-O${level}`);
  if (options.debug) flags.push('-g');
  if (options.lineinfo) flags.push('-lineinfo');
  if (options.ftz !== undefined) flags.push(`-ftz=${bit(options.ftz)}`);
  if (options.precDiv !== undefined) flags.push(`-prec-div=${bit(options.precDiv)}`);
  if (options.precSqrt !== undefined) flags.push(`-prec-sqrt=${bit(options.precSqrt)}`);
  if (options.fma !== undefined) flags.push(`-fma=${bit(options.fma)}`);
  for (const k of options.kernelsUsed ?? []) flags.push(`-kernels-used=${k}`);
  for (const v of options.variablesUsed ?? []) flags.push(`-variables-used=${v}`);
  if (options.optimizeUnusedVariables) flags.push('-optimize-unused-variables');
  for (const p of options.ptxasOptions ?? []) flags.push(`-Xptxas=${p}`);
  if (options.splitCompile !== undefined) flags.push(`-split-compile=${options.splitCompile}`);
  flags.push(...(options.extraFlags ?? []));
  return flags;
}

/** One driver JIT option (a `CUjit_option` name) and its value. */
export interface DriverJitOption {
  readonly option: Extract<keyof DriverEnums['CUjit_option'], string>;
  readonly value: number;
}

// CUjit_target values: the compute capability, plus these bases for the `a` and `f` variants.
const {
  CU_COMPUTE_ACCELERATED_TARGET_BASE: ACCELERATED_TARGET_BASE,
  CU_COMPUTE_FAMILY_TARGET_BASE: FAMILY_TARGET_BASE,
} = driver.constants;

/** The `CUjit_target` value of an architecture (`CU_TARGET_COMPUTE_90A` for sm_90a). */
export function jitTarget(arch: Architecture): number {
  const base = arch.suffix === 'a' ? ACCELERATED_TARGET_BASE : arch.suffix === 'f' ? FAMILY_TARGET_BASE : 0;
  return base + computeCapability(arch);
}

/**
 * The driver's cuLink* options for `options` (the log buffers are the
 * bindings' concern). Only `cubin` can be produced.
 */
export function driverJitOptions(options: Readonly<LinkerOptions>, arch: Architecture): DriverJitOption[] {
  const out: DriverJitOption[] = [{ option: 'CU_JIT_TARGET', value: jitTarget(arch) }];
  if (options.maxRegisters !== undefined) out.push({ option: 'CU_JIT_MAX_REGISTERS', value: options.maxRegisters });
  if (options.optimizationLevel !== undefined)
    out.push({ option: 'CU_JIT_OPTIMIZATION_LEVEL', value: options.optimizationLevel });
  if (options.debug) out.push({ option: 'CU_JIT_GENERATE_DEBUG_INFO', value: 1 });
  if (options.lineinfo) out.push({ option: 'CU_JIT_GENERATE_LINE_INFO', value: 1 });
  if (options.verbose) out.push({ option: 'CU_JIT_LOG_VERBOSE', value: 1 });
  return out;
}
