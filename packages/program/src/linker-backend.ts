import { cuda } from './cuda-bindings.js';
import { LinkerUnavailableError } from './errors.js';
import type { LinkerBackend } from './linker-options.js';
import { nvJitLinkToolchain, type Toolchain } from './toolchain.js';

/** The linker chosen, and why nvJitLink was not. */
export interface LinkerChoice {
  readonly backend: LinkerBackend;
  /** nvJitLink as loaded, or the driver (its CUDA release). */
  readonly toolchain: Toolchain;
  /** Why nvJitLink was not taken, when the driver was by default. */
  readonly fallbackReason: string | undefined;
}

let jitLink: { toolchain: Toolchain } | { reason: string } | undefined;
let driverLinker: { toolchain: Toolchain } | { reason: string; cause: unknown } | undefined;
let warned = false;

function firstLine(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).split('\n')[0]!;
}

function probeJitLink(): { toolchain: Toolchain } | { reason: string } {
  if (!jitLink) {
    try {
      jitLink = { toolchain: nvJitLinkToolchain() };
    } catch (error) {
      jitLink = {
        reason: (error as Error).name === 'LibraryNotFoundError' ? `not found (${firstLine(error)})` : firstLine(error),
      };
    }
  }
  return jitLink;
}

function probeDriver(): { toolchain: Toolchain } | { reason: string; cause: unknown } {
  if (!driverLinker) {
    try {
      cuda.driver.cuInit(0);
      const version = cuda.driver.cuDriverGetVersion();
      const major = Math.floor(version / 1000);
      const minor = Math.floor((version % 1000) / 10);
      driverLinker = {
        toolchain: {
          name: 'driver linker',
          version: `${major}.${minor}`,
          details: '',
          path: undefined,
          cudaVersion: { major, minor },
        },
      };
    } catch (error) {
      driverLinker = { reason: `cuInit failed: ${firstLine(error)}`, cause: error };
    }
  }
  return driverLinker;
}

/**
 * The linker for a link: `preferred` when given (and usable), else nvJitLink
 * where it is present, else the driver's cuLink* (with a
 * `CudaLinkerWarning`, once per process). What each backend can do is probed
 * once per process.
 *
 * @throws {LinkerUnavailableError} when the preferred backend, or both, cannot be used, with the reasons
 */
export function chooseLinker(preferred?: LinkerBackend): LinkerChoice {
  const j = preferred === 'driver' ? undefined : probeJitLink();
  if (j && 'toolchain' in j) return { backend: 'nvJitLink', toolchain: j.toolchain, fallbackReason: undefined };
  if (preferred === 'nvJitLink') throw new LinkerUnavailableError({ nvJitLink: (j as { reason: string }).reason });
  const d = probeDriver();
  if ('reason' in d) {
    const reasons: Record<string, string> = j
      ? { nvJitLink: (j as { reason: string }).reason, driver: d.reason }
      : { driver: d.reason };
    throw new LinkerUnavailableError(reasons, { cause: d.cause });
  }
  const fallbackReason = j ? (j as { reason: string }).reason : undefined;
  if (fallbackReason && !warned) {
    warned = true;
    process.emitWarning(
      `nvJitLink is not usable (${fallbackReason}); linking with the driver's cuLink* API, which cannot link LTO-IR or emit PTX. Install nvJitLink (pip install nvidia-nvjitlink) for those.`,
      { type: 'CudaLinkerWarning', code: 'CUDA_JS_LINKER_FALLBACK' },
    );
  }
  return { backend: 'driver', toolchain: d.toolchain, fallbackReason };
}
