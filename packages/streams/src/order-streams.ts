import { driver } from '@cuda-js/bindings';

const CU_EVENT_DISABLE_TIMING = 0x2;

/**
 * Makes work submitted to `consumer` from now on wait for the work already
 * submitted to `producer` (both CUstream handles): an event recorded on the
 * producer and waited on by the consumer, then destroyed at once (the wait is
 * enqueued, the driver keeps what it needs). Nothing when they are the same.
 */
export function orderStreams(producer: bigint, consumer: bigint): void {
  if (producer === consumer) return;
  const event = driver.cuEventCreate(CU_EVENT_DISABLE_TIMING);
  try {
    driver.cuEventRecord(event, producer as never);
    driver.cuStreamWaitEvent(consumer as never, event, 0);
  } finally {
    driver.cuEventDestroy(event);
  }
}
