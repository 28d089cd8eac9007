// Building kernels ahead of time: each declared signature through the JIT's
// own pipeline (typed, lowered to NVVM IR, libNVVM to PTX per
// architecture, ptxas to a cubin), into a KernelArtifact.
import { checkArchitecture } from '../compile/architecture-requirements.js';
import { isAbsolute, relative, sep } from 'node:path';
import { describeValue, suggestName } from '@cuda-js/options';
import { computeName, nvvmIRVersion, nvvmToolchain, parseArchitecture, smName } from '@cuda-js/program';
import { compileToPtx } from '../compile/compile-kernel.js';
import { jitVersion } from '../compile/kernel-cache.js';
import { linkInputsOf } from '../compile/linked-kernel.js';
import { KernelBuildError } from '../errors.js';
import { BUILD_KERNEL_ARTIFACT_OPTIONS, checkJitOptions } from '../jit-options.js';
import type { KernelSignature } from '../typing/signature.js';
import type { JitKernel } from '../jit.js';
import { lowerKernel } from '../lower/lower-kernel.js';
import { signatureKey } from '../typing/jit-types.js';
import {
  KERNEL_ARTIFACT_FORMAT,
  type ArtifactCode,
  type ArtifactKernel,
  type ArtifactSpecialization,
  type KernelArtifact,
} from './kernel-artifact.js';
import { findPtxas, ptxasCandidates, ptxasCubin, ptxasVersion } from './ptxas.js';

/** Options of {@link buildKernelArtifact}. */
export interface BuildKernelArtifactOptions {
  /** The real architectures to make cubins for: `['sm_90', 'sm_80']`. */
  readonly arch: readonly string[];
  /**
   * The virtual architectures to keep PTX for (`['compute_80']`), which the
   * driver compiles on any device of that architecture or newer; default:
   * the newest of `arch` (as nvcc keeps PTX of the virtual architecture it
   * compiled for), so devices newer than every cubin run it. `false`: no PTX.
   */
  readonly ptx?: readonly string[] | false | undefined;
  /** The ptxas that makes the cubins (default: `CUDA_JS_PTXAS`, then the CUDA toolkit's, then PATH's). */
  readonly ptxas?: string | undefined;
  /**
   * Signatures to build besides those the kernels declare, by kernel name:
   * `{ axpy: ['void(float32, float32[:], float32[:])'] }` or
   * `{ axpy: [[f32, array(f32, 1), array(f32, 1)]] }` (a build's
   * configuration, for kernels whose code declares none).
   */
  readonly signatures?: Readonly<Record<string, readonly KernelSignature[]>> | undefined;
}

/**
 * The build's signatures by kernel name, checked: every name is one of
 * `names` (the kernels the build was given, or that its module made),
 * every value a list.
 */
export function buildSignatures(
  option: BuildKernelArtifactOptions['signatures'],
  names: readonly string[],
): ReadonlyMap<string, readonly KernelSignature[]> {
  const out = new Map<string, readonly KernelSignature[]>();
  if (option === undefined) return out;
  for (const [name, list] of Object.entries(option)) {
    if (!names.includes(name)) {
      const near = suggestName(name, names);
      throw new KernelBuildError(
        `buildKernelArtifact: signatures names '${name}', which no kernel of the build is called${near === undefined ? '' : ` (did you mean '${near}'?)`}; the kernels: ${names.join(', ') || '(none)'}`,
      );
    }
    if (!Array.isArray(list))
      throw new KernelBuildError(
        `buildKernelArtifact: signatures.${name} is a list of signatures, ['void(float32, float32[:])']; got ${describeValue(list)}`,
      );
    out.set(name, list);
  }
  return out;
}

const encoder = new TextEncoder();

function architectures(
  names: readonly string[],
  what: string,
  name: (a: ReturnType<typeof parseArchitecture>) => string,
): string[] {
  const out: string[] = [];
  for (const n of names) {
    const a = name(parseArchitecture(n));
    if (!out.includes(a)) out.push(a);
  }
  if (out.length === 0 && what === 'arch')
    throw new KernelBuildError(
      'buildKernelArtifact: give at least one architecture to build cubins for (arch: ["sm_90"])',
    );
  return out;
}

function capability(arch: string): number {
  const a = parseArchitecture(arch);
  return a.major * 10 + a.minor;
}

/**
 * A kernel's `file:line:column` as an artifact keeps it: an absolute file
 * (the jit() call's, where no build plugin recorded the kernel) relative to
 * the working directory of the build, with `/`, so that the artifact holds no
 * path of the machine that built it and builds from two checkouts are the
 * same. The build plugin's record ids are relative already.
 */
export function portablePlace(definedAt: string): string {
  const m = /^(.*):(\d+):(\d+)$/.exec(definedAt);
  if (!m || !isAbsolute(m[1]!)) return definedAt;
  const rel = relative(process.cwd(), m[1]!);
  return isAbsolute(rel) || rel === '' ? definedAt : `${rel.split(sep).join('/')}:${m[2]}:${m[3]}`;
}

