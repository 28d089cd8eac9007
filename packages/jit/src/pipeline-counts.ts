// How often this process ran the stages of the pipeline that a kernel
// served ahead of time (or from the disk cache) skips: the counters are
// bumped by parseKernel, typeKernel and lowerKernel themselves, so a test
// (or a user checking a deployment) sees honestly whether a launch typed or
// lowered anything.

const counts = { parsed: 0, typed: 0, lowered: 0 };

/** The stages of the pipeline, as counted by {@link pipelineCounts}. */
export interface PipelineCounts {
  /** Kernels and device functions parsed from their text. */
  readonly parsed: number;
  /** Specializations typed (a signature's typed IR made). */
  readonly typed: number;
  /** Specializations lowered to NVVM IR. */
  readonly lowered: number;
}

/**
 * How many times this process has parsed, typed and lowered kernels (all
 * kernels together): a launch served by a kernel artifact (`cuda-js
 * build-kernels`) or by the disk cache types and lowers nothing.
 */
export function pipelineCounts(): PipelineCounts {
  return { ...counts };
}

/** @internal Counts one run of `stage`. */
export function countStage(stage: keyof PipelineCounts): void {
  counts[stage]++;
}
