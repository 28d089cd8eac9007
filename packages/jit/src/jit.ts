import {
  ARTIFACT_CODE_OPTIONS,
  checkJitOptions,
  COOPERATIVE_GRID_OPTIONS,
  FORALL_OPTIONS,
  INSPECT_OPTIONS,
  JIT_OPTIONS,
  LAUNCH_OPTIONS,
} from './jit-options.js';
import { Device, LaunchConfig, type LaunchBatch, type LaunchConfigOptions } from '@cuda-js/core';
import { snapshotConstants } from './constants-snapshot.js';
import { readDim3, type Dim3 } from '@cuda-js/program';
import { launchArtifactChoice, type ArtifactLookup } from './aot/artifact-choice.js';
import { noteKernel } from './aot/collect-kernels.js';
import { kernelHash } from './aot/kernel-hash.js';
import type { StreamArgument } from '@cuda-js/streams';
import { checkSimulatorStream } from './simulate/simulator-stream-check.js';
import { inspectKernel, type KernelInspection } from './compile/kernel-inspection.js';
import { jitCompileOptions, type KernelCompileOptions } from './compile/kernel-compile-options.js';
import {
  gpuSpecialization,
  type AnySpecialization,
  type GpuSpecialization,
  type SimulatorSpecialization,
  type Specialization,
  type SpecializationRequest,
} from './compile/specialization-sources.js';
import { device, type DeviceFunctionCallable, type DeviceFunctionOptions } from './device-function.js';
import { KernelArgumentError, KernelTypeError, NoGpuError, SIMULATOR_HINT } from './errors.js';
import { refuseBracketLaunch } from './launch-spelling.js';
import { ArgumentKinds } from './launch/argument-kinds.js';
import { declaredDimensionsError, fitDeclaredSignature, sameTypes } from './launch/declared-signature-fit.js';
import { argumentTypes } from './launch/argument-types.js';
import { capturedArraysOf, type CapturedArrays } from './captured-arrays.js';
import { forallConfig } from './launch/forall.js';
import type { LaunchArguments } from './launch/launch-arguments.js';
import { hasOnlyLaunchKeys, withoutStream } from './launch/kernel-launcher.js';
import { parseKernel, type ParsedKernel } from './parse/parse-kernel.js';
import { explainRewrite } from './parse/rewritten-kernel.js';
import { callSiteBinding } from './parse/call-site-binding.js';
import { captureCallSite, type CallSite } from './parse/source-locator.js';
import { SimulatedKernel } from './simulate/simulated-kernel.js';
import { signatureKey, type JitType } from './typing/jit-types.js';
import { resolveSignature, type KernelSignature } from './typing/signature.js';
import { typeKernel, type KernelConstant } from './typing/type-kernel.js';
import type { TypedKernel } from './typing/typed-ir.js';

/** Where a kernel runs: the GPU, or the CPU simulator. */
export type JitTarget = 'gpu' | 'simulator';

export interface JitOptions {
  /** `'gpu'` (default) or `'simulator'`; `CUDA_JS_SIMULATOR=1` in the environment makes the simulator the default. */
  readonly target?: JitTarget | undefined;
  /** Names the kernel reads that are not parameters, baked into its code: `{ N: 16 }`. */
  readonly constants?: Readonly<Record<string, KernelConstant>> | undefined;
  /** The kernel's name in messages and PTX (default: the function's name). */
  readonly name?: string | undefined;
  /** Target architecture (`'sm_90'`); default: the current device's. */
  readonly arch?: string | undefined;
  /** Contract multiply-adds into FMA (default true, as nvcc does). The simulator does not contract. */
  readonly fma?: boolean | undefined;
  /**
   * numba's `fastmath=True`: f32 denormals flushed to zero, approximate f32
   * division and square root, FMA contraction (libNVVM's flags), and f32
   * `Math.sin`, `cos`, `tan`, `exp`, `log`, `log2`, `log10`, `pow` (and `**`)
   * computed by libdevice's fast approximate forms (`__nv_fast_sinf`, ...).
   * The simulator computes the precise functions, which lie within the
   * documented error of the approximate ones.
   */
  readonly fastMath?: boolean | undefined;
  /**
   * Keep the compiled code in the disk cache ({@link jitCache}) and take it
   * from there in later processes. Default: `CUDA_JS_JIT_CACHE=1` in the
   * environment turns it on.
   */
  readonly cache?: boolean | undefined;
  /**
   * In the simulator, the loop iterations a launch may take, all threads
   * together, before it stops with a SimulatorError at the loop (default:
   * `CUDA_JS_SIMULATOR_BUDGET` in the environment, else 10^10). The GPU ignores it.
   */
  readonly simulatorBudget?: number | undefined;
  /**
   * The signatures to compile ahead of time (`cuda-js build-kernels`,
   * {@link buildKernelArtifact}): `[[f32, array(f32, 1), array(f32, 1)]]`,
   * or as numba writes them, `['void(float32, float32[:], float32[:])']`.
   * At run time a launch of one of them loads the code of a loaded kernel
   * artifact ({@link loadKernelArtifact}) where there is one; otherwise, and
   * for other signatures, the kernel compiles as always.
   */
  readonly signatures?: readonly KernelSignature[] | undefined;
}

