import type { TestProject } from 'vitest/node';
import { probeGpu, type GpuAvailability } from './gpu-probe.js';

declare module 'vitest' {
  export interface ProvidedContext {
    gpu: GpuAvailability;
  }
}

/** Probes the GPU once per run and hands the answer to every `gpu` test file. */
export default async function setup(project: TestProject): Promise<void> {
  const gpu = await probeGpu();
  project.provide('gpu', gpu);
  console.log(gpu.available ? `[gpu] running GPU tests: ${gpu.reason}` : `[gpu] SKIPPING every GPU test: ${gpu.reason}`);
}
