import type { KernelArgument } from './kernel-parameters.js';
import type { LaunchConfig, LaunchConfigOptions } from './launch-config.js';
import type { LaunchPlanCore } from './launch-plan.js';

/**
 * @internal The key of the method by which something that records launches
 * instead of running them (a GraphBuilder that is building) takes
 * `launch(it, config, kernel, ...args)`. The launch floor knows it by this
 * key, so that it needs nothing of the graph floor above.
 */
export const RECORD_LAUNCH: unique symbol = Symbol('cuda-js: record a launch');

/** Something that records launches: a GraphBuilder. */
export interface LaunchRecorder {
  [RECORD_LAUNCH](
    plan: LaunchPlanCore,
    config: LaunchConfig | LaunchConfigOptions,
    kernel: KernelArgument,
    args: readonly unknown[],
  ): void;
}

/** Whether `stream` records launches (a GraphBuilder) rather than being a stream to run them on. */
export function isLaunchRecorder(stream: unknown): stream is LaunchRecorder {
  return (
    typeof stream === 'object' &&
    stream !== null &&
    typeof (stream as Partial<LaunchRecorder>)[RECORD_LAUNCH] === 'function'
  );
}
