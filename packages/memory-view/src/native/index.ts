/**
 * `@cuda-js/memory-view/native`: the optional native DLPack helper. It moves
 * tensors as C structs (`DLManagedTensorVersioned*`, and the legacy
 * `DLManagedTensor*`) in Externals, and speaks the DLPack C exchange API
 * (`Symbol.for('dlpack.exchange_api')`). Importing this entry loads nothing:
 * the addon is loaded on first use. See `docs/protocols.md`, "Native exchange".
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DLPACK_EXCHANGE_API } from '../protocol-keys.js';
import type { DLPackTensor } from '../protocols.js';
import { DLDeviceType } from '../device.js';
import {
  DLPackVersionError,
  NativeHelperUnavailableError,
  ProtocolError,
  StreamRequiredError,
  UnreadableHostMemoryError,
  UnsupportedExportError,
} from '../errors.js';
import { bufferByteLength, isArrayBufferLike, isResizable } from '../host-buffer.js';
import { checkInBuffer } from '../layout.js';
import { LEGACY_DEFAULT_STREAM, NO_SYNC, orderStreams, resolveStream } from '../stream.js';
import { StridedMemoryView } from '../strided-memory-view.js';
import '../install-view-constructors.js';
import {
  checkViewOptions,
  FROM_MANAGED_TENSOR_OPTIONS,
  TO_MANAGED_TENSOR_OPTIONS,
  VIEW_OPTIONS,
} from '../view-option-error.js';
import type { ViewOptions } from '../view-options.js';
import { viewFromTensor } from '../from-dlpack.js';
import { setExchangeApiImporter, viewFromAny } from '../from-any.js';
import type { Lease } from '../lease.js';

/** What the addon returns for an imported tensor (see native/addon.cc, DescribeImport). */
interface ImportFields {
  readonly handle: object;
  readonly legacy: boolean;
  readonly version: { major: number; minor: number };
  readonly flags: number;
  readonly device: { type: number; id: number };
  readonly dtype: { code: number; bits: number; lanes: number };
  readonly shape: number[];
  readonly strides: number[] | null;
  readonly data: bigint | ArrayBuffer;
  readonly byteOffset: number;
  readonly invalid?: string;
  /** Host memory that is not mapped readable here (native/addon.cc, HostRangeReadable). */
  readonly unreadableHost?: string;
  readonly versionMismatch?: [number, number];
}

interface Addon {
  setCallbacks(
    describe: (obj: unknown, owning: boolean) => unknown[],
    makeView: (fields: ImportFields) => StridedMemoryView,
  ): void;
  exportTensor(description: unknown[], legacy: boolean): object;
  importTensor(slot: object, legacy: boolean): ImportFields | null;
  release(handle: object): void;
  fromExchangeApi(obj: object, api: object): ImportFields | null;
  exchangeApiVersion(api: object): [number, number];
  currentWorkStream(api: object, deviceType: number, deviceId: number): bigint;
  counts(): { exports: number; slots: number; imports: number };
  readonly exchangeApi: object;
  readonly dlpackVersion: number;
}

const PACKAGE = '@cuda-js/memory-view';
const HELPER_FILE = 'memory_view_dlpack.node';

/** The file this code runs from: the package's `dist/native/index.js`, or a bundle that inlined it (CommonJS ones have no `import.meta.url`). */
function ownFile(): string | undefined {
  const url: unknown = import.meta.url;
  if (typeof url === 'string' && url.startsWith('file:')) return fileURLToPath(url);
  return typeof __filename === 'string' ? __filename : undefined;
}

/** Whether `dir` is the root of the memory-view package (its package.json names it). */
function isMemoryViewRoot(dir: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === PACKAGE;
  } catch {
    return false;
  }
}

/**
 * The package root the helper is looked for in: the package this code runs
 * from (src/native/ and dist/native/ sit two folders below it); where a
 * bundler inlined memory-view into an app's file, the memory-view package
 * installed where the app runs (beside the bundle, the main script or the
 * working directory). `bundledInto` names the bundle then.
 */
function helperRoot(): { root?: string; bundledInto?: string } {
  const file = ownFile();
  // src/native/, dist/native/ and dist/chunks/ sit two folders below the package root, a bundled dist/index.js one
  const own =
    file === undefined
      ? undefined
      : [join(dirname(file), '..', '..'), join(dirname(file), '..')].find(isMemoryViewRoot);
  if (own !== undefined) return { root: own };
  const bundledInto = file ?? '(a bundle)';
  // as Node.js resolves a package: each folder's node_modules, upwards
  for (const start of [file, process.argv[1], join(process.cwd(), 'index.js')]) {
    for (let dir = start === undefined ? undefined : dirname(start); dir !== undefined; ) {
      const candidate = join(dir, 'node_modules', ...PACKAGE.split('/'));
      if (isMemoryViewRoot(candidate)) return { root: candidate, bundledInto };
      const up = dirname(dir);
      dir = up === dir ? undefined : up;
    }
  }
  return { bundledInto };
}

