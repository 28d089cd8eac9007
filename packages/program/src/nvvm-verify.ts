import { computeName, parseArchitecture } from './architecture.js';
import { cuda } from './cuda-bindings.js';
import { isAnything, isString } from '@cuda-js/options';
import { InvalidCodeError } from './errors.js';
import { checkProgramOptions } from './option-validation.js';

/** Options of {@link verifyNvvm}. */
export interface VerifyNvvmOptions {
  /**
   * The architecture to check against (`'sm_90'`, `'compute_90'`, `90`).
   * Default: libNVVM's own default, since what verification checks (the IR's
   * well-formedness and NVVM's rules) hardly depends on it, and a code
   * generator may verify where there is no device.
   */
  readonly arch?: string | number | undefined;
  /** The module's name in the log. Default `program.ll`. */
  readonly name?: string | undefined;
}

/**
 * Checks that NVVM IR (text or bitcode) is valid for libNVVM without
 * compiling it (`nvvmVerifyProgram`): for code generators, which would
 * rather hear about their own mistakes as such than as a failed compile.
 *
 * @returns the log libNVVM wrote (warnings), usually empty
 * @throws `NvvmError` (from @cuda-js/bindings) with the log when the IR is not valid
 * @throws {InvalidCodeError} for empty input
 * @throws LibraryNotFoundError where there is no libNVVM
 */
export function verifyNvvm(ir: string | Uint8Array, options: VerifyNvvmOptions = {}): string {
  options = checkProgramOptions<VerifyNvvmOptions>('verifyNvvm', options, { arch: isAnything, name: isString });
  if (typeof ir !== 'string' && !(ir instanceof Uint8Array))
    throw new InvalidCodeError('NVVM IR must be a string or a Uint8Array');
  if ((typeof ir === 'string' ? ir.length : ir.byteLength) === 0) throw new InvalidCodeError('nvvm code is empty');
  const flags = options.arch === undefined ? [] : [`-arch=${computeName(parseArchitecture(options.arch))}`];
  const api = cuda.nvvm;
  const prog = api.nvvmCreateProgram();
  try {
    api.nvvmAddModuleToProgram(prog, ir, options.name ?? 'program.ll');
    api.nvvmVerifyProgram(prog, flags);
    return api.nvvmGetProgramLog(prog).replace(/\0+$/, '');
  } finally {
    api.nvvmDestroyProgram(prog);
  }
}
