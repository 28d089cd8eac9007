// The whole ahead-of-time build of one module, as `cuda-js build-kernels`
// runs it: import the module, collect the kernels it declares signatures
// for, build them, write the artifact folder. The build plugin's `aot`
// option shares the import step and emits the files as assets instead.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KernelBuildError } from '../errors.js';
import { BUILD_MODULE_KERNELS_OPTIONS, checkJitOptions } from '../jit-options.js';
import type { JitKernel } from '../jit.js';
import { writeKernelArtifact, type WrittenKernelArtifact } from './artifact-files.js';
import { buildKernelArtifact, buildSignatures, type BuildKernelArtifactOptions } from './build-kernel-artifact.js';
import { collectKernels, isBuilt, type CollectKernelsOptions } from './collect-kernels.js';
import type { KernelArtifact } from './kernel-artifact.js';

/** Options of {@link buildModuleKernels}: the build's, and the folder to write. */
export interface BuildModuleKernelsOptions extends BuildKernelArtifactOptions {
  /** The folder to write the artifact into (made where missing). */
  readonly out: string;
}

/** What {@link buildModuleKernels} built and wrote. */
export interface BuiltModuleKernels {
  readonly kernels: readonly JitKernel[];
  readonly artifact: KernelArtifact;
  readonly written: WrittenKernelArtifact;
}

/**
 * The kernels with declared `signatures` (or named in `options.named`,
 * for a build that gives them signatures) that importing `entry` makes (a
 * path, relative to the working directory, or a URL): what
 * `cuda-js build-kernels` and the build plugin's `aot` option build. The
 * module runs as it does when imported. Empty where it declares none.
 *
 * @throws {KernelBuildError} when importing the module throws (the error is its `cause`)
 */
export async function importDeclaredKernels(
  entry: string | URL,
  options: CollectKernelsOptions = {},
): Promise<JitKernel[]> {
  if (typeof entry !== 'string' && !(entry instanceof URL)) {
    throw new KernelBuildError(
      `importDeclaredKernels: the entry is a module's path or URL, got ${entry === null ? 'null' : typeof entry}`,
    );
  }
  const url =
    entry instanceof URL
      ? entry.href
      : /^[a-z][a-z0-9+.-]*:\/\//i.test(entry)
        ? entry
        : pathToFileURL(resolve(entry)).href;
  try {
    // the app's module, named at run time: bundlers that bundle this package leave the import to Node (webpack would warn of a "critical dependency")
    return await collectKernels(() => import(/* webpackIgnore: true */ /* @vite-ignore */ url), options);
  } catch (error) {
    const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new KernelBuildError(`importing ${String(entry)} failed: ${why}`, undefined, { cause: error });
  }
}

/**
 * Imports `entry` (a path, relative to the working directory, or a URL),
 * builds every kernel it makes with declared `signatures` and writes the
 * artifact into `options.out`. The module runs as it does when imported:
 * keep an entry's main work behind a call, or give a kernels module.
 *
 * @throws {KernelBuildError} when the module makes no kernel with declared signatures, and what {@link buildKernelArtifact} throws
 * @throws {KernelBuildError} when importing the module throws (the error is its `cause`)
 */
export async function buildModuleKernels(
  entry: string | URL,
  given: BuildModuleKernelsOptions,
): Promise<BuiltModuleKernels> {
  const options = checkJitOptions<BuildModuleKernelsOptions>(
    'buildModuleKernels()',
    given,
    BUILD_MODULE_KERNELS_OPTIONS,
  ) as BuildModuleKernelsOptions;
  // every kernel the module makes, so that a misspelt name in signatures is named with the nearest
  const made = await importDeclaredKernels(entry, { every: true });
  const named = [
    ...buildSignatures(
      options.signatures,
      made.map((k) => k.name),
    ).keys(),
  ];
  const kernels = made.filter((k) => isBuilt(k, named));
  if (kernels.length === 0) {
    throw new KernelBuildError(
      `${String(entry)} makes no kernel with declared signatures; declare them with jit(fn, { signatures: [[f32, array(f32, 1)]] }), or name its kernels in the build's signatures`,
    );
  }
  const { out, ...build } = options;
  const artifact = buildKernelArtifact(kernels, build);
  return { kernels, artifact, written: writeKernelArtifact(artifact, out) };
}
