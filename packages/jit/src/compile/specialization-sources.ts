// Where the code of a kernel's GPU specialization comes from, in order
// (SPECIALIZATION_SOURCES): a loaded kernel artifact (aot/: its cubin or
// PTX, nothing typed or compiled), the disk cache (kernel-cache.ts: a cubin
// kept by an earlier process, nothing typed or compiled), and a compile now
// (typed, lowered, compiled by compile-kernel.ts). The first source that
// answers gives the loaded code; the specialization and its KernelLauncher
// are made over it here, in one place, whichever source it was.
import { checkArchitecture } from './architecture-requirements.js';
import { Device } from '@cuda-js/core';
import { nvvmIRVersion, ObjectCode, type Kernel } from '@cuda-js/program';
import { launchArtifactChoice, notBuiltError, nvvmUnavailable, type ArtifactLookup } from '../aot/artifact-choice.js';
import type { KernelConstant } from '../device-function.js';
import type { JitTarget } from '../jit.js';
import { KernelLauncher } from '../launch/kernel-launcher.js';
import { lowerKernel } from '../lower/lower-kernel.js';
import type { SimulatedKernel } from '../simulate/simulated-kernel.js';
import type { JitType } from '../typing/jit-types.js';
import type { KernelParam, TypedKernel } from '../typing/typed-ir.js';
import { compileKernel } from './compile-kernel.js';
import { kernelSourceKey, readCachedKernel, writeCachedKernel } from './kernel-cache.js';
import type { KernelCompileOptions } from './kernel-compile-options.js';
import { linkInputsOf } from './linked-kernel.js';

/**
 * Where a specialization's code came from: compiled now (`'jit'`), the disk
 * cache (`'disk-cache'`), a kernel artifact's cubin or PTX
 * (`'artifact-cubin'`, `'artifact-ptx'`: no typing, lowering or libNVVM),
 * or none (`'simulator'`).
 */
export type SpecializationOrigin = 'jit' | 'disk-cache' | 'artifact-cubin' | 'artifact-ptx' | 'simulator';

/** One kernel compiled for one signature. */
export interface Specialization {
  readonly signature: readonly JitType[];
  readonly key: string;
  readonly typed: TypedKernel;
  readonly target: JitTarget;
  /** Where the code came from (a kernel artifact, the disk cache, compiled now). */
  readonly origin: SpecializationOrigin;
  /**
   * The compiled kernel on the GPU (undefined in the simulator), as numba's
   * dispatcher gives each overload: `attributes()` has its registers
   * (`numRegs`), static shared memory (`sharedSizeBytes`), local memory per
   * thread (`localSizeBytes`) and `maxThreadsPerBlock`; `occupancy` the
   * occupancy calculator.
   */
  readonly kernel?: Kernel;
}

/** @internal A specialization on the GPU: its loaded code and the launcher over it. */
export interface GpuSpecialization extends Specialization {
  /** The loaded code (the kernel lives as long as it does). */
  readonly objectCode: ObjectCode;
  readonly launcher: KernelLauncher;
  readonly kernel: Kernel;
}

/** @internal A specialization in the CPU simulator. */
export interface SimulatorSpecialization extends Specialization {
  readonly simulator: SimulatedKernel;
}

/** @internal A specialization of either target. */
export type AnySpecialization = GpuSpecialization | SimulatorSpecialization;

/** @internal What the sources ask of the kernel that one signature is specialized for (JitKernel gives it). */
export interface SpecializationRequest {
  /** The kernel's name, in messages and the names of its code. */
  readonly name: string;
  readonly types: readonly JitType[];
  /** The signature's key (`signatureKey(types)`). */
  readonly key: string;
  /** The kernel as the artifacts' lookup knows it. */
  readonly artifact: ArtifactLookup;
  /** The kernel's text and its constants, for the disk cache's key. */
  readonly source: string;
  readonly constants: Readonly<Record<string, KernelConstant>>;
  /** Whether the kernel computes f32 math approximately (`fastMath`), for lowering. */
  readonly fastMath: boolean;
  /** The symbol of the code that the JIT makes (compiled now, or kept in the disk cache). */
  symbol(): string;
  /** The compile options; with the disk cache where the kernel uses it. */
  compileOptions(): KernelCompileOptions;
  /** The kernel typed for `types`, its code named `symbol`. */
  type(symbol: string): TypedKernel;
  /** The kernel's disk-cache lookups, which the sources count. */
  readonly cacheStats: { hits: number; misses: number };
}

