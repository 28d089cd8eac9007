import { computeCapability, smName, type Architecture } from './architecture.js';
import { cacheKey, optionsKey, type KeyPart } from './cache-key.js';
import { isCompileCache, type CompileCache } from './compile-cache.js';
import { isLogSink, writeLog, type LogSink } from './compile-log.js';
import { checkCompatibility, warnIfIncompatible, type Producer } from './compatibility.js';
import { cuda, type nvrtcProgram, type nvvmProgram } from './cuda-bindings.js';
import { defaultIncludeDirectories } from './default-include-paths.js';
import { resolveArchitecture } from './device-architecture.js';
import {
  ClosedResourceError,
  formatValue,
  InvalidCodeError,
  UnsupportedArchitectureError,
  UnsupportedTargetError,
} from './errors.js';
import { libdevice } from './libdevice.js';
import { Linker } from './linker.js';
import type { LinkerOptions } from './linker-options.js';
import { nvrtcFlags } from './nvrtc-flags.js';
import { nvvmFlags } from './nvvm-flags.js';
import { ObjectCode } from './object-code.js';
import { isBoolean, isStringArray, validateOptions, type OptionSpec } from './option-validation.js';
import {
  CODE_TYPES,
  resolveProgramOptions,
  type CodeType,
  type CompileTarget,
  type ProgramOptions,
} from './program-options.js';
import { driverCudaVersion, nvrtcSupportedArchitectures, nvrtcToolchain, nvvmToolchain } from './toolchain.js';
import { libdeviceDigest, linkerIdentity } from './toolchain-identity.js';

/** Options of one {@link Program.compile} call. */
export interface CompileOptions {
  /**
   * C++ names to instantiate and look up after compiling, such as
   * `'axpy<float>'` or `'&ns::f'`. Their lowered names are in the
   * ObjectCode's `symbolMapping`, and `getKernel` accepts them. c++ only.
   */
  readonly nameExpressions?: readonly string[] | undefined;
  /** Receives the compile log, when there is one (a function or anything with `write`). Nothing is written on a cache hit. */
  readonly logs?: LogSink | undefined;
  /** A compile cache to look the result up in, and store it to. */
  readonly cache?: CompileCache | undefined;
  /** Warn (`CudaCompatibilityWarning`) when the driver cannot load the result. Default true. */
  readonly checkCompatibility?: boolean | undefined;
}

const COMPILE_SPECS: Readonly<Record<keyof CompileOptions, OptionSpec<CodeType>>> = {
  nameExpressions: {
    check: isStringArray,
    appliesTo: ['c++'],
    notApplicable: 'name expressions are C++ names; NVVM IR and PTX names are used as they are',
  },
  logs: { check: isLogSink, appliesTo: CODE_TYPES },
  cache: { check: isCompileCache, appliesTo: CODE_TYPES },
  checkCompatibility: { check: isBoolean, appliesTo: CODE_TYPES },
};

/** The targets each code type compiles to. */
export const SUPPORTED_TARGETS: Readonly<Record<CodeType, readonly CompileTarget[]>> = {
  'c++': ['ptx', 'cubin', 'ltoir'],
  nvvm: ['ptx', 'cubin', 'ltoir'],
  ptx: ['cubin'],
};