/**
 * What the loaded kernel artifacts give a launch of one signature on one
 * architecture (see {@link JitKernel.artifactCode}): the `'cubin'` or
 * `'ptx'` of `arch` that it loads, or `'jit'` with the reason that the JIT
 * compiles it (no artifact names the kernel, or one does but not for this).
 */
export type ArtifactCodeChoice =
  | { readonly kind: 'cubin' | 'ptx'; readonly arch: string; readonly symbol: string; readonly bytes: number }
  | { readonly kind: 'jit'; readonly reason: string };

/** @internal What building a kernel ahead of time needs of it (aot/build-kernel-artifact.ts). */
export interface AotSource {
  readonly name: string;
  readonly hash: string;
  readonly definedAt: string | undefined;
  readonly fma: boolean | undefined;
  readonly fastMath: boolean | undefined;
  /** The declared signatures and the build's, each once, each with the types of the captured device arrays after it. */
  readonly signatures: readonly (readonly JitType[])[];
  /** The symbol of the `index`-th of `signatures`. */
  symbolFor(index: number): string;
  type(types: readonly JitType[], symbol: string): TypedKernel;
}

/** A kernel's disk-cache lookups: compiles answered from the cache, and compiles that missed it. */
export interface KernelCacheStats {
  readonly hits: number;
  readonly misses: number;
}

/** `launch` options: a LaunchConfig's fields, and the stream to launch on (default: the legacy default stream). */
export interface JitLaunchOptions extends LaunchConfigOptions {
  readonly stream?: StreamArgument | undefined;
  /**
   * A launch batch of core's `launchBatch(stream, (batch) => ...)`: the launch
   * is recorded into it (on its stream; leave `stream` out), device memory only.
   * The simulator runs it at once.
   */
  readonly batch?: LaunchBatch | undefined;
}

/** Options of {@link JitKernel.maxCooperativeGridBlocks}. */
export interface CooperativeGridOptions {
  /** The specialization to ask about (compiled now where it is not yet); default: the kernel's only one. */
  readonly signature?: KernelSignature | undefined;
  /** Dynamic shared memory per block, in bytes (default 0). */
  readonly sharedMemory?: number | undefined;
}

/**
 * Threads per multiprocessor that every CUDA GPU keeps resident at least
 * (sm_75's limit is 1024; others have more): the simulator's answer to
 * {@link JitKernel.maxCooperativeGridBlocks}, as for a GPU of one such
 * multiprocessor, so a grid sized by it is co-resident on any GPU.
 */
const SIMULATOR_RESIDENT_THREADS = 1024;

/** @internal The target of kernels made without one: the simulator under `CUDA_JS_SIMULATOR=1`, else the GPU. */
export function defaultTarget(): JitTarget {
  const flag = process.env['CUDA_JS_SIMULATOR'];
  return flag !== undefined && flag !== '' && flag !== '0' ? 'simulator' : 'gpu';
}

function symbolFor(name: string, index: number): string {
  const base = name.replace(/[^A-Za-z0-9_]/g, '_').replace(/^([0-9])/, '_$1') || 'kernel';
  return index === 0 ? base : `${base}_${index}`;
}

/**
 * Makes the first device current where no context is (numba does the same
 * on first use). Without a driver or a device, says how to use the simulator.
 */
