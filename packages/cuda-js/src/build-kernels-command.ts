// `cuda-js build-kernels <entry>`: the kernels an app declares signatures
// for (or that --signature names), compiled ahead of time into an artifact folder, for apps without a
// bundler (the build plugin does the same inside a bundle). The entry
// module is imported, so it should define kernels without running the app
// (a kernels module, or an entry whose main work waits for a call).
import {
  buildModuleKernels,
  KernelBuildError,
  KernelTypeError,
  type BuildModuleKernelsOptions,
  type BuiltModuleKernels,
} from '@cuda-js/jit';

type Write = (text: string) => void;

/** The options of `cuda-js build-kernels`. */
export interface BuildKernelsOptions {
  /** The real architectures to make cubins for (each `--arch`, or a comma list). */
  readonly arch: readonly string[];
  /** The virtual architectures to keep PTX for; default the newest of `arch`; `false` (`--no-ptx`): none. */
  readonly ptx?: readonly string[] | false | undefined;
  /** Signatures to build besides the declared ones, each `name=text` in numba's text (`--signature 'axpy=void(float32, float32[:])'`). */
  readonly signatures?: readonly string[] | undefined;
  /** The folder to write the artifact into. */
  readonly out: string;
  /** Print the artifact's description as JSON. */
  readonly json?: boolean | undefined;
}

function list(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** Builds the kernels of `entry` into `options.out`; gives the exit code (1 on an error, printed). */
export async function runBuildKernels(
  entry: string,
  options: BuildKernelsOptions,
  out: Write = (t) => process.stdout.write(t),
  err: Write = (t) => process.stderr.write(t),
): Promise<number> {
  const arch = list(options.arch);
  if (arch.length === 0) {
    err(
      'cuda-js build-kernels: give the architectures to build cubins for, --arch sm_90 (repeat it, or a comma list)\n',
    );
    return 1;
  }
  const byKernel: Record<string, string[]> = {};
  for (const spec of options.signatures ?? []) {
    const at = spec.indexOf('=');
    const name = spec.slice(0, at).trim();
    if (at < 1 || name === '') {
      err(
        `cuda-js build-kernels: --signature takes a kernel's name and a signature, 'axpy=void(float32, float32[:], float32[:])'; got '${spec}'\n`,
      );
      return 1;
    }
    (byKernel[name] ??= []).push(spec.slice(at + 1).trim());
  }
  const started = performance.now();
  let built: BuiltModuleKernels;
  try {
    const ptx = options.ptx === false ? false : options.ptx === undefined ? undefined : list(options.ptx);
    const build: BuildModuleKernelsOptions = {
      arch,
      out: options.out,
      ...(ptx === undefined ? {} : { ptx }),
      ...(Object.keys(byKernel).length === 0 ? {} : { signatures: byKernel }),
    };
    built = await buildModuleKernels(entry, build);
  } catch (error) {
    const text =
      error instanceof KernelBuildError || error instanceof KernelTypeError
        ? error.message
        : error instanceof Error
          ? `${error.name}: ${error.message}`
          : String(error);
    // node runs .ts files only with type stripping (22.6+ behind a flag, 23.6+ by default)
    const hint =
      /\.[cm]?ts$/.test(entry) && /Unknown file extension/.test(text)
        ? '\n  this node cannot import TypeScript: build the entry to JavaScript first, or run the CLI with node --experimental-strip-types (Node 22.6+)'
        : '';
    err(`cuda-js build-kernels: ${text}${hint}\n`);
    return 1;
  }
  const { artifact, written } = built;
  const ms = performance.now() - started;
  if (options.json) {
    const summary = artifact.kernels.map((k) => ({
      name: k.name,
      definedAt: k.definedAt,
      signatures: k.specializations.map((s) => ({
        signature: s.signature,
        code: s.code.map((c) => `${c.kind} ${c.arch}`),
      })),
    }));
    out(
      `${JSON.stringify({ out: options.out, manifest: written.manifest, module: written.module, toolchain: artifact.toolchain, kernels: summary })}\n`,
    );
    return 0;
  }
  const signatures = artifact.kernels.reduce((n, k) => n + k.specializations.length, 0);
  out(
    `built ${artifact.kernels.length} kernel(s), ${signatures} signature(s) in ${ms.toFixed(0)} ms (${artifact.toolchain})\n`,
  );
  for (const k of artifact.kernels)
    for (const s of k.specializations)
      out(
        `  ${k.name}(${s.signature}): ${s.code.map((c) => `${c.kind} ${c.arch} (${c.data.byteLength} B)`).join(', ')}\n`,
      );
  out(`wrote ${written.manifest} (with ${written.code.length} code files) and ${written.module}\n`);
  out(
    `load it before the first launch: loadKernelArtifact(${JSON.stringify(options.out)}), or import ${written.module} and pass its default export\n`,
  );
  return 0;
}
