// What a launch of one signature on one architecture takes from the loaded
// kernel artifacts: the cubin that runs there, else PTX for the driver,
// else the JIT where libNVVM is present, else a KernelNotBuiltError that
// lists what was built. An entry of the kernel's name whose definition hash
// differs is refused as stale, whatever else there is.
import { nvvmToolchain } from '@cuda-js/program';
import { KernelNotBuiltError, StaleKernelArtifactError } from '../errors.js';
import { chooseCode } from './choose-code.js';
import {
  describeKernel,
  type ArtifactCode,
  type ArtifactKernel,
  type ArtifactSpecialization,
} from './kernel-artifact.js';
import { artifactKernelsNamed } from './kernel-artifacts.js';

/** The kernel as the runtime knows it, for the lookup. */
export interface ArtifactLookup {
  readonly name: string;
  /** Its definition's hash now (kernel-hash.ts), made only when an entry of its name is there. */
  readonly hash: () => string;
  /** Where it is defined now, for messages. */
  readonly definedAt: string | undefined;
}

/** What the artifacts give one launch. */
export type ArtifactChoice =
  /** No loaded artifact names the kernel: the JIT compiles it as always. */
  | { readonly kind: 'none' }
  /** The code to load. */
  | {
      readonly kind: 'code';
      readonly code: ArtifactCode;
      readonly specialization: ArtifactSpecialization;
      readonly entry: ArtifactKernel;
    }
  /** The artifact names the kernel but does not cover this launch (`reason`): the JIT compiles it, where libNVVM is present. */
  | { readonly kind: 'uncovered'; readonly reason: string; readonly entry: ArtifactKernel };

function shortHash(hash: string): string {
  return hash.slice(0, 12);
}

/**
 * The artifacts' answer for `signature` (a signature key) on `arch`
 * (`sm_90`). An `arch` of undefined asks only whether the signature is
 * there (with no device, nothing can be picked).
 *
 * @throws {StaleKernelArtifactError} when the artifacts name the kernel but none was built from its definition as it is now
 */
export function artifactChoice(kernel: ArtifactLookup, signature: string, arch: string): ArtifactChoice {
  const named = artifactKernelsNamed(kernel.name);
  if (named.length === 0) return { kind: 'none' };
  const hash = kernel.hash();
  const entry = named.find((k) => k.hash === hash);
  if (!entry) {
    const built = named[0]!;
    const where = kernel.definedAt === undefined ? '' : ` (defined at ${kernel.definedAt})`;
    const builtAt = built.definedAt === undefined ? '' : ` from the kernel at ${built.definedAt}`;
    throw new StaleKernelArtifactError(
      `${kernel.name}${where}: the kernel artifact's entry was built${builtAt} with definition hash ${shortHash(built.hash)}, and the kernel's text, constants, device functions or math options now hash to ${shortHash(hash)}: the artifact is stale and is not loaded; build it again with cuda-js build-kernels`,
    );
  }
  const specialization = entry.specializations.find((s) => s.signature === signature);
  if (!specialization) return { kind: 'uncovered', reason: `the signature (${signature})`, entry };
  const code = chooseCode(specialization.code, arch);
  if (!code)
    return {
      kind: 'uncovered',
      reason: `a device of architecture ${arch} (no cubin runs there, and no PTX is as old as it)`,
      entry,
    };
  return { kind: 'code', code, specialization, entry };
}

/**
 * The artifacts' answer for one launch, as the JIT acts on it: an uncovered
 * launch throws KernelNotBuiltError where libNVVM cannot compile it instead.
 *
 * @throws {StaleKernelArtifactError} as {@link artifactChoice}
 * @throws {KernelNotBuiltError} for an uncovered launch without libNVVM
 */
export function launchArtifactChoice(kernel: ArtifactLookup, signature: string, arch: string): ArtifactChoice {
  const choice = artifactChoice(kernel, signature, arch);
  if (choice.kind === 'uncovered') {
    const why = nvvmUnavailable();
    if (why !== undefined) throw notBuiltError(kernel.name, choice.reason, choice.entry, arch, why);
  }
  return choice;
}

/** Why libNVVM cannot be used here, or undefined where it can (loading it, as the JIT would). */
export function nvvmUnavailable(): string | undefined {
  try {
    nvvmToolchain();
    return undefined;
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
  }
}

/** The error of a launch that the artifacts do not cover (`reason`) where libNVVM cannot compile it: it lists what was built. */
export function notBuiltError(
  kernel: string,
  reason: string,
  entry: ArtifactKernel,
  arch: string | undefined,
  why: string,
  cause?: unknown,
): KernelNotBuiltError {
  const build = arch === undefined ? 'cuda-js build-kernels' : `cuda-js build-kernels --arch ${arch}`;
  return new KernelNotBuiltError(
    `${kernel}: the loaded kernel artifact does not cover ${reason}, and the JIT cannot compile it here (${why}). Built:\n${describeKernel(entry)}\nBuild for it (${build}, with the signature in jit(fn, { signatures })), or install libNVVM (the CUDA toolkit's nvvm) for the JIT.`,
    undefined,
    cause === undefined ? undefined : { cause },
  );
}
