import { Stream, streamHandle, type StreamArgument } from '@cuda-js/streams';
import type { KernelArgument } from './kernel-parameters.js';
import { planFor } from './kernel-plans.js';
import type { LaunchConfig, LaunchConfigOptions } from './launch-config.js';
import { isLaunchRecorder, RECORD_LAUNCH } from './launch-recorder.js';

/**
 * Launches `kernel` on `stream` with `config`. Arguments may be Buffers,
 * StridedMemoryViews, any array that implements the DLPack or CUDA array
 * protocols, bigint addresses, typed scalars (`i32(n)`, `f32(x)`, ...), or
 * plain integers for 4-byte (i32) parameters. Each argument is checked
 * against the kernel's parameter size. The layout is planned once per
 * kernel; a plain config object is matched to a cached LaunchConfig, and
 * each config is checked once per CUDA context; each launch packs into a
 * reusable buffer and makes one native launch call.
 *
 * Given a GraphBuilder that is building, the launch is recorded into
 * its graph (a kernel node) instead of run, the graph holds the kernel and the
 * arguments, and a GraphCondition argument is passed as its handle.
 */
export function launch(
  stream: StreamArgument,
  config: LaunchConfig | LaunchConfigOptions,
  kernel: KernelArgument,
  ...args: unknown[]
): void {
  const plan = planFor(kernel);
  if (isLaunchRecorder(stream)) return stream[RECORD_LAUNCH](plan, config, kernel, args);
  const handle = stream instanceof Stream ? stream.handle : streamHandle(stream, 'launch: stream');
  plan.run(config, handle, args);
}
