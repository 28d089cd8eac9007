import { parseArchitecture } from './architecture.js';
import {
  isBoolean,
  isIntegerIn,
  isNonEmptyString,
  isOneOf,
  isStringArray,
  isStringRecord,
  validateOptions,
  type OptionSpec,
} from './option-validation.js';

/** The kinds of source a {@link Program} compiles. */
export type CodeType = 'c++' | 'nvvm' | 'ptx';

/** What {@link Program.compile} produces. */
export type CompileTarget = 'ptx' | 'cubin' | 'ltoir';

/** The C++ dialects NVRTC accepts. */
export type CxxStandard = 'c++03' | 'c++11' | 'c++14' | 'c++17' | 'c++20';

/**
 * Options of a {@link Program}: a plain object with camelCase names, mapped
 * to NVRTC flags (`c++`), libNVVM flags (`nvvm`) or linker options (`ptx`, and
 * the link step of `nvvm` to `cubin`). An unknown name is an
 * {@link UnknownOptionError}; a name that the code type cannot honour is an
 * {@link UnsupportedOptionError}. Nothing is silently ignored.
 */
export interface ProgramOptions {
  /** The program's name: the file name that compile logs use. Default `program.cu` (`program.ll`, `program.ptx`). */
  readonly name?: string | undefined;
  /**
   * Target GPU: `'sm_90'`, `'sm_90a'`, `'compute_90'` or `90`. The compile
   * target picks the real (`sm_`) or virtual (`compute_`) form. Default: the
   * current device's; required where there is no device.
   */
  readonly arch?: string | number | undefined;
  /** C++ dialect (`--std`). c++ only. */
  readonly std?: CxxStandard | undefined;
  /** Macros (`--define-macro`): `{ N: 256, USE_FAST: true }` or `['N=256', 'USE_FAST']`; `false` leaves one undefined. c++ only. */
  readonly defines?: Readonly<Record<string, string | number | boolean>> | readonly string[] | undefined;
  /** Extra include folders (`--include-path`), searched before the CUDA headers. c++ only. */
  readonly includePaths?: readonly string[] | undefined;
  /** Add the CUDA header folders that `@cuda-js/pathfinder` finds (cuda_runtime.h, CCCL) to the include path. Default true. c++ only. */
  readonly defaultIncludePaths?: boolean | undefined;
  /** In-memory headers, by include name: `{ 'params.h': '#define N 4' }`. c++ only. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Full device debug information (`-G` for NVRTC, `-g` with `-opt=0` for libNVVM, `-g` for the linker). */
  readonly debug?: boolean | undefined;
  /** Line information for profilers (`-lineinfo`). For nvvm, only on the link step to cubin (libNVVM takes line info from the IR's debug metadata). */
  readonly lineinfo?: boolean | undefined;
  /** Fast, less precise math (`--use_fast_math`; for libNVVM: ftz, approximate div and sqrt, fma, unless set one by one). */
  readonly fastMath?: boolean | undefined;
  /** Contract multiplies and adds into FMA (`--fmad`, `-fma`). Default true. */
  readonly fma?: boolean | undefined;
  /** Flush single-precision denormals to zero (`--ftz`, `-ftz`). Default false. */
  readonly ftz?: boolean | undefined;
  /** IEEE-rounded single-precision division (`--prec-div`, `-prec-div`). Default true. */
  readonly precDiv?: boolean | undefined;
  /** IEEE-rounded single-precision square root (`--prec-sqrt`, `-prec-sqrt`). Default true. */
  readonly precSqrt?: boolean | undefined;
  /** Register limit per thread (`--maxrregcount`; for ptx and nvvm-to-cubin, the linker's `-maxrregcount`). */
  readonly maxRegisters?: number | undefined;
  /** Relocatable device code (`-rdc=true`), for linking with other device code. c++ only. */
  readonly relocatableDeviceCode?: boolean | undefined;
  /** Emit LTO-IR for link-time optimization (`-dlto`, `-gen-lto`). Implied by the `ltoir` target, refused by the others. */
  readonly linkTimeOptimization?: boolean | undefined;
  /** Optimization level: libNVVM `-opt=` (0 or 3), linker `-O`. nvvm and ptx. */
  readonly optimizationLevel?: 0 | 1 | 2 | 3 | undefined;
  /** Link libdevice (the `__nv_*` math functions) into the NVVM program, lazily. nvvm only. */
  readonly useLibdevice?: boolean | undefined;
  /** More NVVM IR modules (text or bitcode) linked into the program. nvvm only. */
  readonly extraModules?: readonly (string | Uint8Array)[] | undefined;
  /** Options passed to ptxas (`--ptxas-options`, linker `-Xptxas`). c++ and ptx. */
  readonly ptxasOptions?: readonly string[] | undefined;
  /** Flags passed as they are to the backend (NVRTC, libNVVM or the linker), after the mapped ones. */
  readonly extraFlags?: readonly string[] | undefined;
}

const ALL: readonly CodeType[] = ['c++', 'nvvm', 'ptx'];
const CXX: readonly CodeType[] = ['c++'];
const CXX_NVVM: readonly CodeType[] = ['c++', 'nvvm'];

const isArch = (v: unknown): string | undefined => {
  try {
    parseArchitecture(v);
    return undefined;
  } catch {
    return "an architecture such as 'sm_90', 'sm_90a', 'compute_90' or 90";
  }
};