function ensureContext(kernel: string): void {
  try {
    if (!Device.current()) Device.get(0).setCurrent();
  } catch (error) {
    // a missing or broken native addon (a bundle that lost it, say) is not a machine without a GPU: its own error says what to do
    if (error instanceof Error && (error.name === 'AddonNotFoundError' || error.name === 'AddonLoadError')) throw error;
    const reason = error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
    throw new NoGpuError(`${kernel}: there is no GPU to run on (${reason}); ${SIMULATOR_HINT}`, undefined, {
      cause: error,
    });
  }
}

/**
 * A kernel written as a JavaScript function, compiled per signature on
 * first use (numba's dispatcher): the signature comes from the launch's
 * arguments, or is given to {@link compile}.
 */
export class JitKernel<Params extends readonly unknown[] = unknown[]> {
  #name: string | undefined;
  readonly target: JitTarget;
  readonly #fn: (...args: never[]) => unknown;
  readonly #options: JitOptions;
  readonly #callSite: CallSite | undefined;
  /** The device arrays in the constants, passed after the arguments on every launch (captured-arrays.ts); the kernel holds them. */
  readonly #captured: CapturedArrays;
  #parsed: ParsedKernel | undefined;
  readonly #specializations = new Map<string, AnySpecialization>();
  #last: AnySpecialization | undefined;
  /** The arguments `#last` was chosen for: the same kinds again choose it with no type work. */
  readonly #lastKinds = new ArgumentKinds();
  #compiles = 0;
  readonly #cacheStats = { hits: 0, misses: 0 };
  /** The declared signatures (`signatures`), resolved. */
  readonly #declared: readonly (readonly JitType[])[];
  #hash: string | undefined;

  /** @internal use {@link jit}. */
  constructor(fn: (...args: never[]) => unknown, options: JitOptions, callSite: CallSite | undefined) {
    if (typeof fn !== 'function')
      throw new TypeError(`jit: expected a function, got ${fn === null ? 'null' : typeof fn}`);
    // the values checked, each read once: later reads are of this copy
    options = checkJitOptions<JitOptions>('jit()', options, JIT_OPTIONS) as JitOptions;
    const target = options.target ?? defaultTarget();
    this.#fn = fn;
    // one snapshot of the constants: what the compile reads is what the cache keys on
    this.#options = { ...options, constants: snapshotConstants(options.constants, 'jit') };
    this.#callSite = callSite;
    this.#captured = capturedArraysOf(options.constants);
    this.target = target;
    // parse now, so that syntax errors and free variables show at the definition
    this.#parse();
    this.#declared = (options.signatures ?? []).map((signature) => resolveSignature(signature));
    noteKernel(this);
  }

  /**
   * The kernel's name, in messages, PTX symbols and ahead-of-time artifacts:
   * the `name` option, else the function's own name (`function saxpy`),
   * else the name the kernel is assigned to where it is made (`const saxpy
   * = jit(...)`, `{ saxpy: jit(...) }`: the build plugin's record, or the
   * line of the jit() call, read the first time the name is asked for),
   * else `kernel`.
   */
  get name(): string {
    if (this.#name === undefined) {
      const parsed = this.#parse();
      this.#name =
        this.#options.name ?? (parsed.named ? parsed.name : (callSiteBinding(this.#callSite) ?? parsed.name));
    }
    return this.#name;
  }