/**
 * Where the addon is looked for: `CUDA_JS_MEMORY_VIEW_ADDON`; else a source
 * build in the package's `native/build/Release`; else this platform's
 * prebuild in the package's `prebuilds/<platform>-<arch>/` (as node-gyp-build
 * picks it); the package is the one this code runs from, or the installed one
 * where a bundler inlined memory-view.
 */
export function nativeHelperPath(): string {
  const override = process.env['CUDA_JS_MEMORY_VIEW_ADDON'];
  if (override) return override;
  const { root, bundledInto } = helperRoot();
  if (root === undefined)
    return join(
      dirname(bundledInto ?? '.'),
      'node_modules',
      PACKAGE,
      'prebuilds',
      `${process.platform}-${process.arch}`,
      HELPER_FILE,
    );
  const sourceBuild = join(root, 'native', 'build', 'Release', HELPER_FILE);
  if (existsSync(sourceBuild)) return sourceBuild;
  const prebuild = join(root, 'prebuilds', `${process.platform}-${process.arch}`, HELPER_FILE);
  if (existsSync(prebuild)) return prebuild;
  try {
    return (createRequire(import.meta.url)('node-gyp-build') as { path(dir: string): string }).path(root);
  } catch {
    return prebuild;
  }
}

/** What to do where the helper did not load: build it, or (in a bundle) keep memory-view an import of it. */
function howToGetHelper(): string {
  const { root, bundledInto } = helperRoot();
  if (bundledInto !== undefined) {
    return `${PACKAGE} was bundled into ${bundledInto}, away from its native helper: keep ${PACKAGE} an import of the bundle and ship node_modules/${PACKAGE} with the app, or set CUDA_JS_MEMORY_VIEW_ADDON to the helper's file`;
  }
  return `Prebuilt helpers ship for linux-x64 and linux-arm64 (glibc); elsewhere build it from source (a C++17 compiler; \`npm i -D node-addon-api\` first): cd ${root ?? PACKAGE} && npx node-gyp rebuild --directory native; or set CUDA_JS_MEMORY_VIEW_ADDON`;
}

let addon: Addon | undefined;
let failure: Error | undefined;

function load(): Addon {
  if (addon !== undefined) return addon;
  if (failure !== undefined) throw failure;
  const path = nativeHelperPath();
  try {
    // process.dlopen is what require() does for a .node file, without a require() of a computed path that bundlers try to follow
    const module = { exports: {} as Addon };
    process.dlopen(module, path);
    addon = named(module.exports);
  } catch (error) {
    failure = new NativeHelperUnavailableError(
      `the native DLPack helper did not load from ${path}: ${(error as Error).message.split('\n')[0]}. ` +
        howToGetHelper(),
    );
    throw failure;
  }
  addon.setCallbacks(describe, (fields) => viewFromFields(fields, undefined, undefined, false));
  return addon;
}

const NATIVE_PREFIX = '[memory-view native] ';

/** The addon's functions, with its refusals (a wrong External, a layout outside its memory) as {@link ProtocolError}. */
function named(raw: Addon): Addon {
  const wrapped = Object.create(raw) as Record<string, unknown>;
  for (const key of [
    'exportTensor',
    'importTensor',
    'release',
    'fromExchangeApi',
    'exchangeApiVersion',
    'currentWorkStream',
  ] as const) {
    const fn = raw[key] as (...args: unknown[]) => unknown;
    wrapped[key] = (...args: unknown[]) => {
      try {
        return fn(...args);
      } catch (error) {
        const message = error instanceof Error ? error.message : undefined;
        if (typeof message === 'string' && message.startsWith(NATIVE_PREFIX))
          throw new ProtocolError(message.slice(NATIVE_PREFIX.length));
        throw error;
      }
    };
  }
  return wrapped as unknown as Addon;
}

/** Whether the native helper loads here, and why not. */
export function nativeHelperStatus(): { readonly available: boolean; readonly reason: string; readonly path: string } {
  try {
    load();
    return { available: true, reason: 'loaded', path: nativeHelperPath() };
  } catch (error) {
    return { available: false, reason: (error as Error).message, path: nativeHelperPath() };
  }
}

// An owning export holds a token; when the consumer's deleter drops the addon's
// reference and the token is collected, the view family's export is given back.
const exportsOut = new FinalizationRegistry<Lease>((lease) => lease.unretain());

