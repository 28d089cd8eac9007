import { LaunchPlanCore } from '../launch/launch-plan.js';
import { Device } from './device.js';

/**
 * Everything about launching one kernel that is worked out once: its handle,
 * its parameter layout, a reusable parameter buffer with the native packed
 * launch over it, and, per CUDA context, the configs and streams already
 * checked against that context's device.
 *
 * Made from a kernel alone, each JS argument is one kernel parameter, checked
 * by size (see `launch`). Made with an `ArgumentLayout`, each JS
 * argument fills the parameters its slot says: a typed scalar, or an array's
 * data pointer with its extents and strides (the ABI of `@cuda-js/jit`'s
 * kernels), so that one packer serves the whole stack.
 *
 * Per argument position, what is in the parameter buffer is remembered (the
 * bigint, Buffer, view or CUDA array interface layout it came from), so that
 * an unchanged argument costs a comparison and a changed one is checked in
 * full. The context of the last launch is assumed again and checked by the
 * native launch call itself, which launches only if it is still current;
 * when it is not, the arguments are checked again against the new context.
 */
export class LaunchPlan extends LaunchPlanCore {
  /** The device of the context this plan last launched or prepared in (undefined before). */
  get device(): Device | undefined {
    const ordinal = this.deviceOrdinal;
    return ordinal === undefined ? undefined : Device.get(ordinal);
  }
}
