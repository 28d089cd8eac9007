import { existsSync, readFileSync } from 'node:fs';
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

const PACKAGE = '@cuda-js/bindings';
const ADDON_NAME = 'cuda_js_bindings';
const PLATFORM = `${process.platform}-${process.arch}`;

/**
 * The file this code runs from: the package's `dist/index.js`, or the bundle
 * that a bundler inlined it into. `import.meta.url` is undefined where a
 * bundler made CommonJS of it; `__filename` then names the bundle.
 */
function ownFile(): string | undefined {
  const url: unknown = import.meta.url;
  if (typeof url === 'string' && url.startsWith('file:')) return fileURLToPath(url);
  return typeof __filename === 'string' ? __filename : undefined;
}

/** Whether `dir` is the root of the bindings package (its package.json names it). */
function isPackageRoot(dir: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === PACKAGE;
  } catch {
    return false;
  }
}

/**
 * The installed bindings package that a bundle's app would import, looked up
 * as Node.js resolves a package (each folder's node_modules, upwards) from
 * the bundle's folder, the main script's and the working directory: a bundle
 * that inlined the bindings still finds their addon where the app ships
 * node_modules beside it.
 */
function installedPackageRoot(from: readonly (string | undefined)[]): string | undefined {
  for (const start of from) {
    for (let dir = start; dir !== undefined; ) {
      const candidate = join(dir, 'node_modules', ...PACKAGE.split('/'));
      if (isPackageRoot(candidate)) return candidate;
      const up = dirname(dir);
      dir = up === dir ? undefined : up;
    }
  }
  return undefined;
}

/** The builds of the addon in a package root, in the order node-gyp-build prefers them: a source build, then the prebuild of this platform. */
function buildsIn(root: string): string[] {
  return [
    join(root, 'native', 'build', 'Release', `${ADDON_NAME}.node`),
    join(root, 'prebuilds', PLATFORM, `${ADDON_NAME}.node`),
  ];
}

/** The prebuild that node-gyp-build picks for this platform, libc and runtime, where it can run (not inside a CommonJS bundle, which has no `import.meta.url`). */
function nodeGypBuildPick(root: string): string | undefined {
  try {
    const nodeGypBuild = createRequire(import.meta.url)('node-gyp-build') as { path(dir: string): string };
    return nodeGypBuild.path(root);
  } catch {
    return undefined;
  }
}

/** Where the addon was looked for, and what was found. `bundledInto` is the bundle's file where the bindings run from one. */
interface Resolution {
  readonly path?: string;
  /** The package root the builds were looked for in. */
  readonly root?: string;
  readonly searched: string[];
  readonly bundledInto?: string;
}

/**
 * Where the addon is taken from: `CUDA_JS_BINDINGS_ADDON` if set; else a
 * source build (`native/build/Release`), else this platform's prebuild, of the
 * package this code runs from; where a bundler inlined the bindings into an
 * app's file, of the bindings package installed where the app runs.
 */
function resolveAddon(): Resolution {
  const override = process.env['CUDA_JS_BINDINGS_ADDON'];
  if (override) return { path: override, searched: [`${override} (CUDA_JS_BINDINGS_ADDON)`] };
  const file = ownFile();
  // src/, dist/ and dist/chunks/ sit one or two folders below the package root; elsewhere the code was bundled into an app's file
  const ownRoot =
    file === undefined ? undefined : [join(dirname(file), '..'), join(dirname(file), '..', '..')].find(isPackageRoot);
  const bundledInto = ownRoot !== undefined ? undefined : (file ?? '(a bundle)');
  const root =
    bundledInto === undefined
      ? ownRoot
      : installedPackageRoot([
          file === undefined ? undefined : dirname(file),
          process.argv[1] === undefined ? undefined : dirname(process.argv[1]),
          process.cwd(),
        ]);
  if (root === undefined)
    return {
      searched: [`${PACKAGE} installed beside ${bundledInto} (node_modules), the main script or the working directory`],
      ...(bundledInto ? { bundledInto } : {}),
    };
  const searched = buildsIn(root);
  const found = searched.find((path) => existsSync(path)) ?? nodeGypBuildPick(root);
  return { ...(found === undefined ? {} : { path: found }), root, searched, ...(bundledInto ? { bundledInto } : {}) };
}