/** The code that one source loaded, with what the launcher needs of it. */
interface LoadedCode {
  readonly origin: 'jit' | 'disk-cache' | 'artifact-cubin' | 'artifact-ptx';
  readonly objectCode: ObjectCode;
  readonly kernel: Kernel;
  readonly params: readonly KernelParam[];
  readonly cooperative: boolean;
  /** The code's symbol. */
  readonly symbol: string;
  /** The typed kernel where the source made it; else it is made (for `symbol`) when `typed` is first read. */
  readonly typed?: TypedKernel;
}

/** What the sources of one specialization work out once, when the first that needs it asks. */
class Sourcing {
  readonly request: SpecializationRequest;
  #symbol: string | undefined;
  #options: KernelCompileOptions | undefined;
  #sourceKey: { readonly key: string | undefined } | undefined;

  constructor(request: SpecializationRequest) {
    this.request = request;
  }

  get symbol(): string {
    return (this.#symbol ??= this.request.symbol());
  }

  get options(): KernelCompileOptions {
    return (this.#options ??= this.request.compileOptions());
  }

  /** The first-level disk-cache key of the specialization (the kernel as written, before typing); undefined without the cache. */
  get sourceKey(): string | undefined {
    if (this.#sourceKey === undefined) {
      const { symbol, options } = this;
      this.#sourceKey = { key: options.cache ? diskCacheKey(this.request, symbol, options) : undefined };
    }
    return this.#sourceKey.key;
  }
}

function diskCacheKey(request: SpecializationRequest, symbol: string, options: KernelCompileOptions): string {
  const arch = options.arch ?? Device.current()?.arch;
  return kernelSourceKey({
    source: request.source,
    constants: request.constants,
    signature: request.key,
    symbol,
    options: {
      arch: arch === undefined ? undefined : String(arch),
      fma: options.fma,
      fastMath: options.fastMath,
      route: options.route,
    },
  });
}

/** One place the code may come from: the loaded code, or undefined where the next source is to be asked. */
type SpecializationSource = (sourcing: Sourcing) => LoadedCode | undefined;

/**
 * A loaded kernel artifact's cubin for the device's architecture, else its
 * PTX (compiled by the driver). Undefined where the artifacts do not cover
 * the launch, or their code does not load and libNVVM can compile instead.
 */
function fromArtifact({ request }: Sourcing): LoadedCode | undefined {
  const arch = (Device.current() ?? Device.get(0)).arch;
  const choice = launchArtifactChoice(request.artifact, request.key, arch);
  if (choice.kind !== 'code') return undefined;
  const { code, specialization, entry } = choice;
  let objectCode: ObjectCode | undefined;
  let kernel: Kernel;
  try {
    const init = { name: `${request.name}.${code.arch}.${code.kind}` };
    objectCode = code.kind === 'cubin' ? ObjectCode.fromCubin(code.data, init) : ObjectCode.fromPtx(code.data, init);
    kernel = objectCode.getKernel(specialization.symbol);
  } catch (error) {
    objectCode?.close();
    // PTX newer than the driver, say: the JIT may still compile it where libNVVM is
    const why = nvvmUnavailable();
    const first = error instanceof Error ? error.message.split('\n')[0] : String(error);
    if (why !== undefined)
      throw notBuiltError(
        request.name,
        `loading its ${code.kind} for ${code.arch} on this ${arch} (${first})`,
        entry,
        arch,
        why,
        error,
      );
    return undefined;
  }
  const origin = code.kind === 'cubin' ? 'artifact-cubin' : 'artifact-ptx';
  return {
    origin,
    objectCode,
    kernel,
    params: specialization.params,
    cooperative: specialization.collectives.grid,
    symbol: specialization.symbol,
  };
}

/** The disk cache's cubin (compile/kernel-cache.ts's first-level entry), looked up before anything is typed. */
function fromDiskCache(sourcing: Sourcing): LoadedCode | undefined {
  const { request, symbol, options, sourceKey } = sourcing;
  const hit = options.cache && sourceKey ? readCachedKernel(options.cache, sourceKey) : undefined;
  if (!hit) return undefined;
  const objectCode = ObjectCode.fromCubin(hit.code, { name: `${request.name}.cubin` });
  let kernel: Kernel;
  try {
    kernel = objectCode.getKernel(hit.symbol);
  } catch (error) {
    objectCode.close();
    throw error;
  }
  request.cacheStats.hits++;
  return { origin: 'disk-cache', objectCode, kernel, params: hit.params, cooperative: hit.collectives.grid, symbol };
}

/** Typed, lowered and compiled now; with the disk cache, its cubin is kept there. */
function compiledNow(sourcing: Sourcing): LoadedCode {
  const { request, symbol, options, sourceKey } = sourcing;
  const typed = request.type(symbol);
  checkArchitecture(typed, options.arch ?? Device.current()?.arch);
  const nvvm = lowerKernel(typed, { irVersion: nvvmIRVersion(), fastMath: request.fastMath });
  const cache = options.cache;
  const before = cache?.stats();
  const compiled = compileKernel(nvvm, symbol, { ...options, link: linkInputsOf(typed) });
  if (cache && before) {
    // the PTX step's lookup is the kernel's: a hit there skipped libNVVM
    if (cache.stats().hits > before.hits) request.cacheStats.hits++;
    else request.cacheStats.misses++;
  }
  if (cache && sourceKey && compiled.route === 'cubin') {
    writeCachedKernel(cache, sourceKey, {
      symbol,
      params: typed.params,
      collectives: typed.collectives,
      code: compiled.objectCode.code,
    });
  }
  return {
    origin: 'jit',
    objectCode: compiled.objectCode,
    kernel: compiled.kernel,
    params: typed.params,
    cooperative: typed.collectives.grid,
    symbol,
    typed,
  };
}

/** The sources of a GPU specialization's code, asked in this order; the last always answers. */
export const SPECIALIZATION_SOURCES: readonly SpecializationSource[] = [fromArtifact, fromDiskCache, compiledNow];

/**
 * The GPU specialization of `request`'s signature: the code of the first
 * source that answers, and the KernelLauncher over it. Where the code was
 * not typed (an artifact, the disk cache), the typed kernel is made only if
 * `typed` is read.
 */
export function gpuSpecialization(request: SpecializationRequest): GpuSpecialization {
  const sourcing = new Sourcing(request);
  for (const source of SPECIALIZATION_SOURCES) {
    const code = source(sourcing);
    if (code !== undefined) return specializationOf(request, code);
  }
  throw new Error(`${request.name}: no source gave the code of the signature ${request.key}`);
}

function specializationOf(request: SpecializationRequest, code: LoadedCode): GpuSpecialization {
  const { objectCode, kernel } = code;
  const launcher = new KernelLauncher(kernel, code.params, request.name, { cooperative: code.cooperative });
  const signature = [...request.types];
  const { key } = request;
  if (code.typed !== undefined)
    return { signature, key, typed: code.typed, target: 'gpu', origin: code.origin, objectCode, launcher, kernel };
  const { symbol } = code;
  let made: TypedKernel | undefined;
  return {
    signature,
    key,
    target: 'gpu',
    origin: code.origin,
    get typed() {
      return (made ??= request.type(symbol));
    },
    objectCode,
    launcher,
    kernel,
  };
}
