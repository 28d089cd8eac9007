import type { KernelArgument } from './kernel-parameters.js';
import { LaunchPlanCore } from './launch-plan.js';

const plans = new WeakMap<object, LaunchPlanCore>();
const planByHandle = new Map<bigint, LaunchPlanCore>();

/** The launch plan of `kernel`, made on its first launch (by `launch`, a graph builder or a graph definition) and reused. */
export function planFor(kernel: KernelArgument): LaunchPlanCore {
  if (typeof kernel === 'bigint') {
    let plan = planByHandle.get(kernel);
    if (!plan) planByHandle.set(kernel, (plan = new LaunchPlanCore(kernel)));
    return plan;
  }
  let plan = plans.get(kernel);
  if (!plan) plans.set(kernel, (plan = new LaunchPlanCore(kernel)));
  return plan;
}
