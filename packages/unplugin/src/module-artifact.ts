// The `aot` option's build of one module: the module (and the files it
// imports, with the plugin's records attached, as in the app's bundle) is
// bundled by esbuild into one temporary ES module whose packages stay
// imports of the files the module itself would load, imported, and every
// kernel it makes with declared signatures is built by the JIT's own
// ahead-of-time build (libNVVM and ptxas, no GPU). The records make the
// kernels' definition hashes the same as in the app's bundle, whatever
// bundler and minifier build that.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { KernelArtifact } from '@cuda-js/jit';
import type { Plugin as EsbuildPlugin } from 'esbuild';
import type { CudaJsAotOptions } from './plugin-options.js';

type Jit = typeof import('@cuda-js/jit');
type Esbuild = typeof import('esbuild');

async function load<T>(specifier: string, why: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    throw new Error(
      `the cuda-js build plugin's aot option needs ${specifier} at build time (${why}); add it to the app's devDependencies`,
      { cause: error },
    );
  }
}

/** Bare imports stay imports, of the file that the importer would load (the temporary module lives elsewhere). */
const externalAtResolvedPath: EsbuildPlugin = {
  name: 'cuda-js-aot-externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (
        args.pluginData === externalAtResolvedPath ||
        args.path.startsWith('node:') ||
        builtinModules.includes(args.path)
      )
        return undefined;
      if (/^[a-z][a-z0-9+.-]*:/i.test(args.path) && !/^[a-z]:[\\/]/i.test(args.path))
        return { path: args.path, external: true };
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: externalAtResolvedPath,
      });
      if (resolved.errors.length > 0 || resolved.external || resolved.path === '')
        return { path: args.path, external: true };
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
  },
};

/**
 * The artifact of the kernels that importing `file` makes with declared
 * signatures (or that `aot.signatures` names), built for `aot`'s
 * architectures; undefined where it makes none.
 * `records` is the plugin itself (for esbuild, without `aot`).
 *
 * @throws {KernelBuildError} (of @cuda-js/jit) where importing the module or building a kernel fails
 */
export async function buildModuleArtifact(
  file: string,
  aot: CudaJsAotOptions,
  records: EsbuildPlugin,
): Promise<KernelArtifact | undefined> {
  const jit = await load<Jit>('@cuda-js/jit', 'to compile the kernels');
  const esbuild = await load<Esbuild>('esbuild', "to load the kernels' module");
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-aot-'));
  try {
    const bundled = await esbuild.build({
      entryPoints: [file],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      outfile: join(dir, 'module.mjs'),
      logLevel: 'silent',
      plugins: [externalAtResolvedPath, records],
    });
    const module = join(dir, 'module.mjs');
    writeFileSync(module, bundled.outputFiles[0]!.contents);
    let kernels: Awaited<ReturnType<Jit['importDeclaredKernels']>>;
    try {
      kernels = await jit.importDeclaredKernels(pathToFileURL(module), { named: Object.keys(aot.signatures ?? {}) });
    } catch (error) {
      // name the module as written, not the temporary file
      const cause = (error as { cause?: unknown }).cause;
      const why = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause ?? error);
      throw new jit.KernelBuildError(
        `the cuda-js build plugin's aot option: importing ${file} at build time failed: ${why}`,
        undefined,
        { cause: cause ?? error },
      );
    }
    if (kernels.length === 0) return undefined;
    // the build's signatures of this module's kernels (the option names the kernels of every module)
    const names = new Set(kernels.map((k) => k.name));
    const signatures = Object.fromEntries(Object.entries(aot.signatures ?? {}).filter(([name]) => names.has(name)));
    return jit.buildKernelArtifact(kernels, {
      arch: aot.arch,
      ...(aot.ptx === undefined ? {} : { ptx: aot.ptx }),
      ...(aot.ptxas === undefined ? {} : { ptxas: aot.ptxas }),
      ...(Object.keys(signatures).length === 0 ? {} : { signatures }),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
