import { driver } from '@cuda-js/bindings';
import { DLDeviceType, setDriverHooks } from '@cuda-js/memory-view';
import { orderStreams } from '@cuda-js/streams';

const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;

let installed = false;

/**
 * Gives memory-view what it cannot do without a driver: order streams (the
 * CUDA array interface rule) and find a pointer's device. Installed once, on
 * the first use of a device, so that importing core has no side effect.
 */
export function installDriverHooks(): void {
  if (installed) return;
  installed = true;
  setDriverHooks({
    waitStream: orderStreams,
    pointerDevice: (ptr) => ({ type: DLDeviceType.CUDA, id: Number(driver.cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr as never)) }),
  });
}
