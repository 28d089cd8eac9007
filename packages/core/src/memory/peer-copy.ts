import { driver, type CUstream } from '@cuda-js/bindings';
import type { Buffer } from './buffer.js';
import { DeviceMismatchError } from '../errors.js';
import { deviceLabel, ensureCurrentDevice, primaryContext } from '../context/device-context.js';
import { enterDeviceFor, hasSeveralDevices, streamDeviceOrdinal } from '../context/multi-device.js';

/** The ordinal of the device whose memory only it and its peers address: set for device pools, unset for pinned and managed memory (every device addresses those). */
function deviceBound(buffer: Buffer): number | undefined {
  return buffer.isHostAccessible ? undefined : buffer.device?.ordinal;
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
  if (buffer.isHostAccessible) ensureCurrentDevice(streamDeviceOrdinal(stream) ?? device.ordinal);
  else enterDeviceFor(what, stream, device.ordinal, buffer.ptr);
}

/**
 * Copies `size` bytes from `source` into `target`, ordered on `stream`:
 * `cuMemcpyPeerAsync` between the memory of two devices (which needs no peer
 * access: the driver stages the copy where the devices cannot address each
 * other), `cuMemcpyAsync` otherwise. With several devices, the stream must
 * belong to one of the two (a default stream is `issuer`'s).
 *
 * @param issuer the Buffer whose method was called: its device runs a copy on a default stream
 * @throws {DeviceMismatchError} for a stream of a third device, or of one without access to the memory it copies
 */
export function copyBetweenBuffers(
  target: Buffer,
  source: Buffer,
  size: number,
  stream: CUstream,
  issuer: Buffer,
  what: string,
): void {
  const targetPtr = target.ptr;
  const sourcePtr = source.ptr;
  if (!hasSeveralDevices()) {
    driver.cuMemcpyAsync(targetPtr, sourcePtr, size, stream);
    return;
  }
  const to = deviceBound(target);
  const from = deviceBound(source);
  if (to === undefined && from === undefined) {
    // pinned or managed memory on both sides: any device's stream may copy it
    const device = streamDeviceOrdinal(stream) ?? issuer.device?.ordinal;
    if (device !== undefined) ensureCurrentDevice(device);
    driver.cuMemcpyAsync(targetPtr, sourcePtr, size, stream);
    return;
  }
  if (to === undefined || from === undefined || to === from) {
    const owner = (to ?? from)!;
    enterDeviceFor(what, stream, owner, to !== undefined ? targetPtr : sourcePtr);
    driver.cuMemcpyAsync(targetPtr, sourcePtr, size, stream);
    return;
  }
  const streamDevice = streamDeviceOrdinal(stream) ?? deviceBound(issuer) ?? from;
  if (streamDevice !== to && streamDevice !== from) {
    throw new DeviceMismatchError(
      `${what}: the copy is from ${deviceLabel(from)} to ${deviceLabel(to)}, but the stream belongs to ${deviceLabel(streamDevice)}; use a stream of either device`,
    );
  }
  ensureCurrentDevice(streamDevice);
  driver.cuMemcpyPeerAsync(targetPtr, primaryContext(to), sourcePtr, primaryContext(from), size, stream);
}
