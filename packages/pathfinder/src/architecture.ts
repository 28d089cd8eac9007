import { join } from 'node:path';
import { resolvedPath } from './toolkit-version.js';

/**
 * Where the files of a CPU architecture lie on Linux: the target folder of a
 * CUDA toolkit (`<root>/targets/<name>`, which `lib64` and `include` point
 * into) and the distribution's multiarch folder (`/usr/lib/<triplet>`,
 * Debian's and Ubuntu's; other distributions use `/usr/lib64`).
 */
export interface ArchitectureLayout {
  /** Toolkit target folders, preferred first. */
  readonly toolkitTargets: readonly string[];
  /** The GNU multiarch triplet, where the architecture has one. */
  readonly multiarchTriplet: string | undefined;
  /** Folders that hold the driver library on some systems of this architecture, outside the loader's defaults. */
  readonly driverDirectories: readonly string[];
}

/** Keyed by `process.arch`. NVIDIA's pip wheels use the same site-packages folders on every architecture. */
export const ARCHITECTURE_LAYOUTS: Readonly<Record<string, ArchitectureLayout>> = {
  x64: { toolkitTargets: ['x86_64-linux'], multiarchTriplet: 'x86_64-linux-gnu', driverDirectories: [] },
  // sbsa-linux: Arm servers (Grace Hopper, Grace Blackwell); aarch64-linux: Jetson, whose L4T driver lives in tegra/.
  arm64: {
    toolkitTargets: ['sbsa-linux', 'aarch64-linux'],
    multiarchTriplet: 'aarch64-linux-gnu',
    driverDirectories: ['/usr/lib/aarch64-linux-gnu/tegra'],
  },
  ppc64: { toolkitTargets: ['ppc64le-linux'], multiarchTriplet: 'powerpc64le-linux-gnu', driverDirectories: [] },
};

/** In the catalog's folder lists, stands for each toolkit target folder of the architecture searched. */
export const TOOLKIT_TARGET = '<target>';

const UNKNOWN: ArchitectureLayout = { toolkitTargets: [], multiarchTriplet: undefined, driverDirectories: [] };

/** The layout of `arch` (a `process.arch` value); an architecture CUDA does not ship for has no target or multiarch folder. */
export function architectureLayout(arch: string): ArchitectureLayout {
  return Object.hasOwn(ARCHITECTURE_LAYOUTS, arch) ? ARCHITECTURE_LAYOUTS[arch]! : UNKNOWN;
}

/** `folders` with {@link TOOLKIT_TARGET} replaced by each target folder of `arch`, in order (dropped where it has none). */
export function foldersForArchitecture(folders: readonly string[], arch: string): string[] {
  const targets = architectureLayout(arch).toolkitTargets;
  return folders.flatMap((folder) =>
    folder.includes(TOOLKIT_TARGET) ? targets.map((target) => folder.replace(TOOLKIT_TARGET, target)) : [folder],
  );
}

/**
 * The folders that the system loader searches after its cache (glibc's
 * defaults: the multiarch folders, then `/lib64` and `/usr/lib64`), and the
 * architecture's driver folders; one entry per folder where `/lib` is a link to `/usr/lib`.
 */
export function loaderDefaultFolders(arch: string): string[] {
  const layout = architectureLayout(arch);
  const triplet = layout.multiarchTriplet;
  const folders = [
    ...(triplet ? [join('/lib', triplet), join('/usr/lib', triplet)] : []),
    '/lib64',
    '/usr/lib64',
    ...layout.driverDirectories,
  ];
  const seen = new Set<string>();
  return folders.filter((folder) => {
    const real = resolvedPath(folder);
    return seen.has(real) ? false : (seen.add(real), true);
  });
}
