import { checkOptions, isAnything, isArray, isBoolean, isNonEmptyString, isOneOf, isString, type OptionTable, type ValueCheck } from '@cuda-js/options';
import { JitOptionError } from './errors.js';

/** Checks `options` against `table` with the stack's options checker, failing with a JitOptionError. */
export function checkJitOptions<T extends object>(where: string, options: unknown, table: OptionTable): Readonly<Partial<T>> {
  // numba's spellings of the same options, for the suggestion
  return checkOptions<T>(options, table, { where, fail: (problem) => new JitOptionError(problem), aliases: NUMBA_NAMES });
}

const NUMBA_NAMES: Readonly<Record<string, string>> = { fastmath: 'fastMath', lineinfo: 'debug', opt: 'optimize' };

export const isObject: ValueCheck = (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? undefined : 'an object of names and values');

export const isJitTarget: ValueCheck = isOneOf(['gpu', 'simulator']);

/** `jit(fn, options)`: every key of JitOptions. */
export const JIT_OPTIONS: OptionTable = {
  target: isJitTarget,
  // the constants are snapshotted (and checked) by the kernel's constants reader
  constants: isAnything,
  name: isString,
  arch: isNonEmptyString,
  fma: isBoolean,
  fastMath: isBoolean,
  cache: isBoolean,
  simulatorBudget: (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? undefined : 'a positive whole number of loop iterations'),
  // each signature is checked by resolveSignature, with its own messages
  signatures: isArray,
};

/** `jit.device(fn, options)`. */
export const DEVICE_FUNCTION_OPTIONS: OptionTable = { constants: isAnything, name: isString, returns: isAnything };
