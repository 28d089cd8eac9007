import { CudaError, driver, type CUcontext, type CUstream } from '@cuda-js/bindings';
import type { Buffer } from '../memory/buffer.js';
import type { Device } from './device.js';
import { devices } from './device-registry.js';
import { deviceCount } from './driver-init.js';
import { DeviceMismatchError } from '../errors.js';
import { canAccessMemory } from './peer-access.js';

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

/** The device of a context, asked with it current (drivers before CUDA 12.8 have no cuStreamGetDevice). */
function deviceOfContext(context: CUcontext): Device {
  driver.cuCtxPushCurrent(context);
  try {
    return devices().get(driver.cuCtxGetDevice());
  } finally {
    driver.cuCtxPopCurrent();
  }
}

/** The device a stream belongs to; undefined for a default stream, which runs on the current context's device. */
export function deviceOfStream(stream: bigint): Device | undefined {
  if (isDefaultStream(stream)) return undefined;
  if (!streamGetDeviceMissing) {
    try {
      return devices().get(driver.cuStreamGetDevice(stream as CUstream));
    } catch (error) {
      if (!(error instanceof CudaError && error.codeName === 'CUDA_ERROR_NOT_FOUND')) throw error;
      streamGetDeviceMissing = true;
    }
  }
  return deviceOfContext(driver.cuStreamGetCtx(stream as CUstream));
}

/**
 * Where several devices are present, makes the right device current for
 * stream-ordered work on `owner`'s memory (cuda.core's "each object makes its
 * device current for its own calls"): the stream's device, which must be
 * `owner` or one that `hasAccess` (`DeviceMemoryResource.peerAccessibleBy`),
 * or `owner` for a default stream.
 *
 * @param hasAccess whether another device may address the memory (default: the memory at `ptr`, as {@link canAccessMemory} says)
 * @throws {DeviceMismatchError} for a stream of a device without access to the memory
 */
export function enterDeviceFor(what: string, stream: bigint, owner: Device, ptr: bigint, hasAccess?: (device: Device) => boolean): void {
  const streamDevice = deviceOfStream(stream);
  if (streamDevice === undefined) {
    owner.ensureCurrent();
    return;
  }
  if (streamDevice !== owner && !(hasAccess ? hasAccess(streamDevice) : canAccessMemory(streamDevice, ptr, owner))) {
    throw new DeviceMismatchError(
      `${what}: the stream belongs to ${streamDevice}, the memory to ${owner}, and ${streamDevice} has no access to it; ` +
        `use a stream of ${owner}, or allocate from a DeviceMemoryResource of ${owner} with peerAccessibleBy including ${streamDevice.ordinal}`,
    );
  }
  streamDevice.ensureCurrent();
}

/**
 * {@link enterDeviceFor} for work on one Buffer (a copy from or to the host, a
 * fill), where several devices are present: pinned and managed memory, which
 * every device addresses, go to the stream's device (a default stream: the
 * Buffer's).
 */
export function enterBufferDevice(what: string, stream: bigint, buffer: Buffer): void {
  if (!hasSeveralDevices()) return;
  const device = buffer.device;
  if (device === undefined) return;
  if (buffer.isHostAccessible) (deviceOfStream(stream) ?? device).ensureCurrent();
  else enterDeviceFor(what, stream, device, buffer.ptr);
}
