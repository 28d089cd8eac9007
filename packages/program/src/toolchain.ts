import type { CudaVersion, Producer } from './compatibility.js';
import { cuda, type LoadedLibrary } from './cuda-bindings.js';

/** A compiler or linker library as used: its name, version and file. */
export interface Toolchain extends Producer {
  /** `NVRTC`, `libNVVM` or `nvJitLink`. */
  readonly name: string;
  /** The library's own version (`11.8`; for libNVVM its API version `2.0`). */
  readonly version: string;
  /** Extra version facts that change its output (libNVVM's IR version). */
  readonly details: string;
  /** The file that was loaded, where the bindings report it. */
  readonly path: string | undefined;
}

function loaded(name: string): LoadedLibrary | undefined {
  return cuda.loadedLibraries().find((l) => l.name === name);
}

function parseCudaVersion(text: string | undefined): CudaVersion | undefined {
  const m = text ? /^(\d+)(?:\.(\d+))?/.exec(text) : null;
  return m ? { major: Number(m[1]), minor: Number(m[2] ?? 0) } : undefined;
}

let nvrtcCached: Toolchain | undefined;
let nvvmCached: Toolchain | undefined;
let nvJitLinkCached: Toolchain | undefined;

/** NVRTC as loaded (loads it on first use). */
export function nvrtcToolchain(): Toolchain {
  if (!nvrtcCached) {
    const { major, minor } = cuda.nvrtc.nvrtcVersion();
    nvrtcCached = {
      name: 'NVRTC',
      version: `${major}.${minor}`,
      details: '',
      path: loaded('nvrtc')?.path,
      cudaVersion: { major, minor },
    };
  }
  return nvrtcCached;
}

let nvrtcArchitectures: readonly number[] | undefined;

/** The compute capabilities NVRTC compiles for (90 for sm_90), asked once. */
export function nvrtcSupportedArchitectures(): readonly number[] {
  nvrtcArchitectures ??= Object.freeze([...cuda.nvrtc.nvrtcGetSupportedArchs()]);
  return nvrtcArchitectures;
}

/** The NVVM IR version that a libNVVM reads: what `!nvvmir.version` names in a module. */
export interface NvvmIRVersion {
  readonly major: number;
  readonly minor: number;
  /** The debug-metadata version, for modules that carry debug information. */
  readonly debugMajor: number;
  readonly debugMinor: number;
}

let nvvmIRCached: NvvmIRVersion | undefined;

/**
 * The NVVM IR version of the libNVVM that compiles here (2.0 for CUDA 12
 * and 13), asked once. Code generators write it into `!nvvmir.version`.
 *
 * @throws LibraryNotFoundError where there is no libNVVM
 */
export function nvvmIRVersion(): NvvmIRVersion {
  if (!nvvmIRCached) {
    const ir = cuda.nvvm.nvvmIRVersion();
    nvvmIRCached = Object.freeze({
      major: ir.majorIR,
      minor: ir.minorIR,
      debugMajor: ir.majorDbg,
      debugMinor: ir.minorDbg,
    });
  }
  return nvvmIRCached;
}

/** libNVVM as loaded (loads it on first use). Its CUDA release comes from where pathfinder found it. */
export function nvvmToolchain(): Toolchain {
  if (!nvvmCached) {
    const { major, minor } = cuda.nvvm.nvvmVersion();
    const ir = nvvmIRVersion();
    const lib = loaded('nvvm');
    nvvmCached = {
      name: 'libNVVM',
      version: `${major}.${minor}`,
      details: `IR ${ir.major}.${ir.minor}, debug ${ir.debugMajor}.${ir.debugMinor}`,
      path: lib?.path,
      cudaVersion: parseCudaVersion(lib?.version),
    };
  }
  return nvvmCached;
}

/** nvJitLink as loaded (loads it on first use; throws LibraryNotFoundError where it is absent). */
export function nvJitLinkToolchain(): Toolchain {
  if (!nvJitLinkCached) {
    const { major, minor } = cuda.nvjitlink.nvJitLinkVersion();
    nvJitLinkCached = {
      name: 'nvJitLink',
      version: `${major}.${minor}`,
      details: '',
      path: loaded('nvJitLink')?.path,
      cudaVersion: { major, minor },
    };
  }
  return nvJitLinkCached;
}

/** The driver's CUDA release, or undefined where there is no usable driver library. */
export function driverCudaVersion(): number | undefined {
  try {
    return cuda.driver.cuDriverGetVersion();
  } catch {
    return undefined;
  }
}
