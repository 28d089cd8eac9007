import { driver } from '@cuda-js/bindings';
import { DLDeviceType, setDriverHooks } from '@cuda-js/memory-view';

const CU_EVENT_DISABLE_TIMING = 0x2;
const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;

let installed = false;

/** Makes `consumer` wait for the work already on `producer` (an event, recorded and waited on). */
export function orderAfter(producer: bigint, consumer: bigint): void {
  if (producer === consumer) return;
  const event = driver.cuEventCreate(CU_EVENT_DISABLE_TIMING);
  try {
    driver.cuEventRecord(event, producer as never);
    driver.cuStreamWaitEvent(consumer as never, event, 0);
  } finally {
    driver.cuEventDestroy(event); // the wait is enqueued; the driver keeps what it needs
  }
}

/**
 * Gives memory-view what it cannot do without a driver: order streams (the
 * CUDA array interface rule) and find a pointer's device. Installed once, on
 * the first use of a device, so that importing core has no side effect.
 */
export function installDriverHooks(): void {
  if (installed) return;
  installed = true;
  setDriverHooks({
    waitStream: orderAfter,
    pointerDevice: (ptr) => ({ type: DLDeviceType.CUDA, id: Number(driver.cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr as never)) }),
  });
}