/** The export description that the addon reads (native/addon.cc, ReadDescription). */
function describe(obj: unknown, owning: boolean): unknown[] {
  // Not through the exchange API again: that would call this table back.
  const view = StridedMemoryView.isView(obj) ? obj : viewFromAny(obj, { stream: -1 }, false);
  view._checkOpen('export it to native code');
  const buffer = view.buffer;
  if (buffer !== undefined) {
    // Native code keeps the memory of a plain buffer alive (even through a transfer),
    // but a resizable one can shrink under it.
    if (isResizable(buffer))
      throw new UnsupportedExportError(
        'a view of a resizable ArrayBuffer cannot be exported to native code: it may shrink while native code holds it',
      );
    checkInBuffer(
      view.byteOffset,
      bufferByteLength(buffer),
      view.shape,
      view.strides,
      view.itemsize,
      'export to native code',
    );
  }
  const d = view.device;
  let keep: object = view;
  if (owning) {
    const lease = view._family();
    lease.retain();
    keep = { view };
    exportsOut.register(keep, lease);
  }
  const host = view.buffer !== undefined;
  const t = view.dtype;
  return [
    keep,
    host ? new Uint8Array(view.buffer!) : null,
    host ? null : (view.ptr ?? 0n),
    host ? view.byteOffset : 0,
    d.type,
    d.id,
    t.code,
    t.bits,
    t.lanes,
    view.flags,
    view.shape,
    view.strides,
  ];
}

function viewFromFields(
  fields: ImportFields,
  exporter: unknown,
  stream: bigint | undefined,
  writable: boolean,
): StridedMemoryView {
  const a = load();
  if (fields.versionMismatch !== undefined)
    throw new DLPackVersionError(fields.versionMismatch[0], fields.versionMismatch[1], 'the native DLPack tensor');
  if (fields.invalid !== undefined) {
    a.release(fields.handle);
    throw new ProtocolError(`the native DLPack tensor is malformed: ${fields.invalid} (its deleter was called)`);
  }
  if (fields.unreadableHost !== undefined) {
    a.release(fields.handle);
    throw new UnreadableHostMemoryError(`${fields.unreadableHost} (its deleter was called)`);
  }
  const handle = fields.handle;
  const tensor: DLPackTensor = {
    version: fields.version,
    flags: fields.flags,
    device: fields.device,
    data: fields.data,
    byteOffset: fields.byteOffset,
    dtype: fields.dtype,
    shape: fields.shape,
    strides: fields.strides,
    deleter: () => a.release(handle),
    managerContext: handle,
  };
  // Host memory lent as an ArrayBuffer lives as long as the buffer; close() still releases it (and detaches the buffer).
  return viewFromTensor(tensor, exporter ?? handle, stream, writable, !isArrayBufferLike(fields.data));
}

/** Options of {@link toManagedTensor}. */
export interface ToManagedTensorOptions extends ViewOptions {
  /** Export the unversioned `DLManagedTensor` of DLPack before 1.0 (default: `DLManagedTensorVersioned`). */
  readonly legacy?: boolean | undefined;
}

/**
 * Exports anything viewable as a DLPack tensor struct in an External whose
 * value is a slot: a `DLManagedTensorVersioned**` (or `DLManagedTensor**`
 * with `legacy`). A native consumer takes the tensor by reading the slot and
 * writing NULL to it, and then owns the deleter call; a tensor left in the slot
 * is deleted when the External is collected or the process exits. The view's
 * memory stays alive (and its `close()` waits) until the deleter.
 */
export function toManagedTensor(obj: unknown, options: ToManagedTensorOptions = {}): object {
  const { legacy, ...viewOptions } = checkViewOptions<ToManagedTensorOptions>(
    'toManagedTensor',
    options,
    TO_MANAGED_TENSOR_OPTIONS,
  );
  const a = load();
  const view = StridedMemoryView.fromAny(obj, { stream: -1, ...viewOptions });
  return a.exportTensor(describe(view, true), legacy === true);
}

/** Options of {@link fromManagedTensor}. */
export interface FromManagedTensorOptions {
  /** The slot holds an unversioned `DLManagedTensor*` (default: `DLManagedTensorVersioned*`). */
  readonly legacy?: boolean | undefined;
  /** The object to keep alive with the view. */
  readonly exporter?: unknown;
  /** The stream on which the data is ready, if known. */
  readonly stream?: ViewOptions['stream'] | undefined;
  readonly writable?: boolean | undefined;
}