const MACRO_NAME = /^[A-Za-z_]\w*$/;

const isDefines = (v: unknown): string | undefined => {
  const expected = "an object of macro values ({ N: 256, DEBUG: true }) or an array of 'NAME' / 'NAME=VALUE' strings";
  if (Array.isArray(v))
    return v.every((d) => typeof d === 'string' && MACRO_NAME.test(d.split('=')[0]!)) ? undefined : expected;
  if (v === null || typeof v !== 'object') return expected;
  return Object.entries(v).every(([k, x]) => MACRO_NAME.test(k) && ['string', 'number', 'boolean'].includes(typeof x))
    ? undefined
    : expected;
};

const isModules = (v: unknown): string | undefined =>
  Array.isArray(v) &&
  v.every((m) => (typeof m === 'string' && m.length > 0) || (m instanceof Uint8Array && m.byteLength > 0))
    ? undefined
    : 'an array of NVVM IR modules (non-empty text strings or bitcode Uint8Arrays)';

/** Every ProgramOptions entry: its value check and the code types that accept it. */
export const PROGRAM_OPTION_SPECS: Readonly<Record<keyof ProgramOptions, OptionSpec<CodeType>>> = {
  name: { check: isNonEmptyString, appliesTo: ALL },
  arch: { check: isArch, appliesTo: ALL },
  std: {
    check: isOneOf(['c++03', 'c++11', 'c++14', 'c++17', 'c++20']),
    appliesTo: CXX,
    notApplicable: 'it selects a C++ dialect',
  },
  defines: { check: isDefines, appliesTo: CXX, notApplicable: 'macros exist only in C++ source' },
  includePaths: { check: isStringArray, appliesTo: CXX, notApplicable: 'only C++ source has #include' },
  defaultIncludePaths: { check: isBoolean, appliesTo: CXX, notApplicable: 'only C++ source has #include' },
  headers: { check: isStringRecord, appliesTo: CXX, notApplicable: 'only C++ source has #include' },
  debug: { check: isBoolean, appliesTo: ALL },
  lineinfo: { check: isBoolean, appliesTo: ALL },
  fastMath: {
    check: isBoolean,
    appliesTo: CXX_NVVM,
    notApplicable: 'PTX is already compiled; math modes are chosen when it is generated',
  },
  fma: {
    check: isBoolean,
    appliesTo: CXX_NVVM,
    notApplicable: 'PTX is already compiled; math modes are chosen when it is generated',
  },
  ftz: {
    check: isBoolean,
    appliesTo: CXX_NVVM,
    notApplicable: 'PTX is already compiled; math modes are chosen when it is generated',
  },
  precDiv: {
    check: isBoolean,
    appliesTo: CXX_NVVM,
    notApplicable: 'PTX is already compiled; math modes are chosen when it is generated',
  },
  precSqrt: {
    check: isBoolean,
    appliesTo: CXX_NVVM,
    notApplicable: 'PTX is already compiled; math modes are chosen when it is generated',
  },
  maxRegisters: { check: isIntegerIn(1, 255), appliesTo: ALL },
  relocatableDeviceCode: {
    check: isBoolean,
    appliesTo: CXX,
    notApplicable: 'libNVVM and the linker have no relocatable-device-code mode',
  },
  linkTimeOptimization: { check: isBoolean, appliesTo: CXX_NVVM, notApplicable: 'PTX cannot be turned into LTO-IR' },
  optimizationLevel: {
    check: isIntegerIn(0, 3),
    appliesTo: ['nvvm', 'ptx'],
    notApplicable: 'NVRTC has no optimization level; use extraFlags for its -dopt',
  },
  useLibdevice: { check: isBoolean, appliesTo: ['nvvm'], notApplicable: 'libdevice is NVVM IR, linked by libNVVM' },
  extraModules: { check: isModules, appliesTo: ['nvvm'], notApplicable: 'extra modules are NVVM IR' },
  ptxasOptions: {
    check: isStringArray,
    appliesTo: ['c++', 'ptx'],
    notApplicable: 'libNVVM stops at PTX; ptxas options belong to the link step',
  },
  extraFlags: { check: isStringArray, appliesTo: ALL },
};

/** The code types a {@link Program} accepts. */
export const CODE_TYPES: readonly CodeType[] = ALL;

/**
 * Checks `options` for `codeType`: unknown names, wrong values and options
 * that the code type cannot honour throw; returns a frozen copy.
 *
 * @throws {UnknownOptionError} {@link InvalidOptionError} {@link UnsupportedOptionError}
 */
export function resolveProgramOptions(options: unknown, codeType: CodeType): Readonly<ProgramOptions> {
  return validateOptions<CodeType, ProgramOptions>(
    'ProgramOptions',
    options,
    PROGRAM_OPTION_SPECS,
    codeType,
    `code type '${codeType}'`,
  );
}

/** `defines` as `NAME` / `NAME=VALUE` strings, in the order given. */
export function defineStrings(defines: ProgramOptions['defines']): string[] {
  if (!defines) return [];
  if (Array.isArray(defines)) return [...(defines as readonly string[])];
  const out: string[] = [];
  for (const [name, value] of Object.entries(defines as Record<string, string | number | boolean>)) {
    if (value === false) continue;
    out.push(value === true ? name : `${name}=${value}`);
  }
  return out;
}
