import { cuda } from './cuda-bindings.js';
import { LinkerUnavailableError } from './errors.js';
import type { LinkerBackend } from './linker-options.js';
import { nvJitLinkToolchain, type Toolchain } from './toolchain.js';

/** The linker chosen for this process, and why the others were not. */
export interface LinkerChoice {
  readonly backend: LinkerBackend;
  /** nvJitLink as loaded, or the driver (its CUDA release). */
  readonly toolchain: Toolchain;
  /** Why nvJitLink was not taken, when the driver was. */
  readonly fallbackReason: string | undefined;
}

let cached: LinkerChoice | undefined;
let warned = false;

function firstLine(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).split('\n')[0]!;
}

/**
 * nvJitLink where it is present, else the driver's cuLink* (with a
 * `CudaLinkerWarning`, once). Decided once per process.
 *
 * @throws {LinkerUnavailableError} when neither can be used, with both reasons
 */
export function chooseLinker(): LinkerChoice {
  if (cached) return cached;
  let jitLinkReason: string;
  try {
    cached = { backend: 'nvJitLink', toolchain: nvJitLinkToolchain(), fallbackReason: undefined };
    return cached;
  } catch (error) {
    jitLinkReason = (error as Error).name === 'LibraryNotFoundError' ? `not found (${firstLine(error)})` : firstLine(error);
  }
  let version: number;
  try {
    cuda.driver.cuInit(0);
    version = cuda.driver.cuDriverGetVersion();
  } catch (error) {
    throw new LinkerUnavailableError({ nvJitLink: jitLinkReason, driver: `cuInit failed: ${firstLine(error)}` }, { cause: error });
  }
  const major = Math.floor(version / 1000);
  const minor = Math.floor((version % 1000) / 10);
  cached = {
    backend: 'driver',
    toolchain: { name: 'driver linker', version: `${major}.${minor}`, details: '', path: undefined, cudaVersion: { major, minor } },
    fallbackReason: jitLinkReason,
  };
  if (!warned) {
    warned = true;
    process.emitWarning(
      `nvJitLink is not usable (${jitLinkReason}); linking with the driver's cuLink* API, which cannot link LTO-IR or emit PTX. Install nvJitLink (pip install nvidia-nvjitlink) for those.`,
      { type: 'CudaLinkerWarning', code: 'CUDA_JS_LINKER_FALLBACK' },
    );
  }
  return cached;
}
