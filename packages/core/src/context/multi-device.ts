import { CudaError, driver, type CUcontext, type CUstream } from '@cuda-js/bindings';
import { DeviceMismatchError } from '../errors.js';
import { deviceLabel, ensureCurrentDevice } from './device-context.js';
import { deviceCount } from './driver-init.js';
import { memoryAccessible } from './peer-access.js';

let several: boolean | undefined;
let streamGetDeviceMissing = false;

/** Whether this process sees more than one device: asked once (the driver fixes the count at cuInit), so one-device hosts skip every check below. */
export function hasSeveralDevices(): boolean {
  several ??= deviceCount() > 1;
  return several;
}

const { CU_STREAM_LEGACY, CU_STREAM_PER_THREAD } = driver.constants;

/** The handles 0, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD: default streams, which belong to whichever context is current. */
export function isDefaultStream(stream: bigint): boolean {
  return stream === 0n || stream === CU_STREAM_LEGACY || stream === CU_STREAM_PER_THREAD;
}

/** The device ordinal of a context, asked with it current (drivers before CUDA 12.8 have no cuStreamGetDevice). */
function deviceOfContext(context: CUcontext): number {
  driver.cuCtxPushCurrent(context);
  try {
    return driver.cuCtxGetDevice();
  } finally {
    driver.cuCtxPopCurrent();
  }
}

/** The ordinal of the device a stream belongs to; undefined for a default stream, which runs on the current context's device. */
export function streamDeviceOrdinal(stream: bigint): number | undefined {
  if (isDefaultStream(stream)) return undefined;
  if (!streamGetDeviceMissing) {
    try {
      return driver.cuStreamGetDevice(stream as CUstream);
    } catch (error) {
      if (!(error instanceof CudaError && error.codeName === 'CUDA_ERROR_NOT_FOUND')) throw error;
      streamGetDeviceMissing = true;
    }
  }
  return deviceOfContext(driver.cuStreamGetCtx(stream as CUstream));
}

/**
 * Where several devices are present, makes the right device current for
 * stream-ordered work on the memory of device `owner` (cuda.core's "each
 * object makes its device current for its own calls"): the stream's device,
 * which must be `owner` or one that `hasAccess` (`DeviceMemoryResource.peerAccessibleBy`),
 * or `owner` for a default stream.
 *
 * @param hasAccess whether another device may address the memory (default: the memory at `ptr`, as {@link memoryAccessible} says)
 * @throws {DeviceMismatchError} for a stream of a device without access to the memory
 */
export function enterDeviceFor(
  what: string,
  stream: bigint,
  owner: number,
  ptr: bigint,
  hasAccess?: (device: number) => boolean,
): void {
  const streamDevice = streamDeviceOrdinal(stream);
  if (streamDevice === undefined) {
    ensureCurrentDevice(owner);
    return;
  }
  if (streamDevice !== owner && !(hasAccess ? hasAccess(streamDevice) : memoryAccessible(streamDevice, ptr, owner))) {
    const [s, o] = [deviceLabel(streamDevice), deviceLabel(owner)];
    throw new DeviceMismatchError(
      `${what}: the stream belongs to ${s}, the memory to ${o}, and ${s} has no access to it; ` +
        `use a stream of ${o}, or allocate from a DeviceMemoryResource of ${o} with peerAccessibleBy including ${streamDevice}`,
    );
  }
  ensureCurrentDevice(streamDevice);
}
