import { driver, type CUstream } from '@cuda-js/bindings';
import { brandHandle } from '@cuda-js/bindings/runtime';

/**
 * Makes work submitted to `consumer` from now on wait for the work already
 * submitted to `producer` (both CUstream handles): an event recorded on the
 * producer and waited on by the consumer, then destroyed at once (the wait is
 * enqueued, the driver keeps what it needs). Nothing when they are the same.
 */
export function orderStreams(producerHandle: bigint, consumerHandle: bigint): void {
  if (producerHandle === consumerHandle) return;
  const producer = brandHandle<CUstream>(producerHandle);
  const consumer = brandHandle<CUstream>(consumerHandle);
  // the event must be of the producer's context (cuEventRecord refuses a stream of another device);
  // default streams (0, 1, 2) are the current context's
  const pushed = producer > 2n && enterContextOf(producer);
  try {
    const event = driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING);
    try {
      driver.cuEventRecord(event, producer);
      driver.cuStreamWaitEvent(consumer, event, 0);
    } finally {
      driver.cuEventDestroy(event);
    }
  } finally {
    if (pushed) driver.cuCtxPopCurrent();
  }
}

/** Pushes the context of `stream` where it is not the current one; whether it did. */
function enterContextOf(stream: CUstream): boolean {
  const context = driver.cuStreamGetCtx(stream);
  if (context === driver.cuCtxGetCurrent()) return false;
  driver.cuCtxPushCurrent(context);
  return true;
}
