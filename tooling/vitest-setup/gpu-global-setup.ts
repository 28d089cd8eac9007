import type { TestProject } from 'vitest/node';
// the type import brings test-support's ProvidedContext declaration of 'gpu'
import type {} from '@cuda-js/test-support';
import { probeGpu } from './gpu-probe.js';

/** Probes the GPU once per run and hands the answer to every `gpu` test file. */
export default async function setup(project: TestProject): Promise<void> {
  const gpu = await probeGpu();
  project.provide('gpu', gpu);
  console.log(
    gpu.available ? `[gpu] running GPU tests: ${gpu.reason}` : `[gpu] SKIPPING every GPU test: ${gpu.reason}`,
  );
}
