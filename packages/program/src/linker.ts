import type { Architecture } from './architecture.js';
import { cacheKey, optionsKey, type KeyPart } from './cache-key.js';
import { isCompileCache, type CompileCache } from './compile-cache.js';
import { isLogSink, writeLog, type LogSink } from './compile-log.js';
import { checkCompatibility, warnIfIncompatible } from './compatibility.js';
import { cuda, type DriverApi, type EnumMemberName, type NvJitLinkApi, type nvJitLinkHandle } from './cuda-bindings.js';
import { resolveArchitecture } from './device-architecture.js';
import {
  ClosedResourceError,
  InvalidArgumentError,
  LinkError,
  NoCurrentContextError,
  UnsupportedInputError,
  UnsupportedTargetError,
} from './errors.js';
import { chooseLinker, type LinkerChoice } from './linker-backend.js';
import {
  driverJitOptions,
  nvJitLinkFlags,
  resolveLinkerOptions,
  type DriverJitOption,
  type LinkerOptions,
  type LinkTarget,
} from './linker-options.js';
import { ObjectCode } from './object-code.js';
import type { ObjectCodeType } from './object-code-type.js';
import { isBoolean, validateOptions, type OptionSpec } from './option-validation.js';
import { driverCudaVersion } from './toolchain.js';

/** Options of one {@link Linker.link} call. */
export interface LinkCallOptions {
  /** Receives the linker's info log (a function or anything with `write`). */
  readonly logs?: LogSink | undefined;
  /** A compile cache to look the result up in, and store it to. */
  readonly cache?: CompileCache | undefined;
  /** Warn (`CudaCompatibilityWarning`) when the driver cannot load the result. Default true. */
  readonly checkCompatibility?: boolean | undefined;
}

const LINK_CALL_SPECS: Readonly<Record<keyof LinkCallOptions, OptionSpec<'link'>>> = {
  logs: { check: isLogSink, appliesTo: ['link'] },
  cache: { check: isCompileCache, appliesTo: ['link'] },
  checkCompatibility: { check: isBoolean, appliesTo: ['link'] },
};

const JITLINK_INPUT: Readonly<Record<ObjectCodeType, EnumMemberName<NvJitLinkApi['nvJitLinkInputType']>>> = {
  cubin: 'NVJITLINK_INPUT_CUBIN',
  ptx: 'NVJITLINK_INPUT_PTX',
  ltoir: 'NVJITLINK_INPUT_LTOIR',
  fatbin: 'NVJITLINK_INPUT_FATBIN',
  object: 'NVJITLINK_INPUT_OBJECT',
  library: 'NVJITLINK_INPUT_LIBRARY',
};

const DRIVER_INPUT: Readonly<Partial<Record<ObjectCodeType, EnumMemberName<DriverApi['CUjitInputType']>>>> = {
  cubin: 'CU_JIT_INPUT_CUBIN',
  ptx: 'CU_JIT_INPUT_PTX',
  fatbin: 'CU_JIT_INPUT_FATBINARY',
  object: 'CU_JIT_INPUT_OBJECT',
  library: 'CU_JIT_INPUT_LIBRARY',
};

const decoder = new TextDecoder();
// Room for each of the driver linker's logs.
const DRIVER_LOG_BYTES = 64 * 1024;
const encoder = new TextEncoder();

function logOf(error: unknown): string {
  const log = (error as { log?: unknown } | null)?.log;
  return typeof log === 'string' ? log : '';
}

/** A prepared link: what it depends on, and how to run it. */
interface LinkPlan {
  readonly choice: LinkerChoice;
  readonly keyParts: KeyPart;
  run(): { code: Uint8Array; infoLog: string };
  runAsync(): Promise<{ code: Uint8Array; infoLog: string }>;
}

/**
 * Links ObjectCode (PTX, cubin, fatbin, LTO-IR, objects, libraries) into one
 * cubin, or into PTX after link-time optimization, with nvJitLink where it is
 * present and the driver's cuLink* (with a warning) where it is not. A failed
 * link throws a {@link LinkError} holding the error and info logs.
 *
 * ```ts
 * const linked = new Linker([a, b], { arch: 'sm_90' }).link('cubin');
 * ```
 */
export class Linker {
  readonly objects: readonly ObjectCode[];
  /** The options as checked (each key read once): which backend honours what is checked at link time. */
  private readonly rawOptions: Readonly<LinkerOptions>;
  private closed = false;

  /**
   * @throws {UnknownOptionError} {@link InvalidOptionError} for bad options
   * @throws {InvalidArgumentError} when `objects` is not a non-empty array of ObjectCode
   */
  constructor(objects: readonly ObjectCode[], options: LinkerOptions = {}) {
    if (!Array.isArray(objects) || objects.length === 0 || !objects.every((o) => o instanceof ObjectCode)) {
      throw new InvalidArgumentError('objects', objects, 'a non-empty array of ObjectCode');
    }
    // Checked here for names and values; which backend honours what is checked at link time.
    const checked = resolveLinkerOptions(options, 'nvJitLink');
    this.objects = Object.freeze([...objects]);
    this.rawOptions = checked;
  }

