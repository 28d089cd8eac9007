import { describe, inject } from 'vitest';

/** Whether this machine can run the `gpu` test project, and why (printed when it cannot). */
export interface GpuAvailability {
  readonly available: boolean;
  readonly reason: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    gpu: GpuAvailability;
  }
}

/** The GPU probe's answer for this run (set by the `gpu` project's global setup, tooling/vitest-setup). */
export function gpuAvailability(): GpuAvailability {
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
