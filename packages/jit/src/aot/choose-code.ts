// Which code of a specialization a device runs: a cubin that its
// architecture can run (the same, or an older minor of the same major;
// an arch-specific `sm_90a` cubin only on sm_90 itself), else the newest PTX
// that is not newer than the device (the driver compiles it when loading).
import { computeCapability, parseArchitecture, type Architecture } from '@cuda-js/program';
import type { ArtifactCode } from './kernel-artifact.js';

function cubinRuns(code: Architecture, device: Architecture): boolean {
  if (code.major !== device.major) return false;
  return code.suffix === 'a' ? code.minor === device.minor : code.minor <= device.minor;
}

function ptxRuns(code: Architecture, device: Architecture): boolean {
  if (code.suffix === 'a') return code.major === device.major && code.minor === device.minor;
  return computeCapability(code) <= computeCapability(device);
}

/** The code that `deviceArch` (`sm_90`) runs best from `code`, or undefined where none runs there. */
export function chooseCode(code: readonly ArtifactCode[], deviceArch: string): ArtifactCode | undefined {
  const device = parseArchitecture(deviceArch);
  let best: { code: ArtifactCode; score: number } | undefined;
  for (const c of code) {
    const arch = parseArchitecture(c.arch);
    const runs = c.kind === 'cubin' ? cubinRuns(arch, device) : ptxRuns(arch, device);
    if (!runs) continue;
    // a cubin beats any PTX; among each, the closest to the device wins
    const score = (c.kind === 'cubin' ? 10_000 : 0) + computeCapability(arch) * 2 + (arch.suffix === 'a' ? 1 : 0);
    if (!best || score > best.score) best = { code: c, score };
  }
  return best?.code;
}
