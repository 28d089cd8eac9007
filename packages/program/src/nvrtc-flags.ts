import { computeName, smName, type Architecture } from './architecture.js';
import { UnsupportedOptionError } from './errors.js';
import { defineStrings, type CompileTarget, type ProgramOptions } from './program-options.js';

const onOff = (value: boolean): string => (value ? 'true' : 'false');

/**
 * The NVRTC command line for `options`: `ptx` and `ltoir` compile for the
 * virtual architecture (no SASS is generated), `cubin` for the real one.
 * `includeDirectories` (the CUDA headers) come after the user's include paths.
 *
 * @throws {UnsupportedOptionError} for `linkTimeOptimization` with a target
 *   other than `ltoir`, and for `maxRegisters` or `ptxasOptions` with a target other than `cubin`
 */
export function nvrtcFlags(
  options: Readonly<ProgramOptions>,
  target: CompileTarget,
  arch: Architecture,
  includeDirectories: readonly string[],
): string[] {
  if (options.linkTimeOptimization && target !== 'ltoir') {
    throw new UnsupportedOptionError(
      'linkTimeOptimization',
      `target '${target}'`,
      "it makes NVRTC emit LTO-IR; compile('ltoir') instead",
    );
  }
  // Both act when NVRTC assembles PTX into SASS, which only the cubin target does.
  if (target !== 'cubin') {
    if (options.maxRegisters !== undefined) {
      throw new UnsupportedOptionError(
        'maxRegisters',
        `target '${target}'`,
        "the register limit applies when PTX is assembled: compile('cubin'), or give it to the Linker",
      );
    }
    if (options.ptxasOptions?.length) {
      throw new UnsupportedOptionError(
        'ptxasOptions',
        `target '${target}'`,
        "ptxas runs only for compile('cubin'); give them to the Linker otherwise",
      );
    }
  }
  const flags = [`--gpu-architecture=${target === 'cubin' ? smName(arch) : computeName(arch)}`];
  if (target === 'ltoir') flags.push('-dlto');
  if (options.std) flags.push(`--std=${options.std}`);
  if (options.relocatableDeviceCode) flags.push('--relocatable-device-code=true');
  if (options.debug) flags.push('--device-debug');
  if (options.lineinfo) flags.push('--generate-line-info');
  if (options.fastMath) flags.push('--use_fast_math');
  if (options.fma !== undefined) flags.push(`--fmad=${onOff(options.fma)}`);
  if (options.ftz !== undefined) flags.push(`--ftz=${onOff(options.ftz)}`);
  if (options.precDiv !== undefined) flags.push(`--prec-div=${onOff(options.precDiv)}`);
  if (options.precSqrt !== undefined) flags.push(`--prec-sqrt=${onOff(options.precSqrt)}`);
  if (options.maxRegisters !== undefined) flags.push(`--maxrregcount=${options.maxRegisters}`);
  for (const define of defineStrings(options.defines)) flags.push(`--define-macro=${define}`);
  for (const dir of options.includePaths ?? []) flags.push(`--include-path=${dir}`);
  for (const dir of includeDirectories) flags.push(`--include-path=${dir}`);
  if (options.ptxasOptions?.length) flags.push(`--ptxas-options=${options.ptxasOptions.join(' ')}`);
  flags.push(...(options.extraFlags ?? []));
  return flags;
}
