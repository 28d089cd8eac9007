import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CacheEntry } from './cache-entry.js';
import { checkCompatibility, type CompatibilityReport, type Producer } from './compatibility.js';
import {
  cuda,
  errorCodeName,
  OwnedHandle,
  type CUkernel,
  type CUlibrary,
  type HandleRelease,
} from './cuda-bindings.js';
import { isAnything, isString } from '@cuda-js/options';
import { readRegularFile } from '@cuda-js/pathfinder';
import { checkProgramOptions } from './option-validation.js';
import {
  ClosedResourceError,
  InvalidArgumentError,
  KernelNotFoundError,
  NotLoadableError,
  ObjectCodeLoadError,
} from './errors.js';
import { Kernel } from './kernel.js';
import { LOADABLE_CODE_TYPES, OBJECT_CODE_TYPES, type ObjectCodeType } from './object-code-type.js';
import { driverCudaVersion } from './toolchain.js';

/** The largest code file read: a whole program's fatbin is far smaller. */
const MAX_CODE_FILE_BYTES = 1 << 30;

/** Code given as bytes, or read from a file (a path or a `file:` URL). */
export type ObjectCodeSource = Uint8Array | ArrayBuffer | string | URL;

/** Optional facts about code given to an ObjectCode factory. */
export interface ObjectCodeInit {
  /** A name for messages and the linker. Default: the file name, else the code type. */
  readonly name?: string | undefined;
  /** Name expression → lowered (mangled) name, for {@link ObjectCode.getKernel}. */
  readonly symbolMapping?: Readonly<Record<string, string>> | ReadonlyMap<string, string> | undefined;
  /** What made the code, for compatibility messages. */
  readonly producer?: Producer | undefined;
}

// the mapping and the producer are read by their own checks
const OBJECT_CODE_INIT = { name: isString, symbolMapping: isAnything, producer: isAnything };

// Load errors for which the compatibility report says what to do.
const COMPATIBILITY_ERRORS = new Set([
  'CUDA_ERROR_UNSUPPORTED_PTX_VERSION',
  'CUDA_ERROR_NO_BINARY_FOR_GPU',
  'CUDA_ERROR_INVALID_PTX',
  'CUDA_ERROR_INVALID_IMAGE',
  'CUDA_ERROR_JIT_COMPILER_NOT_FOUND',
  'CUDA_ERROR_UNSUPPORTED_DEVPSIDE_SYNC',
]);

// How a loaded library goes back: a forgotten ObjectCode's on the bindings'
// release thread, as cuLibraryUnload may wait for the device and a finalizer
// must not block the event loop.
const LIBRARY_RELEASE: HandleRelease<CUlibrary> = {
  atClose: (library) => cuda.driver.cuLibraryUnload(library),
  whenCollected: (library) => cuda.releaseInBackground('cuLibraryUnload', library),
};

function readSource(source: ObjectCodeSource): { bytes: Uint8Array; fileName: string | undefined } {
  if (source instanceof Uint8Array) return { bytes: source, fileName: undefined };
  if (source instanceof ArrayBuffer) return { bytes: new Uint8Array(source), fileName: undefined };
  if (typeof source === 'string' || source instanceof URL) {
    const path = source instanceof URL ? fileURLToPath(source) : source;
    if (path.length === 0) throw new InvalidArgumentError('source', source, 'a non-empty file path');
    const file = readRegularFile(
      path,
      { maxBytes: MAX_CODE_FILE_BYTES },
      (problem) => new InvalidArgumentError('source', source, `a path of a regular file of code (${problem})`),
    );
    return { bytes: new Uint8Array(file.buffer, file.byteOffset, file.byteLength), fileName: basename(path) };
  }
  throw new InvalidArgumentError('source', source, 'a Uint8Array, an ArrayBuffer, a file path or a file: URL');
}

const encoder = new TextEncoder();

/**
 * Compiled device code (cubin, PTX, LTO-IR, fatbin, object or library),
 * made by {@link Program.compile}, {@link Linker.link} or one of the
 * `from*` factories. The bytes are in {@link code}. Loadable kinds (cubin,
 * PTX, fatbin) are loaded on first use through the context-independent
 * library API (`cuLibraryLoadData`), so one ObjectCode serves every device
 * and context. `close()` unloads it; a forgotten one is unloaded when
 * collected.
 */
export class ObjectCode {
  /** The code's bytes (PTX as UTF-8 text, without a trailing NUL). Treat as read-only. */
  readonly code: Uint8Array;
  readonly codeType: ObjectCodeType;
  readonly name: string;
  /** Name expression → lowered name, from `compile(..., { nameExpressions })`. */
  readonly symbolMapping: ReadonlyMap<string, string>;
  /** What made the code, where known. */
  readonly producer: Producer | undefined;
  /** The loaded library, released once (at close, or when this is collected). */
  private library: OwnedHandle<CUlibrary> | undefined;
  private loading: Promise<CUlibrary> | undefined;
  private closed = false;
  private readonly kernels = new Map<string, Kernel>();

