import { driver, type CUstream } from '@cuda-js/bindings';
import type { Buffer } from './buffer.js';
import type { Device } from '../device/device.js';
import { DeviceMismatchError } from '../errors.js';
import { deviceOfStream, enterDeviceFor, hasSeveralDevices } from '../device/multi-device.js';

/** The device whose memory only it and its peers address: set for device pools, unset for pinned and managed memory (every device addresses those). */
function deviceBound(buffer: Buffer): Device | undefined {
  return buffer.isHostAccessible ? undefined : buffer.device;
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
export function copyBetweenBuffers(target: Buffer, source: Buffer, size: number, stream: CUstream, issuer: Buffer, what: string): void {
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
    (deviceOfStream(stream) ?? issuer.device)?.ensureCurrent();
    driver.cuMemcpyAsync(targetPtr, sourcePtr, size, stream);
    return;
  }
  if (to === undefined || from === undefined || to === from) {
    const owner = (to ?? from)!;
    enterDeviceFor(what, stream, owner, to !== undefined ? targetPtr : sourcePtr);
    driver.cuMemcpyAsync(targetPtr, sourcePtr, size, stream);
    return;
  }
  const streamDevice = deviceOfStream(stream) ?? deviceBound(issuer) ?? from;
  if (streamDevice !== to && streamDevice !== from) {
    throw new DeviceMismatchError(`${what}: the copy is from ${from} to ${to}, but the stream belongs to ${streamDevice}; use a stream of either device`);
  }
  streamDevice.ensureCurrent();
  driver.cuMemcpyPeerAsync(targetPtr, to.context, sourcePtr, from.context, size, stream);
}
