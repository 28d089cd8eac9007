import { checkOptions, isAnything, isArray, isFunction, isString, type OptionProblem, type OptionTable, type ValueCheck } from '@cuda-js/options';
import type { KernelRecord } from '@cuda-js/jit';

/** Options of the cuda-js build plugin. */
export interface CudaJsPluginOptions {
  /** Module specifiers whose `jit`, `vectorize` and `reduce` define kernels (default `['cuda-js', '@cuda-js/jit']`). */
  readonly modules?: readonly string[];
  /** The modules to read (default: JavaScript and TypeScript files outside node_modules): a test of the module's id. */
  readonly include?: RegExp | ((id: string) => boolean);
  /** The folder that record ids are relative to (default: the current directory). */
  readonly root?: string;
  /** Called with each record as a module is transformed (ahead-of-time builds collect them here). */
  readonly onKernel?: (record: KernelRecord, moduleId: string) => void;
}

/** A wrong option of the build plugin (an unknown name, with the nearest known one; a value of the wrong type). */
export class PluginOptionError extends Error {
  override name = 'PluginOptionError';
  constructor(readonly problem: OptionProblem) {
    super(problem.message);
  }
}

const isInclude: ValueCheck = (v) => (v instanceof RegExp || typeof v === 'function' ? undefined : 'a RegExp or a function of the module id');

const PLUGIN_OPTIONS: OptionTable = { modules: isArray, include: isInclude, root: isString, onKernel: isFunction };

/** `options` checked against the plugin's table. */
export function checkPluginOptions(options: unknown): CudaJsPluginOptions {
  return checkOptions<CudaJsPluginOptions>(options, PLUGIN_OPTIONS, { where: 'the cuda-js build plugin', fail: (problem) => new PluginOptionError(problem) });
}

/** Checks the options of `findKernels` (the source map is read by magic-string's remapping). */
export function checkFindKernelsOptions(options: unknown): void {
  checkOptions(options, { modules: isArray, root: isString, inputMap: isAnything }, { where: 'findKernels', fail: (problem) => new PluginOptionError(problem) });
}
