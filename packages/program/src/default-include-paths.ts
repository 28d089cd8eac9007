import { join } from 'node:path';
import { findHeaderDirectory, readRegularFile } from '@cuda-js/pathfinder';

/** A CUDA header folder and the CUDA major its headers belong to, where known. */
export interface IncludeDirectory {
  readonly path: string;
  readonly cudaMajor: number | undefined;
}

let cached: IncludeDirectory[] | undefined;

function headerMajor(dir: string): number | undefined {
  try {
    const m = /#define\s+CUDART_VERSION\s+(\d+)/.exec(
      readRegularFile(
        join(dir, 'cuda_runtime_api.h'),
        { firstBytes: 1 << 20 },
        (problem) => new Error(problem),
      ).toString('utf8'),
    );
    return m ? Math.floor(Number(m[1]) / 1000) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The CUDA header folders that pathfinder finds: the runtime headers
 * (cuda_runtime.h, cuda_fp16.h, ...) and CCCL (libcu++, CUB), those that
 * exist. Searched once per process.
 */
export function cudaIncludeDirectories(): readonly IncludeDirectory[] {
  if (cached) return cached;
  const found: IncludeDirectory[] = [];
  let runtimeMajor: number | undefined;
  for (const name of ['cudart', 'cccl']) {
    try {
      const dir = findHeaderDirectory(name).path;
      if (name === 'cudart') runtimeMajor = headerMajor(dir);
      if (!found.some((d) => d.path === dir)) found.push({ path: dir, cudaMajor: runtimeMajor });
    } catch {
      // not installed: programs that include nothing from it still compile
    }
  }
  cached = found;
  return found;
}

/**
 * The default include folders for an NVRTC of CUDA `nvrtcMajor`: headers of
 * another CUDA major are left out, since NVRTC fails in confusing ways on
 * them.
 */
export function defaultIncludeDirectories(nvrtcMajor: number): string[] {
  return cudaIncludeDirectories()
    .filter((d) => d.cudaMajor === undefined || d.cudaMajor === nvrtcMajor)
    .map((d) => d.path);
}
