import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { SourceMapPayload } from 'node:module';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import type { Plugin as EsbuildPlugin } from 'esbuild';
import { createUnplugin, type UnpluginBuildContext, type UnpluginInstance } from 'unplugin';
import { findKernels } from './find-kernels.js';
import { buildModuleArtifact } from './module-artifact.js';
import { checkPluginOptions, PluginOptionError, type CudaJsPluginOptions } from './plugin-options.js';
import { suggestName } from '@cuda-js/options';

const SCRIPT = /\.[cm]?[jt]sx?$/;

/** The suffix of the module that loads a module's ahead-of-time artifact (`/app/src/kernels.ts?cuda-js-aot`). */
const AOT_SUFFIX = '?cuda-js-aot';
/** The local name of its `loaded` in the kernels module. */
const AOT_LOADED = '__cudaJsAotLoaded';

/** The package whose native addon must stay beside its JavaScript: kept an import of the bundle by default. */
const NATIVE_PACKAGE = /^@cuda-js\/bindings(?:\/|$)/;

/** What the plugin uses of a webpack or rspack compiler: its output's kind and its ExternalsPlugin. */
interface WebpackLikeCompiler {
  readonly options: { readonly output: { readonly module?: boolean | undefined } };
  readonly webpack: {
    readonly ExternalsPlugin: new (type: 'module' | 'import', externals: RegExp[]) => { apply(compiler: never): void };
  };
}

/** Said once per build where the plugin kept the native package an import. */
const KEPT_EXTERNAL =
  "[cuda-js] @cuda-js/bindings stays an import of the bundle (its native addon cannot be bundled): ship node_modules/@cuda-js/bindings with the app (npm install --omit=dev where it runs), or set the plugin's native: 'bundle' option to decide yourself";

/** The folder of a module's artifact in the assets: its path from the root, one name (`src_kernels`). */
function artifactFolder(file: string, root: string): string {
  const rel = relative(root, file);
  const shown = rel.startsWith('..') || isAbsolute(rel) ? file : rel;
  return shown
    .replace(/\.[cm]?[jt]sx?$/, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+/, '');
}

/** Emits an asset; for esbuild with `outfile` (where unplugin writes only into `outdir`), beside it. */
function emitAsset(context: UnpluginBuildContext, fileName: string, source: string | Uint8Array): void {
  const native = context.getNativeBuildContext?.();
  if (native?.framework === 'esbuild') {
    const { outdir, outfile } = native.build.initialOptions;
    if (!outdir && outfile) {
      const path = resolve(dirname(outfile), fileName);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, source);
      return;
    }
  }
  context.emitFile({ type: 'asset', fileName, source });
}