/**
 * Takes the DLPack tensor out of an External slot (see {@link toManagedTensor})
 * and views it: host memory zero-copy as an ArrayBuffer over the producer's
 * memory, device memory as a `bigint` address. The tensor's deleter runs
 * exactly once: on `close()`, when the views (and, for host memory, the
 * buffer) are collected, or at exit. A major version other than 1 only gets
 * its deleter called, then {@link DLPackVersionError}.
 */
export function fromManagedTensor(slot: object, options: FromManagedTensorOptions = {}): StridedMemoryView {
  options = checkViewOptions<FromManagedTensorOptions>('fromManagedTensor', options, FROM_MANAGED_TENSOR_OPTIONS);
  const a = load();
  const fields = a.importTensor(slot, options.legacy === true);
  if (fields === null)
    throw new ProtocolError('the External holds no DLPack tensor: its slot is empty (the tensor was taken already)');
  const stream = resolveStream(options.stream);
  return viewFromFields(fields, options.exporter, stream === NO_SYNC ? undefined : stream, options.writable === true);
}

/** The External to memory-view's own `DLPackExchangeAPI` table (version 1.3), the same on every call. */
export function exchangeApi(): object {
  return load().exchangeApi;
}

/** The `[major, minor]` version that a `DLPackExchangeAPI` table declares. */
export function exchangeApiVersion(api: object): [number, number] {
  return load().exchangeApiVersion(api);
}

function apiOf(obj: object): object {
  const method = (obj as { [DLPACK_EXCHANGE_API]?: unknown })[DLPACK_EXCHANGE_API];
  if (typeof method !== 'function')
    throw new ProtocolError("the object has no Symbol.for('dlpack.exchange_api') method");
  return (method as () => object).call(obj);
}

/** The producer's current work stream for a device, asked through the exchange API of `obj` (an object that has one, or the table's External). */
export function currentWorkStream(objOrApi: object, deviceType: number, deviceId: number): bigint {
  const api = DLPACK_EXCHANGE_API in objOrApi ? apiOf(objOrApi) : objOrApi;
  return load().currentWorkStream(api, deviceType, deviceId);
}

/**
 * A view of an object through its C exchange API
 * (`managed_tensor_from_py_object_no_sync`: no JS tensor object in between).
 * The producer does no synchronization there, so the consumer's stream is
 * ordered after the producer's current work stream (through the registered
 * stream waiter) unless it is the same stream or `-1`.
 */
export function fromExchangeApi(obj: object, options: ViewOptions = {}): StridedMemoryView {
  options = checkViewOptions<ViewOptions>('fromExchangeApi', options, VIEW_OPTIONS);
  const a = load();
  const api = apiOf(obj);
  // memory-view's own table would only call back into JS: view the object directly.
  if (api === a.exchangeApi) return viewFromAny(obj, options, false);
  const fields = a.fromExchangeApi(obj, api);
  if (fields === null) {
    const [major, minor] = a.exchangeApiVersion(api);
    throw new DLPackVersionError(major, minor, 'the exchange API table (and every table it chains to)');
  }
  const consumer = resolveStream(options.stream);
  const deviceType = fields.device?.type;
  let stream: bigint | undefined;
  if (
    deviceType === DLDeviceType.CUDA ||
    deviceType === DLDeviceType.CUDAHost ||
    deviceType === DLDeviceType.CUDAManaged
  ) {
    if (consumer === undefined && deviceType === DLDeviceType.CUDA) {
      a.release(fields.handle);
      throw new StreamRequiredError(
        'a view of CUDA memory through the exchange API needs the consumer stream: pass { stream }, or { stream: -1 }',
      );
    }
    if (consumer !== undefined && consumer !== NO_SYNC) {
      try {
        const producer = a.currentWorkStream(api, deviceType, fields.device.id);
        orderStreams(producer === 0n ? LEGACY_DEFAULT_STREAM : producer, consumer, 'the exchange API producer');
      } catch (error) {
        a.release(fields.handle);
        throw error;
      }
      stream = consumer;
    }
  }
  return viewFromFields(fields, obj, stream, options.writable === true);
}

/** Live native objects of this helper (exported tensors not yet deleted, slots not yet collected, imports not yet released): for tests and leak hunting. */
export function nativeCounts(): { readonly exports: number; readonly slots: number; readonly imports: number } {
  return load().counts();
}

// Loading this entry makes views offer the exchange API, and fromAny read it.
Object.defineProperty(StridedMemoryView.prototype, DLPACK_EXCHANGE_API, {
  value: function exchangeApiOfView(): object {
    return load().exchangeApi;
  },
  writable: true,
  configurable: true,
});
setExchangeApiImporter((obj, options) => fromExchangeApi(obj, options));