/**
 * Compiles each kernel's declared signatures (`jit(fn, { signatures })`)
 * for `options.arch` (cubins) and `options.ptx` (PTX), needing libNVVM and
 * ptxas but no GPU. Kernel names must be unique within an artifact (the
 * runtime finds entries by name): give two kernels of one name `name`.
 *
 * @throws {KernelBuildError} for a kernel without signatures, two kernels of one name, a kernel that links code, or no ptxas
 * @throws the JIT's own errors (KernelTypeError, ...) for a signature that does not type
 */
export function buildKernelArtifact(kernels: Iterable<JitKernel>, given: BuildKernelArtifactOptions): KernelArtifact {
  const options = checkJitOptions<BuildKernelArtifactOptions>(
    'buildKernelArtifact()',
    given,
    BUILD_KERNEL_ARTIFACT_OPTIONS,
  ) as BuildKernelArtifactOptions;
  const cubinArchs = architectures(options.arch, 'arch', smName);
  const ptxArchs =
    options.ptx === false
      ? []
      : architectures(
          options.ptx ?? [cubinArchs.reduce((a, b) => (capability(b) > capability(a) ? b : a))],
          'ptx',
          computeName,
        );
  const ptxas = cubinArchs.length === 0 ? undefined : (options.ptxas ?? findPtxas());
  if (cubinArchs.length > 0 && ptxas === undefined) {
    throw new KernelBuildError(
      `buildKernelArtifact: no ptxas to make cubins with; looked at ${ptxasCandidates().join(', ')}. Install the CUDA toolkit or set CUDA_JS_PTXAS`,
    );
  }
  const all = [...kernels];
  const extra = buildSignatures(
    options.signatures,
    all.map((k) => k.name),
  );
  const out: ArtifactKernel[] = [];
  const seen = new Map<string, string>();
  for (const kernel of all) {
    const source = kernel.aotSource(extra.get(kernel.name));
    const known = seen.get(source.name);
    if (known === source.hash) continue;
    if (known !== undefined) {
      throw new KernelBuildError(
        `buildKernelArtifact: two different kernels are named ${source.name} (${source.definedAt ?? 'unknown place'} is the second); give one another name with jit(fn, { name }) (an arrow function passed to jit() has no name of its own: it is named after the const it is assigned to, else 'kernel')`,
      );
    }
    seen.set(source.name, source.hash);
    if (source.signatures.length === 0)
      throw new KernelBuildError(
        `buildKernelArtifact: ${source.name} declares no signatures; give them with jit(fn, { signatures: [[...]] }) or in the build's signatures option`,
      );
    const specializations = source.signatures.map((types, index): ArtifactSpecialization => {
      const symbol = source.symbolFor(index);
      const typed = source.type(types, symbol);
      if (linkInputsOf(typed).length > 0) {
        throw new KernelBuildError(
          `buildKernelArtifact: ${source.name} calls linked code (declareDevice with link); kernels that link code are not built ahead of time yet: the JIT compiles them at run time`,
        );
      }
      const ir = lowerKernel(typed, { irVersion: nvvmIRVersion(), fastMath: source.fastMath === true });
      // one libNVVM compile per virtual architecture: sm_90's cubin and compute_90's PTX share it
      const ptxOf = new Map<string, string>();
      const ptxFor = (arch: string): string => {
        const virtual = computeName(parseArchitecture(arch));
        let ptx = ptxOf.get(virtual);
        if (ptx === undefined) {
          checkArchitecture(typed, virtual);
          ptx = compileToPtx(ir, { arch: virtual, fma: source.fma, fastMath: source.fastMath, name: source.name });
          ptxOf.set(virtual, ptx);
        }
        return ptx;
      };
      const code: ArtifactCode[] = [];
      for (const arch of cubinArchs)
        code.push({ kind: 'cubin', arch, data: ptxasCubin(ptxas!, ptxFor(arch), arch, source.name) });
      for (const arch of ptxArchs) code.push({ kind: 'ptx', arch, data: encoder.encode(ptxFor(arch)) });
      return { signature: signatureKey(types), symbol, params: typed.params, collectives: typed.collectives, code };
    });
    out.push({
      name: source.name,
      hash: source.hash,
      ...(source.definedAt === undefined ? {} : { definedAt: portablePlace(source.definedAt) }),
      specializations,
    });
  }
  const toolchain = [
    `libNVVM ${nvvmToolchain().version}`,
    ...(ptxas === undefined ? [] : [`ptxas ${ptxasVersion(ptxas)}`]),
  ].join(', ');
  return { format: KERNEL_ARTIFACT_FORMAT, jitVersion: jitVersion(), toolchain, kernels: out };
}