/** The map of the earlier steps of the build (rollup, vite, rolldown), where the code differs from the file as written. */
function inputMapOf(context: unknown, code: string, file: string): SourceMapPayload | undefined {
  let onDisk: string | undefined;
  try {
    onDisk = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  if (onDisk === code) return undefined;
  // rollup, vite and rolldown call the hook with their own plugin context; webpack's loader has the input map
  const own = context as {
    getCombinedSourcemap?: () => unknown;
    getNativeBuildContext?: () => { inputSourceMap?: unknown };
  };
  let map: unknown;
  try {
    map = own.getCombinedSourcemap?.() ?? own.getNativeBuildContext?.().inputSourceMap;
  } catch {
    return undefined;
  }
  if (!map) return undefined;
  const payload = (typeof map === 'string' ? JSON.parse(map) : JSON.parse(JSON.stringify(map))) as SourceMapPayload;
  return Array.isArray(payload.sources) && typeof payload.mappings === 'string' && payload.mappings !== ''
    ? payload
    : undefined;
}

/**
 * The cuda-js build plugin, one implementation for every bundler that
 * unplugin serves: `.vite()`, `.esbuild()`, `.rollup()`, `.rolldown()`,
 * `.webpack()`, `.rspack()`. It runs before other transforms (`enforce:
 * 'pre'`), finds the kernels of each module and attaches their records
 * (see findKernels), so that what minifiers and scope hoisting do later
 * changes nothing for the JIT.
 */
export const cudaJsPlugin: UnpluginInstance<CudaJsPluginOptions | undefined, false> = createUnplugin(
  (raw: CudaJsPluginOptions | undefined) => {
    const options = checkPluginOptions(raw ?? {});
    const { aot, ...recordOnly } = options;
    const root = options.root ?? process.cwd();
    // the module of each kernels module's first jit() that declares signatures, which the loader imports loadKernelArtifact from
    const declaredFrom = new Map<string, string>();
    // the kernels the aot build made, by name: a name of aot.signatures that none has is refused at the build's end
    const built = new Set<string>();
    const named = new Set<string>();
    let transformed = false;
    const keepNativeExternal = (options.native ?? 'external') === 'external';
    let saidExternal = false;
    const sayKeptExternal = (): void => {
      if (!saidExternal) console.info(KEPT_EXTERNAL);
      saidExternal = true;
    };
    const external = (source: string): { id: string; external: true } | undefined => {
      if (!keepNativeExternal || !NATIVE_PACKAGE.test(source)) return undefined;
      sayKeptExternal();
      return { id: source, external: true };
    };
    // unplugin's resolveId cannot make a module external in webpack and rspack: their own externals do
    const keepExternalIn = (compiler: WebpackLikeCompiler): void => {
      if (!keepNativeExternal) return;
      const type = compiler.options.output.module ? 'module' : 'import';
      new compiler.webpack.ExternalsPlugin(type, [NATIVE_PACKAGE]).apply(compiler as never);
      sayKeptExternal();
    };
    const include = options.include;
    const wanted = (id: string): boolean => {
      const path = id.replace(/[?#].*$/, '');
      if (include instanceof RegExp) return include.test(path);
      if (typeof include === 'function') return include(path);
      return SCRIPT.test(path) && !/[\\/]node_modules[\\/]/.test(path);
    };
    return {
      name: 'cuda-js',
      enforce: 'pre',
      transformInclude: (id) => !id.endsWith(AOT_SUFFIX) && wanted(id),
      transform(code, id) {
        const file = id.replace(/[?#].*$/, '');
        const found = findKernels(code, file, {
          ...(options.modules ? { modules: options.modules } : {}),
          ...(options.root ? { root: options.root } : {}),
          ...(aot?.signatures ? { buildNames: Object.keys(aot.signatures) } : {}),
          inputMap: inputMapOf(this, code, file),
        });
        if (!found) return undefined;
        transformed = true;
        for (const name of found.kernelNames) named.add(name);
        for (const record of found.records) options.onKernel?.(record, file);
        if (!aot || found.declaresSignaturesFrom === undefined) return { code: found.code, map: found.map };
        declaredFrom.set(file, found.declaresSignaturesFrom);
        // an import at the end changes no line of the map, and imports run before the module's body wherever they are written;
        // the call keeps the import where a bundler drops imports of nothing (webpack under `sideEffects: false`)
        return {
          code: `${found.code}\nimport { loaded as ${AOT_LOADED} } from ${JSON.stringify(file + AOT_SUFFIX)};\n${AOT_LOADED}();\n`,
          map: found.map,
        };
      },
      buildEnd() {
        const unbuilt = Object.keys(aot?.signatures ?? {}).filter((name) => !built.has(name));
        if (!transformed || unbuilt.length === 0) return;
        const where = "the cuda-js build plugin's aot option";
        const near = suggestName(unbuilt[0]!, [...new Set([...built, ...named])]);
        const message = `${where}: signatures names ${unbuilt.map((n) => `'${n}'`).join(', ')}, which no kernel of the build is called${near === undefined ? '' : ` (did you mean '${near}'?)`}; the kernels built: ${[...built].join(', ') || '(none)'}. A kernel's name is its jit() call's name option, written as a string, else its function's own name, else the name it is assigned to (const saxpy = jit(...))`;
        throw new PluginOptionError({
          kind: 'invalid',
          where,
          key: 'signatures',
          value: aot?.signatures,
          expected: 'names of kernels of the build',
          message,
        });
      },
      resolveId(source) {
        if (aot && source.endsWith(AOT_SUFFIX)) return source;
        return external(source);
      },
      webpack: (compiler) => keepExternalIn(compiler),
      rspack: (compiler) => keepExternalIn(compiler),
      loadInclude: (id) => aot !== undefined && id.endsWith(AOT_SUFFIX),
      async load(id) {
        if (!aot || !id.endsWith(AOT_SUFFIX)) return undefined;
        const file = id.slice(0, -AOT_SUFFIX.length);
        const from = declaredFrom.get(file);
        const artifact =
          from === undefined
            ? undefined
            : await buildModuleArtifact(file, aot, cudaJsPlugin.esbuild(recordOnly) as EsbuildPlugin);
        for (const k of artifact?.kernels ?? []) built.add(k.name);
        if (!artifact || from === undefined) return 'export function loaded() {}\n';
        const jit = await import('@cuda-js/jit');
        if (aot.assets !== false) {
          const folder = `${aot.assets ?? 'kernels-aot'}/${artifactFolder(file, root)}`;
          for (const f of jit.kernelArtifactFiles(artifact)) emitAsset(this, `${folder}/${f.name}`, f.data);
        }
        return `import { loadKernelArtifact } from ${JSON.stringify(from)};\nconst artifact = loadKernelArtifact(${JSON.stringify(jit.serializeKernelArtifact(artifact))});\nexport function loaded() {\n  return artifact;\n}\n`;
      },
    };
  },
);