  /** Where the kernel was defined: the build plugin's record id (`src/app.ts:12:20`), else `file:line:column` of the jit() call, where that is known. */
  get #definedAt(): string | undefined {
    const recorded = this.#parse().record?.id;
    if (recorded !== undefined) return recorded;
    const site = this.#callSite;
    return site === undefined ? undefined : `${site.file}:${site.line}:${site.column}`;
  }

  /** The hash of the kernel's definition that an artifact's entry must have (aot/kernel-hash.ts). */
  #definitionHash(): string {
    return (this.#hash ??= kernelHash({
      source: this.#parse().source,
      constants: this.#options.constants ?? {},
      fma: this.#options.fma,
      fastMath: this.#options.fastMath,
    }));
  }

  #artifactLookup(): ArtifactLookup {
    return { name: this.name, hash: () => this.#definitionHash(), definedAt: this.#definedAt };
  }

  /** @internal Whether the kernel declares `signatures` (asked of every kernel a module makes when its kernels are collected; cheaper than {@link aotSource}, which hashes the definition). */
  get declaresSignatures(): boolean {
    return this.#declared.length > 0;
  }

  /** @internal The kernel as building it ahead of time needs it (aot/build-kernel-artifact.ts), with the build's own signatures for it after the declared ones. */
  aotSource(buildSignatures: readonly KernelSignature[] = []): AotSource {
    const signatures: (readonly JitType[])[] = [];
    for (const types of [...this.#declared, ...buildSignatures.map((signature) => resolveSignature(signature))]) {
      const withCaptured = this.#withCapturedTypes(types);
      if (!signatures.some((known) => signatureKey(known) === signatureKey(withCaptured)))
        signatures.push(withCaptured);
    }
    return {
      name: this.name,
      hash: this.#definitionHash(),
      definedAt: this.#definedAt,
      fma: this.#options.fma,
      fastMath: this.#options.fastMath,
      signatures,
      symbolFor: (index) => symbolFor(this.name, index),
      type: (types, symbol) => this.#type(types, symbol),
    };
  }

  /**
   * What the loaded kernel artifacts ({@link loadKernelArtifact}) give a
   * launch of `signature` on a device of `arch` (`'sm_90'`; default: the
   * current device's): the cubin or PTX that it loads, or `'jit'` where the
   * JIT compiles it. Reads no code and compiles nothing (libNVVM is loaded
   * only to see whether it is there, where the artifacts do not cover the
   * launch).
   *
   * @throws {StaleKernelArtifactError} when an artifact names the kernel but was built from another definition of it
   * @throws {KernelNotBuiltError} when an artifact names the kernel but does not cover this launch and libNVVM is not there (the message lists what was built)
   */
  artifactCode(signature: KernelSignature, options: { readonly arch?: string | undefined } = {}): ArtifactCodeChoice {
    checkJitOptions(`${this.name}.artifactCode`, options, ARTIFACT_CODE_OPTIONS);
    const types = this.#withCapturedTypes(resolveSignature(signature));
    const arch = options.arch ?? Device.current()?.arch ?? Device.get(0).arch;
    const choice = launchArtifactChoice(this.#artifactLookup(), signatureKey(types), arch);
    if (choice.kind === 'code')
      return {
        kind: choice.code.kind,
        arch: choice.code.arch,
        symbol: choice.specialization.symbol,
        bytes: choice.code.data.byteLength,
      };
    return {
      kind: 'jit',
      reason:
        choice.kind === 'none'
          ? 'no loaded kernel artifact names the kernel'
          : `the loaded kernel artifact does not cover ${choice.reason}`,
    };
  }

  /** The simulator budget option of the kernel, as run options (none: the environment's or the default). */
  #budget(): { readonly simulatorBudget?: number } {
    const budget = this.#options.simulatorBudget;
    return budget === undefined ? {} : { simulatorBudget: budget };
  }

  #parse(): ParsedKernel {
    return (this.#parsed ??= parseKernel(this.#fn, this.#callSite));
  }

  /** How many specializations were compiled (one per signature). */
  get compileCount(): number {
    return this.#compiles;
  }

  /** The compiled specializations, by signature key. */
  get specializations(): ReadonlyMap<string, Specialization> {
    return this.#specializations;
  }

  /**
   * Compiles the kernel for `signature` now (the scalar makers `f32`, `i32`,
   * ... and {@link array} types): `kernel.compile([f32, array(f32, 1), array(f32, 1)])`.
   */
  compile(signature: KernelSignature): Specialization {
    return this.#specialize(this.#withCapturedTypes(resolveSignature(signature)));
  }

  /** A signature of the kernel's own parameters, with the types of the captured device arrays after them. */
  #withCapturedTypes(types: readonly JitType[]): readonly JitType[] {
    const { names, values } = this.#captured;
    return names.length === 0 ? types : [...types, ...argumentTypes(values, names, this.target)];
  }

  /** The launch's arguments, with the captured device arrays after them. */
  #withCaptured(args: readonly unknown[]): readonly unknown[] {
    return this.#captured.values.length === 0 ? args : [...args, ...this.#captured.values];
  }

  /**
   * The types, NVVM IR, PTX and simulator code of the kernel for `signature`,
   * each made when first read. The PTX needs libNVVM, and an architecture:
   * `options.arch` (`'sm_90'`), else the kernel's own `arch` option
   * (`jit(fn, { arch: 'sm_90' })`), else the current device's; with none of
   * them (no GPU, the simulator) reading `ptx` throws `ArchitectureRequiredError`.
   */
  inspect(signature: KernelSignature, options: { readonly arch?: string } = {}): KernelInspection {
    checkJitOptions(`${this.name}.inspect`, options, INSPECT_OPTIONS);
    const inspectArch = options.arch;
    const types = this.#withCapturedTypes(resolveSignature(signature));
    const typed = this.#type(types, this.#symbolFor(signatureKey(types)));
    const baseOptions = this.#compileOptions();
    const compileOptions = inspectArch === undefined ? baseOptions : { ...baseOptions, arch: inspectArch };
    return inspectKernel(typed, { name: this.name, compileOptions, locator: this.#parse().locator });
  }

  /**
   * Launches on a grid: `kernel.launch({ grid, block, stream }, ...args)`.
   * Arguments: arrays (StridedMemoryView, DLPack or CUDA-array-interface
   * objects, host arrays), numbers (f64), bigints (i64), booleans, typed
   * scalars (`f32(2)`).
   */
  launch(options: JitLaunchOptions, ...args: LaunchArguments<Params>): void;
  launch(options: JitLaunchOptions, ...args: unknown[]): void {
    if (options === null || typeof options !== 'object')
      throw new KernelArgumentError(
        `${this.name}.launch: the first argument is the launch options { grid, block, stream }`,
      );
    // the launch path's own key test (no allocation); the checker names a key it does not know, with the nearest known one
    if (!hasOnlyLaunchKeys(options)) checkJitOptions(`${this.name}.launch`, options, LAUNCH_OPTIONS);
    const spec = this.#specializationFor(args);
    const all = this.#withCaptured(args);
    if (spec.target === 'simulator') {
      checkSimulatorStream(options.stream, `${this.name}.launch`);
      const config = LaunchConfig.from(withoutStream(options));
      (spec as SimulatorSpecialization).simulator.run(config.grid, config.block, all, {
        sharedMemory: config.sharedMemory,
        ...this.#budget(),
      });
      return;
    }
    const batch = options.batch;
    if (batch !== undefined) {
      if (options.stream !== undefined)
        throw new KernelArgumentError(
          `${this.name}.launch: a launch in a batch runs on the batch's stream; leave 'stream' out`,
        );
      (spec as GpuSpecialization).launcher.launchIn(batch, options, all);
      return;
    }
    (spec as GpuSpecialization).launcher.launch(options, options.stream, all);
  }

  /**
   * A launcher for `n` threads with a block size from the occupancy API
   * (numba's `forall`): `kernel.forall(n, { stream })(...args)`.
   */
  forall(
    n: number,
    options: { readonly stream?: StreamArgument | undefined } = {},
  ): (...args: LaunchArguments<Params>) => void {
    if (!Number.isSafeInteger(n) || n < 1)
      throw new KernelArgumentError(`${this.name}.forall: n must be a positive integer, got ${String(n)}`);
    checkJitOptions(`${this.name}.forall`, options, FORALL_OPTIONS);
    return (...args: readonly unknown[]) => {
      const spec = this.#specializationFor(args);
      const all = this.#withCaptured(args);
      if (spec.target === 'simulator') {
        checkSimulatorStream(options.stream, `${this.name}.forall`);
        const simulator = (spec as SimulatorSpecialization).simulator;
        const config = forallConfig(n, simulator.forallBlockSize());
        simulator.run(config.grid, config.block, all, this.#budget());
        return;
      }
      const launcher = (spec as GpuSpecialization).launcher;
      const config = forallConfig(n, launcher.occupancyBlockSize());
      launcher.launch(config, options.stream, all);
    };
  }

  /**
   * The most blocks of `block` threads that a cooperative launch of this
   * kernel can have (numba's `max_cooperative_grid_blocks`): the blocks one
   * multiprocessor keeps resident (the occupancy API, with `sharedMemory`)
   * times the current device's multiprocessors. The specialization is the
   * `signature`'s, else the kernel's only one. In the simulator: the blocks
   * that one multiprocessor of any GPU keeps resident (1024 threads), a
   * grid that is co-resident everywhere.
   *
   * @throws {KernelArgumentError} for a bad block, or no signature with zero or several specializations
   */
  maxCooperativeGridBlocks(block: Dim3, options: CooperativeGridOptions = {}): number {
    checkJitOptions(`${this.name}.maxCooperativeGridBlocks`, options, COOPERATIVE_GRID_OPTIONS);
    const dims = readDim3(block);
    if (typeof dims === 'string')
      throw new KernelArgumentError(
        `${this.name}.maxCooperativeGridBlocks: the block must be a positive extent, [x, y, z] or { x, y, z }; got ${String(block)}`,
      );
    const threads = dims[0] * dims[1] * dims[2];
    const sharedMemory = options.sharedMemory ?? 0;
    if (!Number.isSafeInteger(sharedMemory) || sharedMemory < 0)
      throw new KernelArgumentError(
        `${this.name}.maxCooperativeGridBlocks: sharedMemory must be a non-negative integer, got ${String(sharedMemory)}`,
      );
    let spec: Specialization;
    if (options.signature !== undefined) spec = this.compile(options.signature);
    else if (this.#specializations.size === 1) spec = this.#specializations.values().next().value!;
    else {
      throw new KernelArgumentError(
        `${this.name}.maxCooperativeGridBlocks: the kernel has ${this.#specializations.size} specializations; name one with { signature } (compiled now if it is not yet)`,
      );
    }
    if (spec.kernel === undefined) return Math.floor(SIMULATOR_RESIDENT_THREADS / threads);
    const perMultiprocessor = spec.kernel.occupancy.maxActiveBlocksPerMultiprocessor(threads, sharedMemory);
    return perMultiprocessor * (Device.current() ?? Device.get(0)).attributes.multiprocessorCount;
  }

  #specializationFor(args: readonly unknown[]): AnySpecialization {
    const params = this.#parse().params;
    if (args.length !== params.length) {
      throw new KernelArgumentError(
        `${this.name} takes ${params.length} argument(s) (${params.join(', ')}), ${args.length} were given`,
      );
    }
    const last = this.#last;
    const kinds = this.#lastKinds;
    if (last !== undefined && kinds.same(args)) return last;
    const { names, values } = this.#captured;
    let types =
      names.length === 0
        ? argumentTypes(args, params, this.target)
        : argumentTypes([...args, ...values], [...params, ...names], this.target);
    let unfitted = false;
    if (
      this.#declared.length > 0 &&
      !this.#declared.some((declared) => sameTypes(declared, types.slice(0, declared.length)))
    ) {
      const fitted = fitDeclaredSignature(types, args, this.#declared, params, this.target);
      unfitted = fitted === undefined;
      if (fitted !== undefined) types = fitted;
    }
    if (last && sameTypes(last.signature, types)) {
      kinds.remember(args);
      return last;
    }
    let spec: AnySpecialization;
    if (!unfitted) spec = this.#specialize(types);
    else {
      // arguments that fit no declared signature compile for their own types; where that fails to type, an
      // array of other dimensions than every declared signature's is the cause, and is named at the launch
      try {
        spec = this.#specialize(types);
      } catch (error) {
        if (error instanceof KernelTypeError)
          throw declaredDimensionsError(types, this.#declared, params, error) ?? error;
        throw error;
      }
    }
    this.#last = spec;
    kinds.remember(args);
    return spec;
  }

  #symbolFor(key: string): string {
    const known = [...this.#specializations.keys()].indexOf(key);
    return symbolFor(this.name, known === -1 ? this.#specializations.size : known);
  }

  #type(types: readonly JitType[], symbol: string): TypedKernel {
    const parsed = this.#parse();
    try {
      return typeKernel(parsed, types, { symbol, constants: this.#options.constants, captured: this.#captured.names });
    } catch (error) {
      // a text that a bundler or minifier rewrote gets an error that says so (and names the build plugin)
      throw parsed.record
        ? error
        : explainRewrite(error, {
            source: parsed.source,
            params: parsed.paramNodes,
            body: parsed.body,
            locator: parsed.locator,
            name: this.name,
          });
    }
  }

  #compileOptions(): KernelCompileOptions {
    return jitCompileOptions(this.#options, this.name);
  }

  /** How the disk cache served this kernel's compiles (all zero without `cache`). */
  get cacheStats(): KernelCacheStats {
    return { ...this.#cacheStats };
  }

  /** What the specialization sources (compile/specialization-sources.ts) ask of the kernel for one signature. */
  #request(types: readonly JitType[], key: string): SpecializationRequest {
    const options = this.#options;
    return {
      name: this.name,
      types,
      key,
      artifact: this.#artifactLookup(),
      source: this.#parse().source,
      constants: options.constants ?? {},
      fastMath: options.fastMath === true,
      symbol: () => this.#symbolFor(key),
      compileOptions: () => this.#compileOptions(),
      type: (symbol) => this.#type(types, symbol),
      cacheStats: this.#cacheStats,
    };
  }

  #specialize(types: readonly JitType[]): AnySpecialization {
    const key = signatureKey(types);
    const known = this.#specializations.get(key);
    if (known) return known;
    let spec: AnySpecialization;
    if (this.target === 'simulator') {
      const typed = this.#type(types, this.#symbolFor(key));
      spec = {
        signature: [...types],
        key,
        typed,
        target: 'simulator',
        origin: 'simulator',
        simulator: new SimulatedKernel(typed, this.#parse().locator),
      };
    } else {
      ensureContext(this.name);
      spec = gpuSpecialization(this.#request(types, key));
    }
    this.#compiles++;
    this.#specializations.set(key, spec);
    return spec;
  }
}

// numba's k[grid, block](...) gets an error naming kernel.launch (launch-spelling.ts); no cost on the launch path.
refuseBracketLaunch(JitKernel.prototype, 'kernel');

/** The type of {@link jit}: a kernel maker with `jit.device` for device functions. */
export interface Jit {
  /** A kernel of `fn` (see {@link JitKernel}); its launches take the argument types that `fn`'s parameter types give. */
  <F extends (...args: never[]) => unknown>(fn: F, options?: JitOptions): JitKernel<Parameters<F>>;
  /**
   * A kernel whose constants TypeScript sees: `kernel` is called once with
   * `constants` and gives the kernel function, which names them through
   * `kernel`'s parameter (destructure it with the constants' own names):
   * `jit.withConstants({ N: 16, square }, ({ N, square }) => (x: Float32Array) => { ... })`.
   * The same as `jit(kernel(constants), { ...options, constants })`.
   */
  withConstants<const C extends Readonly<Record<string, KernelConstant>>, F extends (...args: never[]) => unknown>(
    constants: C,
    kernel: (constants: C) => F,
    options?: Omit<JitOptions, 'constants'>,
  ): JitKernel<Parameters<F>>;
  /** A device function of `fn`, for kernels to call (named in their constants). */
  device<F extends (...args: never[]) => unknown>(fn: F, options?: DeviceFunctionOptions): DeviceFunctionCallable<F>;
}

/**
 * Makes a kernel of a JavaScript function (numba's `@cuda.jit`):
 *
 * ```ts
 * const axpy = jit((a: number, x: Float32Array, y: Float32Array) => {
 *   const i = cuda.grid(1);
 *   if (i < y.length) y[i] = a * x[i] + y[i];
 * });
 * axpy.launch({ grid: 4096, block: 256, stream }, f32(2), xs, ys);
 * ```
 */
function makeKernel<F extends (...args: never[]) => unknown>(
  fn: F,
  options: JitOptions = {},
): JitKernel<Parameters<F>> {
  return new JitKernel<Parameters<F>>(fn, options, captureCallSite(makeKernel));
}

export const jit: Jit = Object.assign(makeKernel, {
  device,
  withConstants,
});

function withConstants<
  const C extends Readonly<Record<string, KernelConstant>>,
  F extends (...args: never[]) => unknown,
>(constants: C, kernel: (constants: C) => F, options: Omit<JitOptions, 'constants'> = {}): JitKernel<Parameters<F>> {
  if (constants === null || typeof constants !== 'object')
    throw new TypeError('jit.withConstants: the first argument is the constants, { NAME: value, ... }');
  if (typeof kernel !== 'function')
    throw new TypeError(
      'jit.withConstants: the second argument is a function of the constants that gives the kernel, ({ N }) => (x) => { ... }',
    );
  const fn = kernel(constants);
  if (typeof fn !== 'function')
    throw new TypeError(
      `jit.withConstants: the factory gave ${fn === null ? 'null' : typeof fn}, not the kernel function`,
    );
  return new JitKernel<Parameters<F>>(fn, { ...options, constants }, captureCallSite(withConstants));
}