  private constructor(codeType: ObjectCodeType, code: Uint8Array, init: ObjectCodeInit, fileName: string | undefined) {
    if (!OBJECT_CODE_TYPES.includes(codeType))
      throw new InvalidArgumentError('codeType', codeType, `one of ${OBJECT_CODE_TYPES.join(', ')}`);
    if (code.byteLength === 0) throw new InvalidArgumentError('code', code, `non-empty ${codeType} bytes`);
    this.codeType = codeType;
    this.code = codeType === 'ptx' && code[code.byteLength - 1] === 0 ? code.subarray(0, code.byteLength - 1) : code;
    this.name = init.name ?? fileName ?? codeType;
    const mapping = init.symbolMapping;
    this.symbolMapping = new Map(mapping instanceof Map ? mapping : Object.entries(mapping ?? {}));
    this.producer = init.producer;
  }

  /** ObjectCode of `codeType` from bytes or a file. */
  static from(codeType: ObjectCodeType, source: ObjectCodeSource, init: ObjectCodeInit = {}): ObjectCode {
    // the values checked, each read once: the constructor reads this copy
    const checked = checkProgramOptions<ObjectCodeInit>('ObjectCode', init, OBJECT_CODE_INIT);
    const { bytes, fileName } = readSource(source);
    return new ObjectCode(codeType, bytes, checked, fileName);
  }

  /** A cubin (SASS for one architecture). */
  static fromCubin(source: ObjectCodeSource, init?: ObjectCodeInit): ObjectCode {
    return ObjectCode.from('cubin', source, init);
  }

  /** PTX: bytes, a file, or (with {@link fromPtxText}) text. */
  static fromPtx(source: ObjectCodeSource, init?: ObjectCodeInit): ObjectCode {
    return ObjectCode.from('ptx', source, init);
  }

  /** PTX given as text (a string here is the PTX itself, not a path). */
  static fromPtxText(ptx: string, init?: ObjectCodeInit): ObjectCode {
    if (typeof ptx !== 'string') throw new InvalidArgumentError('ptx', ptx, 'PTX text');
    return new ObjectCode(
      'ptx',
      encoder.encode(ptx),
      checkProgramOptions<ObjectCodeInit>('ObjectCode', init, OBJECT_CODE_INIT),
      undefined,
    );
  }

  /** LTO-IR (from `compile('ltoir')`, nvcc `-dlto`); link it to load it. */
  static fromLtoir(source: ObjectCodeSource, init?: ObjectCodeInit): ObjectCode {
    return ObjectCode.from('ltoir', source, init);
  }

  /** A fatbin (several cubins and PTX in one file). */
  static fromFatbin(source: ObjectCodeSource, init?: ObjectCodeInit): ObjectCode {
    return ObjectCode.from('fatbin', source, init);
  }

  /** A relocatable host object with device code (nvcc `-rdc -c`); link it to load it. */
  static fromObject(source: ObjectCodeSource, init?: ObjectCodeInit): ObjectCode {
    return ObjectCode.from('object', source, init);
  }

  /** A static library of device code (`.a`); link it to load it. */
  static fromLibrary(source: ObjectCodeSource, init?: ObjectCodeInit): ObjectCode {
    return ObjectCode.from('library', source, init);
  }

  /** @internal An ObjectCode for a compile-cache entry. */
  static fromCacheEntry(entry: CacheEntry, producer: Producer | undefined): ObjectCode {
    return new ObjectCode(
      entry.codeType,
      entry.code,
      { name: entry.name, symbolMapping: entry.symbolMapping, producer },
      undefined,
    );
  }

  /** @internal This code as a compile-cache entry. */
  toCacheEntry(): CacheEntry {
    return {
      codeType: this.codeType,
      name: this.name,
      code: this.code,
      symbolMapping: Object.fromEntries(this.symbolMapping),
    };
  }