  /**
   * The backend that links: `nvJitLink` or `driver`.
   *
   * @throws {LinkerUnavailableError} when neither is usable
   */
  get backend(): 'nvJitLink' | 'driver' {
    return chooseLinker(this.rawOptions.backend).backend;
  }

  /**
   * Links to `target` (default `cubin`), blocking.
   *
   * @throws {LinkError} with the linker's logs when the link fails
   * @throws {LinkerUnavailableError} when no linker is usable
   */
  link(target: LinkTarget = 'cubin', options: LinkCallOptions = {}): ObjectCode {
    const call = validateOptions<'link', LinkCallOptions>('link options', options, LINK_CALL_SPECS, 'link', 'link');
    const plan = this.plan(target);
    const key = call.cache ? cacheKey(plan.keyParts) : undefined;
    if (call.cache && key) {
      const hit = call.cache.get(key);
      // an entry of another kind (a cubin under a ptx compile's key) is a miss, and is written over
      if (hit?.codeType === target) return ObjectCode.fromCacheEntry(hit, plan.choice.toolchain);
    }
    const result = plan.run();
    writeLog(call.logs, result.infoLog);
    const out = this.finish(target, result.code, plan.choice, call);
    if (call.cache && key) call.cache.set(key, out.toCacheEntry());
    return out;
  }

  /** {@link link} with the link itself on a worker thread, off the event loop. */
  async linkAsync(target: LinkTarget = 'cubin', options: LinkCallOptions = {}): Promise<ObjectCode> {
    const call = validateOptions<'link', LinkCallOptions>('link options', options, LINK_CALL_SPECS, 'link', 'link');
    const plan = this.plan(target);
    const key = call.cache ? cacheKey(plan.keyParts) : undefined;
    if (call.cache && key) {
      const hit = await call.cache.getAsync(key);
      // an entry of another kind (a cubin under a ptx compile's key) is a miss, and is written over
      if (hit?.codeType === target) return ObjectCode.fromCacheEntry(hit, plan.choice.toolchain);
    }
    const result = await plan.runAsync();
    writeLog(call.logs, result.infoLog);
    const out = this.finish(target, result.code, plan.choice, call);
    if (call.cache && key) await call.cache.setAsync(key, out.toCacheEntry());
    return out;
  }

