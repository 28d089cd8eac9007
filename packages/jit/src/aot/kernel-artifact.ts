// The kernel artifact: kernels compiled ahead of time (cuda-js
// build-kernels, buildKernelArtifact), as plain data. For each kernel, its
// name, where it was defined, the hash of its definition (kernel-hash.ts)
// and, per declared signature, the symbol, the launch ABI (the parameters
// as the typed kernel laid them out, and the collectives it uses) and the
// code: a cubin per listed architecture and PTX for newer ones. At run time
// this is all a launch needs: no parsing of types, no lowering, no libNVVM.
import type { KernelCollectives, KernelParam } from '../typing/typed-ir.js';

/** The format of {@link KernelArtifact}; bumped when its shape changes. */
export const KERNEL_ARTIFACT_FORMAT = 1;

/** One piece of code of a specialization: a cubin for one real architecture, or PTX for a virtual one. */
export interface ArtifactCode {
  /** `'cubin'` (machine code, runs on `arch` and later minors of its major) or `'ptx'` (compiled by the driver on any device of `arch` or newer). */
  readonly kind: 'cubin' | 'ptx';
  /** `sm_90` for a cubin, `compute_90` for PTX. */
  readonly arch: string;
  readonly data: Uint8Array;
}

/** One signature of a kernel, compiled. */
export interface ArtifactSpecialization {
  /** The signature as the JIT writes its key: `f32, array(f32, 1d, C), ...`. */
  readonly signature: string;
  /** The kernel's entry point in the code. */
  readonly symbol: string;
  readonly params: readonly KernelParam[];
  readonly collectives: KernelCollectives;
  readonly code: readonly ArtifactCode[];
}

/** One kernel of an artifact. */
export interface ArtifactKernel {
  /** The kernel's name (`jit(fn, { name })`, else the function's); the runtime finds the kernel's entry by it. */
  readonly name: string;
  /** The hash of the kernel's definition (its text, constants, device functions, math options); a kernel whose hash differs is refused as stale. */
  readonly hash: string;
  /** Where the kernel was defined when it was built (`file:line:column`), for messages: the file relative to the working directory of the build (or the build plugin's root), never a path of the build machine. */
  readonly definedAt?: string;
  readonly specializations: readonly ArtifactSpecialization[];
}

/** Kernels compiled ahead of time, in memory. */
export interface KernelArtifact {
  readonly format: typeof KERNEL_ARTIFACT_FORMAT;
  /** The version of `@cuda-js/jit` that built it: a launch ABI is that version's, so another version refuses it. */
  readonly jitVersion: string;
  /** The toolchain that compiled it (libNVVM's version, ptxas's), for the record. */
  readonly toolchain: string;
  readonly kernels: readonly ArtifactKernel[];
}

/** What a line of the "what was built" listings says of one specialization: `(f32, ...): cubin sm_90, PTX compute_90`. */
export function describeSpecialization(spec: Pick<ArtifactSpecialization, 'signature' | 'code'>): string {
  const cubins = spec.code.filter((c) => c.kind === 'cubin').map((c) => c.arch);
  const ptx = spec.code.filter((c) => c.kind === 'ptx').map((c) => c.arch);
  const parts = [
    cubins.length > 0 ? `cubin ${cubins.join(', ')}` : 'no cubin',
    ptx.length > 0 ? `PTX ${ptx.join(', ')}` : 'no PTX',
  ];
  return `(${spec.signature}): ${parts.join('; ')}`;
}

/** What an artifact holds of one kernel, one line per signature, for messages. */
export function describeKernel(kernel: ArtifactKernel): string {
  if (kernel.specializations.length === 0) return `  ${kernel.name}: no signatures`;
  return kernel.specializations.map((s) => `  ${kernel.name}${describeSpecialization(s)}`).join('\n');
}
