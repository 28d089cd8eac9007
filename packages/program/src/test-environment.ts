// What the real-library tests can use on this machine, and why not where they
// cannot: each test group skips with the reason in its name. Not part of the
// package (excluded from the build).
import { execFileSync } from 'node:child_process';
import { findLibdevice, findLibrary } from '@cuda-js/pathfinder';
import { ptxasPath } from '@cuda-js/test-support/toolchain';
import { minimumCudaForPtxIsa, ptxIsaVersion } from './compatibility.js';
import { cuda } from './cuda-bindings.js';

function firstLine(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).split('\n')[0]!;
}

function missing(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return firstLine(error);
  }
}

/** Why NVRTC cannot be used here, or undefined when it can. */
export const nvrtcMissing = missing(() => cuda.nvrtc.nvrtcVersion());
/** Why libNVVM and libdevice cannot be used here, or undefined. */
export const nvvmMissing = missing(() => {
  findLibrary('nvvm');
  findLibdevice();
  cuda.nvvm.nvvmVersion();
});
/** Why nvJitLink cannot be used here, or undefined. */
export const nvJitLinkMissing = missing(() => cuda.nvjitlink.nvJitLinkVersion());

/** How the driver answers cuInit here: undefined when a device is usable, else its error's first line. */
export const deviceMissing = missing(() => {
  cuda.driver.cuInit(0);
  if (cuda.driver.cuDeviceGetCount() === 0) throw new Error('the driver reports no CUDA device');
});

/** The NVRTC major, or 0 without NVRTC. */
export const nvrtcMajor = nvrtcMissing ? 0 : cuda.nvrtc.nvrtcVersion().major;

/** The CUDA release of that ptxas (`release 13.0` in its --version), where there is one. */
export const ptxasCudaVersion: { major: number; minor: number } | undefined = (() => {
  if (!ptxasPath) return undefined;
  try {
    const m = /release (\d+)\.(\d+)/.exec(execFileSync(ptxasPath, ['--version'], { encoding: 'utf8' }));
    return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
  } catch {
    return undefined;
  }
})();

/**
 * Why ptxas cannot judge `ptx` here (none, or older than the PTX ISA), or
 * undefined when it can.
 */
export function ptxasCannotRead(ptx: Uint8Array): string | undefined {
  if (!ptxasPath || !ptxasCudaVersion) return 'no ptxas (CUDA toolkit) on this machine';
  const isa = ptxIsaVersion(ptx);
  if (!isa) return undefined;
  const needed = minimumCudaForPtxIsa(isa);
  const have = ptxasCudaVersion;
  if (needed.major > have.major || (needed.major === have.major && needed.minor > have.minor)) {
    return `PTX ISA ${isa.major}.${isa.minor} needs ptxas of CUDA ${needed.major}.${needed.minor}; this one is ${have.major}.${have.minor}`;
  }
  return undefined;
}

export { describeWhen, itWhen, ptxasPath, ptxasRejects } from '@cuda-js/test-support/toolchain';
