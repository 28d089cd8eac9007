import { describe, inject } from 'vitest';
import './gpu-global-setup.js';

/** The GPU probe's answer for this run (set by the `gpu` project's global setup). */
export function gpuAvailability(): { available: boolean; reason: string } {
  return inject('gpu') ?? { available: false, reason: 'not run under the gpu project' };
}

/**
 * A `describe` for GPU tests: skipped, with the probe's reason in its name,
 * where no device is present.
 */
export function describeGpu(name: string, body: () => void): void {
  const gpu = gpuAvailability();
  if (gpu.available) describe(name, body);
  else describe.skip(`${name} (skipped: ${gpu.reason})`, body);
}
