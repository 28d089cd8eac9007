import { foundLocation, type LoadedLibrary } from './loaded-libraries.js';
import { native } from './native.js';

function ownVersion(name: string): string | undefined {
  // Each library's own report, where it has one; failures leave pathfinder's reading.
  try {
    switch (name) {
      case 'cuda': {
        const v = (native.driver['cuDriverGetVersion'] as () => number)();
        return `${Math.floor(v / 1000)}.${(v % 1000) / 10}`;
      }
      case 'nvrtc': {
        const v = (native.nvrtc['nvrtcVersion'] as () => { major: number; minor: number })();
        return `${v.major}.${v.minor}`;
      }
      case 'nvJitLink': {
        const v = (native.nvjitlink['nvJitLinkVersion'] as () => { major: number; minor: number })();
        return `${v.major}.${v.minor}`;
      }
      case 'nccl': {
        // NCCL's own release (2.27.3), not a CUDA one: major * 10000 + minor * 100 + patch
        const v = (native.nccl['ncclGetVersion'] as () => number)();
        return `${Math.floor(v / 10000)}.${Math.floor(v / 100) % 100}.${v % 100}`;
      }
    }
  } catch {
    // nvJitLink before 12.3 has no nvJitLinkVersion
  }
  return undefined;
}

// libNVVM reports its own version (2.0), not the CUDA release it came with: pathfinder's reading says more.

/** The CUDA libraries that the bindings opened so far: from where, how they were found, and their versions. */
export function loadedLibraries(): LoadedLibrary[] {
  return native.loadedLibraries().map(({ name, path }) => {
    const location = foundLocation(name);
    return { name, path, foundVia: location?.foundVia ?? 'override', version: ownVersion(name) ?? location?.version };
  });
}

/** Whether `CUDA_JS_PER_THREAD_DEFAULT_STREAM=1` selected the per-thread default stream variants of the driver functions. */
export function perThreadDefaultStream(): boolean {
  return native.perThreadDefaultStream();
}
