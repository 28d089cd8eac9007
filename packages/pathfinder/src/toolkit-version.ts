import { readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { filePrefix } from './file-prefix.js';

/** version.json is a few kilobytes; a longer one is read this far (and fails to parse). */
const MAX_VERSION_JSON_BYTES = 1 << 20;

/** What is known of the CUDA release a file belongs to. */
export interface CudaVersionInfo {
  readonly major: number;
  /** `13.0`, `13.0.88` or just `13`, as precisely as the evidence allows. */
  readonly version: string;
}

/**
 * The CUDA release of a toolkit root: its version.json (a runfile or deb
 * install), the dist-info folders of a pip-assembled toolkit, or the
 * CUDA_VERSION that its cuda.h defines.
 */
export function toolkitRootVersion(root: string): CudaVersionInfo | undefined {
  try {
    const json = JSON.parse(filePrefix(join(root, 'version.json'), MAX_VERSION_JSON_BYTES) ?? '') as {
      cuda?: { version?: string };
    };
    const version = json.cuda?.version;
    if (version) return { major: Number(version.split('.')[0]), version };
  } catch {
    // no version.json: look further
  }
  try {
    for (const entry of readdirSync(join(root, 'dist-info'))) {
      const match = /^nvidia_cuda_(?:runtime|nvcc|nvrtc)(?:_cu\d+)?-(\d+)\.(\d+)\.(\d+)\.dist-info$/.exec(entry);
      if (match) return { major: Number(match[1]), version: `${match[1]}.${match[2]}.${match[3]}` };
    }
  } catch {
    // not a pip-assembled toolkit
  }
  // Every target folder's cuda.h names the same release.
  let targets: string[] = [];
  try {
    targets = readdirSync(join(root, 'targets')).map((target) => `targets/${target}/include/cuda.h`);
  } catch {
    // no targets/ folder
  }
  for (const header of ['include/cuda.h', ...targets]) {
    // the define is near the top; no header here is undefined
    const match = /#define\s+CUDA_VERSION\s+(\d+)/.exec(filePrefix(join(root, header), 65536) ?? '');
    if (match) {
      const n = Number(match[1]);
      const major = Math.floor(n / 1000);
      return { major, version: `${major}.${(n % 1000) / 10}` };
    }
  }
  return undefined;
}

/** The path with symbolic links resolved (`/usr/local/cuda` → `/usr/local/cuda-13.0`), or itself. */
export function resolvedPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The CUDA release suggested by a path: `/usr/local/cuda-13.0/...`, `.../nvidia/cu13/...`. */
export function pathVersion(path: string): CudaVersionInfo | undefined {
  const toolkit = /cuda-(\d+)\.(\d+)(?:\/|$)/.exec(path);
  if (toolkit) return { major: Number(toolkit[1]), version: `${toolkit[1]}.${toolkit[2]}` };
  const wheel = /\/nvidia\/cu(\d+)\//.exec(path);
  if (wheel) return { major: Number(wheel[1]), version: wheel[1]! };
  return undefined;
}
