// The kernel artifacts this process loaded: every kernel looks its entry
// up here by name before it compiles anything (see artifact-choice.ts).
import { jitVersion } from '../compile/kernel-cache.js';
import { KernelArtifactFormatError, StaleKernelArtifactError } from '../errors.js';
import { readKernelArtifact, type SerializedKernelArtifact } from './artifact-files.js';
import { KERNEL_ARTIFACT_FORMAT, type ArtifactKernel, type KernelArtifact } from './kernel-artifact.js';

const loaded: KernelArtifact[] = [];

/** Whether every code entry of a (checked) artifact holds its bytes: one in memory, kept as it is (so that unloadKernelArtifact takes it back). */
function inMemory(value: KernelArtifact): boolean {
  return value.kernels.every((k) => k.specializations.every((s) => s.code.every((c) => c.data instanceof Uint8Array)));
}

/**
 * Loads kernels compiled ahead of time (by `cuda-js build-kernels` or
 * {@link buildKernelArtifact}) for every kernel of this process: a launch
 * of a kernel that the artifact names (by its name, checked against the
 * hash of its definition) loads the artifact's cubin for the device's
 * architecture, else its PTX, with no typing, lowering or libNVVM. Give
 * the artifact's folder (or its `manifest.json`), as a path (relative ones
 * are resolved against the working directory, `process.cwd()`, not the
 * calling module) or as a `file:` URL (`new URL('./kernels-aot/',
 * import.meta.url)`: the folder beside the module, wherever the process
 * runs), the default export of its `kernels.js` (bundlers embed that), or an
 * artifact in memory. Load it
 * before the kernels' first launch; kernels it does not name compile as
 * always.
 *
 * @throws {KernelArtifactFormatError} where it is not an artifact of this format
 * @throws {StaleKernelArtifactError} where another version of `@cuda-js/jit` built it
 */
export function loadKernelArtifact(source: string | URL | SerializedKernelArtifact | KernelArtifact): KernelArtifact {
  // every form is read by the one reader, field by field; one in memory is then kept as it was given
  const read = readKernelArtifact(source);
  const artifact =
    typeof source !== 'string' && !(source instanceof URL) && inMemory(source as KernelArtifact)
      ? (source as KernelArtifact)
      : read;
  if (artifact.format !== KERNEL_ARTIFACT_FORMAT)
    throw new KernelArtifactFormatError(
      `kernel artifact: format ${String(artifact.format)}, this @cuda-js/jit reads format ${KERNEL_ARTIFACT_FORMAT}`,
    );
  const here = jitVersion();
  if (artifact.jitVersion !== here) {
    const names = artifact.kernels.map((k) => k.name).join(', ');
    throw new StaleKernelArtifactError(
      `kernel artifact (${names}): built by @cuda-js/jit ${artifact.jitVersion}, this is ${here}; the launch ABI is the JIT's own, so build it again with cuda-js build-kernels`,
    );
  }
  if (!loaded.includes(artifact)) loaded.push(artifact);
  return artifact;
}

/** Forgets an artifact that {@link loadKernelArtifact} loaded (kernels already loaded from it stay loaded). */
export function unloadKernelArtifact(artifact: KernelArtifact): void {
  const i = loaded.indexOf(artifact);
  if (i !== -1) loaded.splice(i, 1);
}

/** The artifacts loaded, in the order they were. */
export function loadedKernelArtifacts(): readonly KernelArtifact[] {
  return [...loaded];
}

/** @internal The entries named `name` in the loaded artifacts, the latest loaded first. */
export function artifactKernelsNamed(name: string): ArtifactKernel[] {
  const out: ArtifactKernel[] = [];
  for (let i = loaded.length - 1; i >= 0; i--) for (const k of loaded[i]!.kernels) if (k.name === name) out.push(k);
  return out;
}