  /** Whether the driver holds this code now. */
  get isLoaded(): boolean {
    return this.library !== undefined;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The `CUlibrary`; loads the code on first use. */
  get handle(): CUlibrary {
    return this.load();
  }

  /**
   * Loads the code (once) and returns the `CUlibrary`.
   *
   * @throws {NotLoadableError} for LTO-IR, objects and libraries
   * @throws {ObjectCodeLoadError} when the driver refuses it (no device, a PTX too new for the driver, ...)
   */
  load(): CUlibrary {
    this.checkOpen();
    if (this.library !== undefined) return this.library.handle;
    const image = this.loadImage();
    let library: CUlibrary;
    try {
      cuda.driver.cuInit(0);
      library = cuda.driver.cuLibraryLoadData(image);
    } catch (error) {
      throw this.loadError(error);
    }
    return this.loaded(library);
  }

  /** {@link load} with the driver's work (PTX JIT compilation included) off the event loop. */
  async loadAsync(): Promise<CUlibrary> {
    this.checkOpen();
    if (this.library !== undefined) return this.library.handle;
    this.loading ??= (async () => {
      const image = this.loadImage();
      try {
        cuda.driver.cuInit(0);
        return this.loaded(await cuda.driver.cuLibraryLoadDataAsync(image));
      } catch (error) {
        throw this.loadError(error);
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /**
   * The kernel called `name`: a name expression given to `compile` (resolved
   * to its lowered name), or a symbol as it is in the code. Loads the code
   * on first use.
   *
   * @throws {KernelNotFoundError} listing the module's kernels where the driver can
   */
  getKernel(name: string): Kernel {
    if (typeof name !== 'string' || name.length === 0) throw new InvalidArgumentError('name', name, 'a kernel name');
    const known = this.kernels.get(name);
    if (known) {
      this.checkOpen();
      return known;
    }
    const library = this.load();
    const symbol = this.symbolMapping.get(name) ?? name;
    let handle: CUkernel;
    try {
      handle = cuda.driver.cuLibraryGetKernel(library, symbol);
    } catch (error) {
      if (errorCodeName(error) === 'CUDA_ERROR_NOT_FOUND')
        throw new KernelNotFoundError(name, symbol, this.kernelSymbols(library), { cause: error });
      throw error;
    }
    const kernel = Kernel.fromObjectCode(handle, name, this);
    this.kernels.set(name, kernel);
    return kernel;
  }

  /**
   * Whether a driver of this machine can load the code, with what to do if
   * not (see {@link checkCompatibility}); undefined where there is no driver.
   */
  compatibility(): CompatibilityReport | undefined {
    const driver = driverCudaVersion();
    if (driver === undefined) return undefined;
    return checkCompatibility(
      this.code,
      this.codeType,
      this.producer ?? { name: this.name, cudaVersion: undefined },
      driver,
    );
  }

  /**
   * Unloads the code; kernels taken from it can no longer be used. Safe to call twice.
   * cuLibraryUnload may wait for the device to finish its work (blocking the
   * event loop during a long kernel): {@link closeAsync} does not.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.kernels.clear();
    const library = this.library;
    this.library = undefined;
    library?.close();
  }

  /**
   * The non-blocking form of {@link close}: closed at once, the library is
   * unloaded on the bindings' release thread; settles when it is. Safe to call twice.
   */
  closeAsync(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.kernels.clear();
    const library = this.library?.take();
    this.library = undefined;
    if (library === undefined) return Promise.resolve();
    try {
      return cuda.releaseAsync('cuLibraryUnload', library);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return `ObjectCode(${this.codeType} '${this.name}', ${this.code.byteLength} bytes${this.closed ? ', closed' : this.isLoaded ? ', loaded' : ''})`;
  }

  /** @throws {ClosedResourceError} after close() */
  checkOpen(): void {
    if (this.closed) throw new ClosedResourceError(`ObjectCode '${this.name}'`);
  }

  private loadImage(): Uint8Array {
    if (!LOADABLE_CODE_TYPES.includes(this.codeType)) throw new NotLoadableError(this.codeType);
    if (this.codeType !== 'ptx') return this.code;
    // The driver reads PTX as a NUL-terminated string.
    const image = new Uint8Array(this.code.byteLength + 1);
    image.set(this.code);
    return image;
  }

  private loaded(library: CUlibrary): CUlibrary {
    if (this.closed) {
      // closed while an async load was in flight
      cuda.driver.cuLibraryUnload(library);
      throw new ClosedResourceError(`ObjectCode '${this.name}'`);
    }
    this.library = new OwnedHandle(library, this, LIBRARY_RELEASE, `ObjectCode '${this.name}'`);
    return library;
  }

  private loadError(error: unknown): ObjectCodeLoadError {
    const code = errorCodeName(error);
    const first = (error as Error).message?.split('\n')[0] ?? String(error);
    let hint = '';
    if (code && COMPATIBILITY_ERRORS.has(code)) {
      const report = this.compatibility();
      if (report && !report.loadable) hint = ` ${report.message}`;
      else if (code === 'CUDA_ERROR_NO_BINARY_FOR_GPU')
        hint =
          ' The code was built for another GPU architecture: compile for this device (leave arch unset to use the current device).';
    } else if (code === 'CUDA_ERROR_NO_DEVICE') {
      hint =
        ' There is no CUDA device on this machine: the code can be compiled here but loaded only where a GPU is present.';
    }
    return new ObjectCodeLoadError(this.codeType, `cannot load ${this.codeType} '${this.name}': ${first}.${hint}`, {
      cause: error,
    });
  }

  private kernelSymbols(library: CUlibrary): string[] | undefined {
    try {
      const driver = cuda.driver;
      const count = driver.cuLibraryGetKernelCount(library);
      return driver.cuLibraryEnumerateKernels(count, library).map((k) => driver.cuKernelGetName(k));
    } catch {
      return undefined;
    }
  }
}
