import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findLibrary } from '@cuda-js/pathfinder';
import { AddonLoadError, AddonNotFoundError } from './addon-errors.js';
import { makeLibraryError } from './errors.js';
import { recordFound } from './loaded-libraries.js';

/** The addon's exports, untyped here; the namespaces are typed where they are exported. */
export interface NativeAddon {
  readonly driver: Record<string, unknown>;
  readonly nvrtc: Record<string, unknown>;
  readonly nvjitlink: Record<string, unknown>;
  readonly nvvm: Record<string, unknown>;
  readonly nvml: Record<string, unknown>;
  readonly nccl: Record<string, unknown>;
  setup(resolveLibrary: (name: string) => string, makeError: typeof makeLibraryError): void;
  loadedLibraries(): { name: string; path: string }[];
  perThreadDefaultStream(): boolean;
  /**
   * Test-only: runs a job on the addon's nvJitLink thread, blocking or as a
   * Promise (the paths nvJitLink's functions take), after `delayMs`; gives the
   * id of the thread that ran it and of the JS thread that got the answer.
   * @internal
   */
  __nvJitLinkThreadIdForTests(async?: false, delayMs?: number): { job: number; caller: number };
  __nvJitLinkThreadIdForTests(async: true, delayMs?: number): Promise<{ job: number; caller: number }>;
}

const ADDON_NAME = 'cuda_js_bindings';
const require = createRequire(import.meta.url);
// src/ and dist/ both sit one folder below the package root.
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceBuild = join(packageRoot, 'native', 'build', 'Release', `${ADDON_NAME}.node`);
const prebuilds = join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`);

/**
 * Where the addon is taken from: `CUDA_JS_BINDINGS_ADDON` if set; else a
 * source build (`native/build/Release`, as node-gyp-build prefers one); else
 * the prebuild that node-gyp-build picks for this platform, architecture, libc
 * and runtime from the package's `prebuilds/`.
 */
function resolveAddon(): { path?: string; searched: string[] } {
  const override = process.env['CUDA_JS_BINDINGS_ADDON'];
  if (override) return { path: override, searched: [`${override} (CUDA_JS_BINDINGS_ADDON)`] };
  const searched = [sourceBuild, `${prebuilds}/*.node (node-gyp-build)`];
  if (existsSync(sourceBuild)) return { path: sourceBuild, searched };
  try {
    const nodeGypBuild = require('node-gyp-build') as { path(dir: string): string };
    return { path: nodeGypBuild.path(packageRoot), searched };
  } catch {
    return { searched };
  }
}

const HOW_TO_BUILD =
  'Prebuilt addons ship for linux-x64 and linux-arm64 (glibc); elsewhere, build it from source (python3, make and a C++17 compiler; no CUDA toolkit needed): ' +
  `cd ${packageRoot} && npx node-gyp rebuild --directory native`;

function loadAddon(): { addon: NativeAddon; path: string } | AddonLoadError {
  const { path, searched } = resolveAddon();
  const where = `looked for: ${searched.join(', ')}`;
  if (path === undefined) {
    return new AddonNotFoundError(
      `@cuda-js/bindings: no build of the native addon ${ADDON_NAME}.node fits ${process.platform}-${process.arch} (Node.js ${process.version}, N-API ${process.versions.napi}); ${where}. ${HOW_TO_BUILD}`,
      searched,
      undefined,
    );
  }
  try {
    return { addon: require(path) as NativeAddon, path };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const Kind = (error as { code?: string }).code === 'MODULE_NOT_FOUND' ? AddonNotFoundError : AddonLoadError;
    return new Kind(`@cuda-js/bindings: the native addon ${path} did not load: ${reason}; ${where}. ${HOW_TO_BUILD}`, searched, path, error);
  }
}

/**
 * What a namespace of the addon falls back on when the addon is missing: every
 * function of that library (by its prefix) throws the {@link AddonLoadError}.
 * It is the prototype of `driver`, `nvrtc`, ... only then; with the addon, they have none.
 */
function unavailable(error: AddonLoadError, prefix: RegExp): object {
  const fail = (): never => {
    throw error;
  };
  return new Proxy(Object.create(null) as object, {
    get: (_target, key) => (typeof key === 'string' && prefix.test(key) ? fail : undefined),
    has: (_target, key) => typeof key === 'string' && prefix.test(key),
  });
}

const loaded = loadAddon();

/** Where the addon was loaded from, or the error that says why it was not. */
export const addon: { readonly path: string } | { readonly error: AddonLoadError } = loaded instanceof AddonLoadError ? { error: loaded } : { path: loaded.path };

/** The prototype for each namespace: null with the addon, else functions that throw why it is missing. */
export const namespaceFallback: {
  readonly driver: object | null;
  readonly nvrtc: object | null;
  readonly nvjitlink: object | null;
  readonly nvvm: object | null;
  readonly nvml: object | null;
  readonly nccl: object | null;
} =
  loaded instanceof AddonLoadError
    ? {
        driver: unavailable(loaded, /^(cu[A-Z]|createKernelParams$|createPackedLaunch$|createLaunchFunction$|launchCrossingProbe$)/),
        nvrtc: unavailable(loaded, /^nvrtc[A-Z]/),
        nvjitlink: unavailable(loaded, /^nvJitLink[A-Z]/),
        nvvm: unavailable(loaded, /^nvvm[A-Z]/),
        nvml: unavailable(loaded, /^nvml[A-Z]/),
        nccl: unavailable(loaded, /^nccl[A-Z]/),
      }
    : { driver: null, nvrtc: null, nvjitlink: null, nvvm: null, nvml: null, nccl: null };

function failing(error: AddonLoadError): NativeAddon {
  const fail = (): never => {
    throw error;
  };
  return { driver: {}, nvrtc: {}, nvjitlink: {}, nvvm: {}, nvml: {}, nccl: {}, setup: () => undefined, loadedLibraries: fail, perThreadDefaultStream: fail, __nvJitLinkThreadIdForTests: fail };
}

export const native: NativeAddon = loaded instanceof AddonLoadError ? failing(loaded) : loaded.addon;

/**
 * The addon's top-level function `name` (one beside the namespaces, such as
 * `hostArrayBuffer`); throws the AddonLoadError that says why the addon is
 * missing, or, with an addon that lacks it, an Error naming it.
 */
export function addonFunction<F extends (...args: never[]) => unknown>(name: string): F {
  const f = (native as unknown as Readonly<Record<string, F | undefined>>)[name];
  if (f === undefined) throw 'error' in addon ? addon.error : new Error(`@cuda-js/bindings: the native addon has no ${name}`);
  return f;
}

// The addon asks for a library's path on the first call into it.
native.setup((name) => {
  const location = findLibrary(name);
  recordFound(location);
  return location.path;
}, makeLibraryError);
