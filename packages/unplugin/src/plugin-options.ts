import { isAbsolute, win32 } from 'node:path';
import {
  checkOptions,
  isAnything,
  isFunction,
  isPlainObject,
  isString,
  type OptionProblem,
  type OptionTableOf,
  type ValueCheck,
} from '@cuda-js/options';
import type { KernelRecord } from '@cuda-js/jit';

/** Options of the cuda-js build plugin. */
export interface CudaJsPluginOptions {
  /** Module specifiers whose `jit`, `vectorize` and `reduce` define kernels (default `['cuda-js', '@cuda-js/jit']`). */
  readonly modules?: readonly string[] | undefined;
  /** The modules to read (default: JavaScript and TypeScript files outside node_modules): a test of the module's id. */
  readonly include?: (RegExp | ((id: string) => boolean)) | undefined;
  /** The folder that record ids are relative to (default: the current directory). */
  readonly root?: string | undefined;
  /** Called with each record as a module is transformed (ahead-of-time builds collect them here). */
  readonly onKernel?: ((record: KernelRecord, moduleId: string) => void) | undefined;
  /**
   * What becomes of `@cuda-js/bindings`, the package with the native addon:
   * `'external'` (the default) keeps it an import of the bundle, so that its
   * addon loads from `node_modules/@cuda-js/bindings` where the app runs (ship
   * that folder with the bundle); `'bundle'` lets the bundler inline its
   * JavaScript, and the addon is then looked for in the `@cuda-js/bindings`
   * installed beside the bundle, the main script or the working directory.
   */
  readonly native?: 'external' | 'bundle';
  /**
   * Build the kernels whose signatures are declared in code
   * (`jit(fn, { signatures })`) ahead of time, at build time, and embed the
   * artifact in the bundle (loaded before the module's body runs): the app
   * then needs no libNVVM. Needs libNVVM, ptxas and esbuild on the build machine.
   */
  readonly aot?: CudaJsAotOptions | undefined;
}

/** The plugin's `aot` option: what to build the declared signatures for. */
export interface CudaJsAotOptions {
  /** The real architectures to make cubins for: `['sm_80', 'sm_90']`. */
  readonly arch: readonly string[];
  /** The virtual architectures to keep PTX for (`['compute_80']`); default the newest of `arch`; `false`: none. */
  readonly ptx?: readonly string[] | false | undefined;
  /** The ptxas that makes the cubins (default: `CUDA_JS_PTXAS`, then the CUDA toolkit's, then PATH's). */
  readonly ptxas?: string | undefined;
  /**
   * The folder of the build's output that each module's artifact is also
   * emitted into as files (`<assets>/<module>/manifest.json`, its cubins and
   * PTX, `kernels.js`), to ship or inspect; default `'kernels-aot'`; `false`:
   * embedded only. A relative folder inside the output (no `..`, not absolute).
   */
  readonly assets?: string | false | undefined;
  /**
   * Signatures to build besides those the code declares, by kernel name,
   * in numba's text: `{ axpy: ['void(float32, float32[:], float32[:])'] }`
   * (for kernels whose code declares none). A module is built when one of
   * its `jit()` calls names such a kernel: its `name` option written in the
   * call, else the function's own name.
   */
  readonly signatures?: Readonly<Record<string, readonly string[]>> | undefined;
}

/** A wrong option of the build plugin (an unknown name, with the nearest known one; a value of the wrong type). */
export class PluginOptionError extends Error {
  override name = 'PluginOptionError';
  constructor(readonly problem: OptionProblem) {
    super(problem.message);
  }
}

const isInclude: ValueCheck = (v) =>
  v instanceof RegExp || typeof v === 'function' ? undefined : 'a RegExp or a function of the module id';

const isStrings: ValueCheck = (v) =>
  Array.isArray(v) && v.every((s) => typeof s === 'string' && s !== '') ? undefined : 'an array of strings';
const isArchitectures: ValueCheck = (v) =>
  Array.isArray(v) && v.length > 0 && isStrings(v) === undefined
    ? undefined
    : "a non-empty array of architectures, ['sm_90']";
const isPtx: ValueCheck = (v) =>
  v === false || isStrings(v) === undefined ? undefined : "an array of virtual architectures (['compute_80']) or false";
/** A folder inside the build's output: relative, with no '..' step out of it (rollup refuses such a file name; esbuild's outfile route wrote there). */
const isAssets: ValueCheck = (v) => {
  if (v === false) return undefined;
  const inside =
    typeof v === 'string' &&
    v !== '' &&
    !isAbsolute(v) &&
    !win32.isAbsolute(v) &&
    !v.split(/[\\/]/).includes('..') &&
    !v.includes('\0');
  return inside ? undefined : "a folder inside the build's output ('kernels-aot', no '..' and not absolute) or false";
};
const isSignatures: ValueCheck = (v) =>
  isPlainObject(v) && Object.values(v).every((list) => isStrings(list) === undefined)
    ? undefined
    : "a plain object of kernel names and lists of signatures, { axpy: ['void(float32, float32[:], float32[:])'] }";
const isAot: ValueCheck = (v) =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? undefined : "an object, { arch: ['sm_90'] }";

const isNative: ValueCheck = (v) => (v === 'external' || v === 'bundle' ? undefined : "'external' or 'bundle'");

const PLUGIN_OPTIONS = {
  modules: isStrings,
  include: isInclude,
  root: isString,
  onKernel: isFunction,
  native: isNative,
  aot: isAot,
} satisfies OptionTableOf<CudaJsPluginOptions>;
const AOT_OPTIONS = {
  arch: isArchitectures,
  ptx: isPtx,
  ptxas: isString,
  assets: isAssets,
  signatures: isSignatures,
} satisfies OptionTableOf<CudaJsAotOptions>;

/** `options` checked against the plugin's table (and `aot` against its own). */
export function checkPluginOptions(options: unknown): CudaJsPluginOptions {
  const fail = (problem: OptionProblem): PluginOptionError => new PluginOptionError(problem);
  // plain objects only, each key read once: the plugin then reads the values checked, not the caller's object again
  const checked = checkOptions<CudaJsPluginOptions>(options, PLUGIN_OPTIONS, {
    where: 'the cuda-js build plugin',
    fail,
    plainOnly: true,
    snapshot: true,
  });
  if (checked.aot === undefined) return checked;
  const where = "the cuda-js build plugin's aot option";
  const aot = checkOptions<CudaJsAotOptions>(checked.aot, AOT_OPTIONS, {
    where,
    fail,
    plainOnly: true,
    snapshot: true,
  });
  if (aot.arch === undefined) {
    throw fail({
      kind: 'invalid',
      where,
      key: 'arch',
      value: undefined,
      expected: 'given',
      message: `${where}: give the architectures to build cubins for, aot: { arch: ['sm_90'] }`,
    });
  }
  return { ...checked, aot: aot as CudaJsAotOptions };
}

/** Checks the options of `findKernels` (the source map is read by magic-string's remapping). */
export function checkFindKernelsOptions(options: unknown): void {
  checkOptions(
    options,
    { modules: isStrings, root: isString, inputMap: isAnything, buildNames: isStrings },
    { where: 'findKernels', fail: (problem) => new PluginOptionError(problem) },
  );
}