  /** The Linker holds no CUDA resource between links; present for symmetry with the other objects. Safe to call twice. */
  close(): void {
    this.closed = true;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  private finish(target: LinkTarget, code: Uint8Array, choice: LinkerChoice, call: LinkCallOptions): ObjectCode {
    const symbolMapping = new Map<string, string>();
    for (const o of this.objects) for (const [k, v] of o.symbolMapping) symbolMapping.set(k, v);
    const out = ObjectCode.from(target, code, {
      name: this.rawOptions.name ?? 'linked',
      symbolMapping,
      producer: choice.toolchain,
    });
    if (call.checkCompatibility !== false) {
      const driver = driverCudaVersion();
      if (driver !== undefined) warnIfIncompatible(checkCompatibility(out.code, target, choice.toolchain, driver));
    }
    return out;
  }

  private plan(target: LinkTarget): LinkPlan {
    if (this.closed) throw new ClosedResourceError('Linker');
    if (target !== 'cubin' && target !== 'ptx')
      throw new UnsupportedTargetError('the linker', target, ['cubin', 'ptx']);
    for (const o of this.objects) o.checkOpen();
    const choice = chooseLinker(this.rawOptions.backend);
    const options = resolveLinkerOptions(this.rawOptions, choice.backend);
    const arch = resolveArchitecture(options.arch);
    const inputs = this.objects.map((o) => ({ codeType: o.codeType, name: o.name, code: o.code }));
    const keyParts = {
      kind: 'link',
      target,
      backend: choice.backend,
      toolchain: { version: choice.toolchain.version, path: choice.toolchain.path },
      arch: `${arch.major}.${arch.minor}${arch.suffix}`,
      options: optionsKey({ ...options, name: undefined, arch: undefined, backend: undefined }),
      inputs,
    };
    return choice.backend === 'nvJitLink'
      ? this.nvJitLinkPlan(choice, options, arch, target, keyParts)
      : this.driverPlan(choice, options, arch, target, keyParts);
  }

  private nvJitLinkPlan(
    choice: LinkerChoice,
    options: Readonly<LinkerOptions>,
    arch: Architecture,
    target: LinkTarget,
    keyParts: { readonly [key: string]: KeyPart },
  ): LinkPlan {
    const lto = options.linkTimeOptimization === true || this.objects.some((o) => o.codeType === 'ltoir');
    const flags = nvJitLinkFlags(options, arch, target, lto);
    const api = cuda.nvjitlink;
    const objects = this.objects;
    const start = (): nvJitLinkHandle => {
      const handle = api.nvJitLinkCreate(flags);
      try {
        for (const o of objects)
          api.nvJitLinkAddData(handle, api.nvJitLinkInputType[JITLINK_INPUT[o.codeType]], o.code, o.name);
      } catch (error) {
        throw failure(handle, error);
      }
      return handle;
    };
    const failure = (handle: nvJitLinkHandle, error: unknown): unknown => {
      let errorLog = logOf(error);
      let infoLog = '';
      try {
        errorLog ||= api.nvJitLinkGetErrorLog(handle);
        infoLog = api.nvJitLinkGetInfoLog(handle);
      } catch {
        // the logs are a courtesy; the original error is what matters
      }
      api.nvJitLinkDestroy(handle);
      return new LinkError('nvJitLink', errorLog, infoLog, { cause: error });
    };
    const collect = (handle: nvJitLinkHandle): { code: Uint8Array; infoLog: string } => {
      try {
        const code =
          target === 'cubin'
            ? api.nvJitLinkGetLinkedCubin(handle)
            : encoder.encode(api.nvJitLinkGetLinkedPtx(handle).replace(/\0+$/, ''));
        return { code, infoLog: api.nvJitLinkGetInfoLog(handle) };
      } finally {
        api.nvJitLinkDestroy(handle);
      }
    };
    return {
      choice,
      keyParts: { ...keyParts, flags },
      run() {
        const handle = start();
        try {
          api.nvJitLinkComplete(handle);
        } catch (error) {
          throw failure(handle, error);
        }
        return collect(handle);
      },
      async runAsync() {
        const handle = start();
        try {
          await api.nvJitLinkCompleteAsync(handle);
        } catch (error) {
          throw failure(handle, error);
        }
        return collect(handle);
      },
    };
  }

  private driverPlan(
    choice: LinkerChoice,
    options: Readonly<LinkerOptions>,
    arch: Architecture,
    target: LinkTarget,
    keyParts: { readonly [key: string]: KeyPart },
  ): LinkPlan {
    if (target !== 'cubin') {
      throw new UnsupportedTargetError(
        'the driver linker (cuLink*)',
        target,
        ['cubin'],
        'PTX output needs nvJitLink with link-time optimization',
      );
    }
    for (const o of this.objects) {
      if (!DRIVER_INPUT[o.codeType])
        throw new UnsupportedInputError(
          o.codeType,
          'driver (cuLink*)',
          'LTO-IR needs nvJitLink (pip install nvidia-nvjitlink, or the CUDA toolkit)',
        );
    }
    const driver = cuda.driver;
    const jit = driverJitOptions(options, arch);
    const objects = this.objects;
    const run = (): { code: Uint8Array; infoLog: string } => {
      if (driver.cuCtxGetCurrent() === 0n) throw new NoCurrentContextError("linking with the driver's cuLink*");
      // The driver writes its logs into host buffers given as option values:
      // pinned ones, read back through their device address once the link is done.
      const infoBuffer = driver.cuMemAllocHost(DRIVER_LOG_BYTES);
      const errorBuffer = driver.cuMemAllocHost(DRIVER_LOG_BYTES);
      const readLog = (buffer: bigint): string => {
        const bytes = new Uint8Array(DRIVER_LOG_BYTES);
        driver.cuMemcpyDtoH(bytes, driver.cuMemHostGetDevicePointer(buffer, 0), DRIVER_LOG_BYTES);
        const end = bytes.indexOf(0);
        return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
      };
      const all: { option: DriverJitOption['option']; value: number | bigint }[] = [
        ...jit,
        { option: 'CU_JIT_INFO_LOG_BUFFER', value: infoBuffer },
        { option: 'CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES', value: DRIVER_LOG_BYTES },
        { option: 'CU_JIT_ERROR_LOG_BUFFER', value: errorBuffer },
        { option: 'CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES', value: DRIVER_LOG_BYTES },
      ];
      try {
        const state = driver.cuLinkCreate(
          all.map((j) => driver.CUjit_option[j.option]),
          all.map((j) => j.value),
        );
        try {
          for (const o of objects)
            driver.cuLinkAddData(
              state,
              driver.CUjitInputType[DRIVER_INPUT[o.codeType]!],
              o.codeType === 'ptx' ? decoder.decode(o.code) : o.code,
              o.name,
            );
          // cuLinkComplete's image belongs to the link state: copy it before the state is destroyed.
          const code = driver.cuLinkComplete(state).slice();
          return { code, infoLog: readLog(infoBuffer) };
        } catch (error) {
          throw new LinkError('driver', readLog(errorBuffer) || logOf(error), readLog(infoBuffer), { cause: error });
        } finally {
          driver.cuLinkDestroy(state);
        }
      } finally {
        driver.cuMemFreeHost(infoBuffer);
        driver.cuMemFreeHost(errorBuffer);
      }
    };
    return {
      choice,
      keyParts: { ...keyParts, jit: jit.map((j) => [j.option, j.value]) },
      run,
      // The driver's linker has no worker-thread form in the bindings; it runs here.
      runAsync: async () => run(),
    };
  }
}
