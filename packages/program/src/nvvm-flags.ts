import { computeName, type Architecture } from './architecture.js';
import { UnsupportedOptionError } from './errors.js';
import type { CompileTarget, ProgramOptions } from './program-options.js';

const bit = (value: boolean): string => (value ? '1' : '0');

/**
 * The libNVVM options for `options`. libNVVM stops at PTX or LTO-IR: for the
 * `cubin` target the PTX goes on to the linker, so options that only the
 * linker honours (`maxRegisters`, `lineinfo`) are accepted there alone.
 *
 * @throws {UnsupportedOptionError} for an option that libNVVM cannot honour for this target
 */
export function nvvmFlags(options: Readonly<ProgramOptions>, target: CompileTarget, arch: Architecture): string[] {
  if (options.linkTimeOptimization && target !== 'ltoir') {
    throw new UnsupportedOptionError(
      'linkTimeOptimization',
      `target '${target}'`,
      "it makes libNVVM emit LTO-IR; compile('ltoir') instead",
    );
  }
  if (target !== 'cubin') {
    if (options.maxRegisters !== undefined) {
      throw new UnsupportedOptionError(
        'maxRegisters',
        `nvvm to '${target}'`,
        "libNVVM has no register limit; it applies when linking, so compile('cubin')",
      );
    }
    if (options.lineinfo) {
      throw new UnsupportedOptionError(
        'lineinfo',
        `nvvm to '${target}'`,
        "libNVVM takes line information from the IR's debug metadata; the flag applies when linking, so compile('cubin')",
      );
    }
  }
  const level = options.optimizationLevel;
  if (level === 1 || level === 2) {
    throw new UnsupportedOptionError(
      'optimizationLevel',
      'libNVVM',
      'it accepts 0 (no optimization) or 3 (the default)',
    );
  }
  if (options.debug && level !== undefined && level !== 0) {
    throw new UnsupportedOptionError(
      'debug',
      `libNVVM with optimizationLevel ${level}`,
      'full debug information needs optimizationLevel 0',
    );
  }
  const flags = [`-arch=${computeName(arch)}`];
  if (options.debug) flags.push('-g', '-opt=0');
  else if (level !== undefined) flags.push(`-opt=${level}`);
  // fastMath has no libNVVM flag: it is the four math modes below, each overridable on its own.
  const fast = options.fastMath === true;
  const ftz = options.ftz ?? (fast ? true : undefined);
  const precDiv = options.precDiv ?? (fast ? false : undefined);
  const precSqrt = options.precSqrt ?? (fast ? false : undefined);
  const fma = options.fma ?? (fast ? true : undefined);
  if (ftz !== undefined) flags.push(`-ftz=${bit(ftz)}`);
  if (precSqrt !== undefined) flags.push(`-prec-sqrt=${bit(precSqrt)}`);
  if (precDiv !== undefined) flags.push(`-prec-div=${bit(precDiv)}`);
  if (fma !== undefined) flags.push(`-fma=${bit(fma)}`);
  if (target === 'ltoir') flags.push('-gen-lto');
  flags.push(...(options.extraFlags ?? []));
  return flags;
}