function howToFix(resolution: Resolution): string {
  if (resolution.bundledInto !== undefined) {
    return (
      `${PACKAGE} was bundled into ${resolution.bundledInto}, away from its native addon: keep ${PACKAGE} an import of the bundle ` +
      `(@cuda-js/unplugin does so by default; esbuild: external: ['${PACKAGE}']) and ship node_modules/${PACKAGE} with the app, or set CUDA_JS_BINDINGS_ADDON to the addon's file`
    );
  }
  return (
    'Prebuilt addons ship for linux-x64 and linux-arm64 (glibc); elsewhere, build it from source (python3, make and a C++17 compiler; no CUDA toolkit needed): ' +
    `cd ${resolution.root ?? PACKAGE} && npx node-gyp rebuild --directory native`
  );
}

/** Loads a `.node` file as Node's require would, without a require() that bundlers try to follow. */
function loadNativeFile(path: string): NativeAddon {
  const module = { exports: {} as NativeAddon };
  process.dlopen(module, path);
  return module.exports;
}

function loadAddon(): { addon: NativeAddon; path: string } | AddonLoadError {
  const resolution = resolveAddon();
  const { path, searched } = resolution;
  const where = `looked for: ${searched.join(', ')}`;
  if (path === undefined) {
    return new AddonNotFoundError(
      `${PACKAGE}: no build of the native addon ${ADDON_NAME}.node fits ${PLATFORM} (Node.js ${process.version}, N-API ${process.versions.napi}); ${where}. ${howToFix(resolution)}`,
      searched,
      undefined,
    );
  }
  try {
    return { addon: loadNativeFile(path), path };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const missing = (error as { code?: string }).code === 'ERR_DLOPEN_FAILED' && !existsSync(path);
    const Kind = missing ? AddonNotFoundError : AddonLoadError;
    return new Kind(
      `${PACKAGE}: the native addon ${path} did not load: ${reason}; ${where}. ${howToFix(resolution)}`,
      searched,
      path,
      error,
    );
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
export const addon: { readonly path: string } | { readonly error: AddonLoadError } =
  loaded instanceof AddonLoadError ? { error: loaded } : { path: loaded.path };

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
        driver: unavailable(
          loaded,
          /^(cu[A-Z]|createKernelParams$|createPackedLaunch$|createLaunchFunction$|launchCrossingProbe$)/,
        ),
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
  return {
    driver: {},
    nvrtc: {},
    nvjitlink: {},
    nvvm: {},
    nvml: {},
    nccl: {},
    setup: () => undefined,
    loadedLibraries: fail,
    perThreadDefaultStream: fail,
    __nvJitLinkThreadIdForTests: fail,
  };
}

export const native: NativeAddon = loaded instanceof AddonLoadError ? failing(loaded) : loaded.addon;

/**
 * The addon's top-level function `name` (one beside the namespaces, such as
 * `hostArrayBuffer`); throws the AddonLoadError that says why the addon is
 * missing, or, with an addon that lacks it, an Error naming it.
 */
export function addonFunction<F extends (...args: never[]) => unknown>(name: string): F {
  const f = (native as unknown as Readonly<Record<string, F | undefined>>)[name];
  if (f === undefined)
    throw 'error' in addon ? addon.error : new Error(`@cuda-js/bindings: the native addon has no ${name}`);
  return f;
}

// The addon asks for a library's path on the first call into it.
native.setup((name) => {
  const location = findLibrary(name);
  recordFound(location);
  return location.path;
}, makeLibraryError);