const DEFAULT_NAMES: Readonly<Record<CodeType, string>> = {
  'c++': 'program.cu',
  nvvm: 'program.ll',
  ptx: 'program.ptx',
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The result of running a compile: code, log and what made it. */
interface CompileResult {
  readonly code: Uint8Array;
  readonly codeType: CompileTarget;
  readonly symbolMapping: Readonly<Record<string, string>>;
  readonly log: string;
  readonly producer: Producer;
}

/** A prepared compile: everything its output depends on, and how to run it. */
interface CompilePlan {
  readonly keyParts: KeyPart;
  readonly producer: Producer;
  run(): CompileResult;
  runAsync(): Promise<CompileResult>;
}

function logOf(error: unknown): string {
  const log = (error as { log?: unknown } | null)?.log;
  return typeof log === 'string' ? log : '';
}

function ptxBytes(ptx: string): Uint8Array {
  return encoder.encode(ptx.replace(/\0+$/, ''));
}

/**
 * A program to compile: CUDA C++ (through NVRTC), NVVM IR (through libNVVM,
 * text or bitcode) or PTX (through the {@link Linker}).
 *
 * ```ts
 * const program = new Program(source, 'c++', { arch: 'sm_90', std: 'c++17' });
 * const cubin = program.compile('cubin', { nameExpressions: ['axpy<float>'] });
 * const kernel = cubin.getKernel('axpy<float>');
 * ```
 *
 * `compile` blocks; `compileAsync` does the compiling on a worker thread.
 * Options are checked when the Program is made.
 */
export class Program {
  readonly codeType: CodeType;
  /** The checked options (frozen). */
  readonly options: Readonly<ProgramOptions>;
  private readonly source: string | Uint8Array;
  private closed = false;

  /**
   * @param code C++ source (a string), NVVM IR (text, or bitcode as a Uint8Array) or PTX (text or bytes)
   * @throws {InvalidCodeError} for a code type that is not `c++`, `nvvm` or `ptx`, or code of the wrong kind
   * @throws {UnknownOptionError} {@link InvalidOptionError} {@link UnsupportedOptionError} for bad options
   */
  constructor(code: string | Uint8Array, codeType: CodeType, options: ProgramOptions = {}) {
    if (!CODE_TYPES.includes(codeType))
      throw new InvalidCodeError(`code type must be one of ${CODE_TYPES.join(', ')}; got ${formatValue(codeType)}`);
    const isText = typeof code === 'string';
    if (!isText && !(code instanceof Uint8Array))
      throw new InvalidCodeError(`${codeType} code must be a string${codeType === 'c++' ? '' : ' or a Uint8Array'}`);
    if (codeType === 'c++' && !isText) throw new InvalidCodeError('C++ code must be a string');
    if ((isText ? code.length : code.byteLength) === 0) throw new InvalidCodeError(`${codeType} code is empty`);
    const source = codeType === 'ptx' && !isText ? decoder.decode(code).replace(/\0+$/, '') : code;
    // The compilers read source text as a C string: a NUL would silently drop the rest.
    if (typeof source === 'string') {
      const nul = source.indexOf('\0');
      if (nul !== -1)
        throw new InvalidCodeError(
          `${codeType} source text holds a NUL character at offset ${nul}; the compiler would ignore everything after it`,
        );
    }
    this.codeType = codeType;
    this.options = resolveProgramOptions(options, codeType);
    this.source = source;
  }

  /** The library that compiles: `NVRTC`, `libNVVM`, or the linker for PTX. */
  get backend(): 'NVRTC' | 'libNVVM' | 'linker' {
    return this.codeType === 'c++' ? 'NVRTC' : this.codeType === 'nvvm' ? 'libNVVM' : 'linker';
  }

  /**
   * Compiles to `target`, blocking.
   *
   * @throws `NvrtcError` / `NvvmError` (from @cuda-js/bindings) with the compile log when the code does not compile
   * @throws {UnsupportedTargetError} for a target the code type cannot produce
   * @throws {ArchitectureRequiredError} when no `arch` is set and there is no device
   */
  compile(target: CompileTarget, options: CompileOptions = {}): ObjectCode {
    const call = this.callOptions(options);
    const plan = this.plan(target, call);
    const key = call.cache ? cacheKey(plan.keyParts) : undefined;
    if (call.cache && key) {
      const hit = call.cache.get(key);
      // an entry of another kind (a cubin under a ptx compile's key) is a miss, and is written over
      if (hit?.codeType === target) return ObjectCode.fromCacheEntry(hit, plan.producer);
    }
    const result = this.logged(call, () => plan.run());
    const out = this.finish(result, call);
    if (call.cache && key) call.cache.set(key, out.toCacheEntry());
    return out;
  }

  /** {@link compile} with the compiler on a worker thread, off the event loop. */
  async compileAsync(target: CompileTarget, options: CompileOptions = {}): Promise<ObjectCode> {
    const call = this.callOptions(options);
    const plan = this.plan(target, call);
    const key = call.cache ? cacheKey(plan.keyParts) : undefined;
    if (call.cache && key) {
      const hit = await call.cache.getAsync(key);
      // an entry of another kind (a cubin under a ptx compile's key) is a miss, and is written over
      if (hit?.codeType === target) return ObjectCode.fromCacheEntry(hit, plan.producer);
    }
    let result: CompileResult;
    try {
      result = await plan.runAsync();
    } catch (error) {
      writeLog(call.logs, logOf(error));
      throw error;
    }
    writeLog(call.logs, result.log);
    const out = this.finish(result, call);
    if (call.cache && key) await call.cache.setAsync(key, out.toCacheEntry());
    return out;
  }

  /** Marks the program closed (it holds no CUDA resource between compiles). Safe to call twice. */
  close(): void {
    this.closed = true;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  private callOptions(options: CompileOptions): Readonly<CompileOptions> {
    if (this.closed) throw new ClosedResourceError(`Program '${this.options.name ?? DEFAULT_NAMES[this.codeType]}'`);
    return validateOptions<CodeType, CompileOptions>(
      'compile options',
      options,
      COMPILE_SPECS,
      this.codeType,
      `code type '${this.codeType}'`,
    );
  }

  private logged(call: CompileOptions, run: () => CompileResult): CompileResult {
    let result: CompileResult;
    try {
      result = run();
    } catch (error) {
      writeLog(call.logs, logOf(error));
      throw error;
    }
    writeLog(call.logs, result.log);
    return result;
  }

  private finish(result: CompileResult, call: CompileOptions): ObjectCode {
    const out = ObjectCode.from(result.codeType, result.code, {
      name: this.options.name ?? DEFAULT_NAMES[this.codeType],
      symbolMapping: result.symbolMapping,
      producer: result.producer,
    });
    if (call.checkCompatibility !== false) {
      const driver = driverCudaVersion();
      if (driver !== undefined) warnIfIncompatible(checkCompatibility(out.code, out.codeType, result.producer, driver));
    }
    return out;
  }

  private plan(target: CompileTarget, call: CompileOptions): CompilePlan {
    const supported = SUPPORTED_TARGETS[this.codeType];
    if (!supported.includes(target))
      throw new UnsupportedTargetError(`code type '${this.codeType}'`, target, supported);
    const arch = resolveArchitecture(this.options.arch);
    if (this.codeType === 'c++') return this.nvrtcPlan(target, arch, call.nameExpressions ?? []);
    if (this.codeType === 'nvvm') return this.nvvmPlan(target, arch);
    return this.ptxPlan(arch);
  }

  private nvrtcPlan(target: CompileTarget, arch: Architecture, nameExpressions: readonly string[]): CompilePlan {
    const toolchain = nvrtcToolchain();
    const nvrtcMajor = toolchain.cudaVersion?.major ?? 0;
    const supportedArchs = nvrtcSupportedArchitectures();
    if (!supportedArchs.includes(computeCapability(arch))) {
      const names = supportedArchs.map((a) => `sm_${a}`);
      throw new UnsupportedArchitectureError(
        this.options.arch ?? smName(arch),
        `NVRTC ${toolchain.version} does not support ${smName(arch)}; it supports ${names.join(', ')}`,
        names,
      );
    }
    if (target === 'ltoir' && nvrtcMajor < 12) {
      throw new UnsupportedTargetError(
        `code type 'c++' with NVRTC ${toolchain.version}`,
        target,
        ['ptx', 'cubin'],
        'LTO-IR output needs NVRTC 12 or newer',
      );
    }
    const includes = this.options.defaultIncludePaths === false ? [] : defaultIncludeDirectories(nvrtcMajor);
    const flags = nvrtcFlags(this.options, target, arch, includes);
    const name = this.options.name ?? DEFAULT_NAMES['c++'];
    const headers = Object.entries(this.options.headers ?? {});
    const source = this.source as string;
    const api = cuda.nvrtc;
    const start = (): nvrtcProgram => {
      const prog = api.nvrtcCreateProgram(
        source,
        name,
        headers.map(([, text]) => text),
        headers.map(([include]) => include),
      );
      try {
        for (const expression of nameExpressions) api.nvrtcAddNameExpression(prog, expression);
      } catch (error) {
        api.nvrtcDestroyProgram(prog);
        throw error;
      }
      return prog;
    };
    const collect = (prog: nvrtcProgram): CompileResult => {
      const log = api.nvrtcGetProgramLog(prog);
      const code =
        target === 'ptx'
          ? ptxBytes(api.nvrtcGetPTX(prog))
          : target === 'cubin'
            ? api.nvrtcGetCUBIN(prog)
            : api.nvrtcGetLTOIR(prog);
      const symbolMapping: Record<string, string> = {};
      for (const expression of nameExpressions) symbolMapping[expression] = api.nvrtcGetLoweredName(prog, expression);
      return { code, codeType: target, symbolMapping, log, producer: toolchain };
    };
    return {
      keyParts: {
        kind: 'nvrtc',
        toolchain: { version: toolchain.version, path: toolchain.path },
        name,
        source,
        headers: this.options.headers ?? {},
        flags,
        target,
        nameExpressions,
      },
      producer: toolchain,
      run() {
        const prog = start();
        try {
          api.nvrtcCompileProgram(prog, flags);
          return collect(prog);
        } finally {
          api.nvrtcDestroyProgram(prog);
        }
      },
      async runAsync() {
        const prog = start();
        try {
          await api.nvrtcCompileProgramAsync(prog, flags);
          return collect(prog);
        } finally {
          api.nvrtcDestroyProgram(prog);
        }
      },
    };
  }

  private nvvmPlan(target: CompileTarget, arch: Architecture): CompilePlan {
    const toolchain = nvvmToolchain();
    const flags = nvvmFlags(this.options, target, arch);
    const name = this.options.name ?? DEFAULT_NAMES.nvvm;
    const modules: { name: string; code: string | Uint8Array }[] = [
      { name, code: this.source },
      ...(this.options.extraModules ?? []).map((code, i) => ({ name: `module-${i + 1}`, code })),
    ];
    const lib = this.options.useLibdevice ? libdevice() : undefined;
    const linkOptions = target === 'cubin' ? this.linkStepOptions(arch) : undefined;
    const api = cuda.nvvm;
    const start = (): nvvmProgram => {
      const prog = api.nvvmCreateProgram();
      try {
        for (const m of modules) api.nvvmAddModuleToProgram(prog, m.code, m.name);
        // Lazily added: only the libdevice functions the program calls are kept.
        if (lib) api.nvvmLazyAddModuleToProgram(prog, lib.bytes, 'libdevice');
      } catch (error) {
        api.nvvmDestroyProgram(prog);
        throw error;
      }
      return prog;
    };
    const collect = (prog: nvvmProgram): { code: Uint8Array; log: string } => {
      const log = api.nvvmGetProgramLog(prog).replace(/\0+$/, '');
      let code = api.nvvmGetCompiledResult(prog);
      // libNVVM's PTX result is a C string: drop the terminating NUL.
      if (target !== 'ltoir') code = ptxBytes(decoder.decode(code));
      return { code, log };
    };
    const finish = (compiled: { code: Uint8Array; log: string }): CompileResult => ({
      code: compiled.code,
      codeType: target === 'ltoir' ? 'ltoir' : 'ptx',
      symbolMapping: {},
      log: compiled.log,
      producer: toolchain,
    });
    const linkPtx = (compiled: CompileResult): Linker =>
      new Linker([ObjectCode.from('ptx', compiled.code, { name, producer: toolchain })], linkOptions);
    return {
      keyParts: {
        kind: 'nvvm',
        toolchain: { version: toolchain.version, details: toolchain.details, path: toolchain.path },
        modules: modules.map((m) => m.code),
        libdevice: lib ? libdeviceDigest() : null,
        flags,
        target,
        link: linkOptions ? { options: optionsKey(linkOptions), linker: linkerIdentity() } : null,
      },
      producer: toolchain,
      run() {
        const prog = start();
        let compiled: CompileResult;
        try {
          api.nvvmCompileProgram(prog, flags);
          compiled = finish(collect(prog));
        } finally {
          api.nvvmDestroyProgram(prog);
        }
        if (!linkOptions) return compiled;
        const linked = linkPtx(compiled).link('cubin', { checkCompatibility: false });
        return { ...compiled, code: linked.code, codeType: 'cubin', producer: linked.producer ?? toolchain };
      },
      async runAsync() {
        const prog = start();
        let compiled: CompileResult;
        try {
          await api.nvvmCompileProgramAsync(prog, flags);
          compiled = finish(collect(prog));
        } finally {
          api.nvvmDestroyProgram(prog);
        }
        if (!linkOptions) return compiled;
        const linked = await linkPtx(compiled).linkAsync('cubin', { checkCompatibility: false });
        return { ...compiled, code: linked.code, codeType: 'cubin', producer: linked.producer ?? toolchain };
      },
    };
  }

  private ptxPlan(arch: Architecture): CompilePlan {
    const name = this.options.name ?? DEFAULT_NAMES.ptx;
    const source = this.source as string;
    const linkOptions = this.linkStepOptions(arch);
    const linker = new Linker([ObjectCode.fromPtxText(source, { name })], linkOptions);
    return {
      keyParts: { kind: 'ptx', source, link: optionsKey(linkOptions), linker: linkerIdentity() },
      producer: { name: 'linker', cudaVersion: undefined },
      run() {
        const linked = linker.link('cubin', { checkCompatibility: false });
        return {
          code: linked.code,
          codeType: 'cubin',
          symbolMapping: {},
          log: '',
          producer: linked.producer ?? { name: 'linker', cudaVersion: undefined },
        };
      },
      async runAsync() {
        const linked = await linker.linkAsync('cubin', { checkCompatibility: false });
        return {
          code: linked.code,
          codeType: 'cubin',
          symbolMapping: {},
          log: '',
          producer: linked.producer ?? { name: 'linker', cudaVersion: undefined },
        };
      },
    };
  }

  /** The linker options of the link step (PTX to cubin), from this program's options. */
  private linkStepOptions(arch: Architecture): LinkerOptions {
    const o = this.options;
    const out: { -readonly [K in keyof LinkerOptions]: LinkerOptions[K] } = { arch: smName(arch) };
    if (o.name !== undefined) out.name = o.name;
    if (o.maxRegisters !== undefined) out.maxRegisters = o.maxRegisters;
    if (o.debug) out.debug = true;
    if (o.lineinfo) out.lineinfo = true;
    if (this.codeType === 'ptx') {
      if (o.optimizationLevel !== undefined) out.optimizationLevel = o.optimizationLevel;
      if (o.ptxasOptions) out.ptxasOptions = o.ptxasOptions;
      if (o.extraFlags) out.extraFlags = o.extraFlags;
    }
    return out;
  }
}
