import { Stream, streamHandle, type StreamArgument } from '@cuda-js/streams';
import type { KernelArgument } from './kernel-parameters.js';
import { LaunchConfig, type LaunchConfigOptions } from './launch-config.js';
import { LaunchPlan } from './launch-plan.js';

const plans = new WeakMap<object, LaunchPlan>();
const planByHandle = new Map<bigint, LaunchPlan>();

function planFor(kernel: KernelArgument): LaunchPlan {
  if (typeof kernel === 'bigint') {
    let plan = planByHandle.get(kernel);
    if (!plan) planByHandle.set(kernel, (plan = new LaunchPlan(kernel)));
    return plan;
  }
  let plan = plans.get(kernel);
  if (!plan) plans.set(kernel, (plan = new LaunchPlan(kernel)));
  return plan;
}

/**
 * Launches `kernel` on `stream` with `config`. Arguments may be Buffers,
 * StridedMemoryViews, any array that implements the DLPack or CUDA array
 * protocols, bigint addresses, typed scalars (`i32(n)`, `f32(x)`, ...), or
 * plain integers for 4-byte (i32) parameters. Each argument is checked
 * against the kernel's parameter size. The layout is planned once per
 * kernel; a plain config object is matched to a cached LaunchConfig, and
 * each config is checked once per CUDA context; each launch packs into a
 * reusable buffer and makes one native launch call.
 */
export function launch(stream: StreamArgument, config: LaunchConfig | LaunchConfigOptions, kernel: KernelArgument, ...args: unknown[]): void {
  const plan = planFor(kernel);
  const handle = stream instanceof Stream ? stream.handle : streamHandle(stream, 'launch: stream');
  plan.run(config instanceof LaunchConfig ? config : LaunchConfig.from(config), handle, args);
}
