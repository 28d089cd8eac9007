import type { FoundVia, LibraryLocation } from '@cuda-js/pathfinder';

/** A CUDA library that the bindings opened. */
export interface LoadedLibrary {
  /** Pathfinder's name: `cuda`, `nvrtc`, `nvJitLink`, `nvvm`, `nvml` or `nccl`. */
  readonly name: string;
  /** The file that was opened. */
  readonly path: string;
  /** How pathfinder found it. */
  readonly foundVia: FoundVia;
  /** The CUDA release of the library: its own report where it has one (driver, NVRTC, nvJitLink; NCCL gives its own release), else pathfinder's reading of the path. */
  readonly version: string | undefined;
}

const found = new Map<string, LibraryLocation>();

/** Notes where pathfinder found a library that the addon is about to open. */
export function recordFound(location: LibraryLocation): void {
  found.set(location.name, location);
}

/** Where each library came from, as pathfinder reported it. */
export function foundLocation(name: string): LibraryLocation | undefined {
  return found.get(name);
}
