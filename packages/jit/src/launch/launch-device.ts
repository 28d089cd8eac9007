import { Buffer, canAccessMemory, Device, deviceOfStream } from '@cuda-js/core';
import { DLDeviceType, DLPACK, DLPACK_DEVICE, StridedMemoryView } from '@cuda-js/memory-view';
import { argumentError } from './argument-error.js';

let several: boolean | undefined;

/** Device memory of one device that an argument says it is in: the device's ordinal, and the address where it is known without exporting it. */
interface ArrayLocation {
  readonly ordinal: number;
  readonly ptr: bigint | undefined;
}

/** Where an array argument's device memory lives, as cheaply as the argument says it (pinned and managed memory serve every device: undefined). */
function locationOf(arg: unknown): ArrayLocation | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  if (arg instanceof Buffer)
    return arg.isHostAccessible || arg.device === undefined || arg.closed
      ? undefined
      : { ordinal: arg.device.ordinal, ptr: arg.ptr };
  if (arg instanceof StridedMemoryView) {
    if (arg.closed || arg.ptr === undefined) return undefined;
    const { type, id } = arg.device;
    return type === DLDeviceType.CUDA ? { ordinal: id, ptr: arg.ptr } : undefined;
  }
  if (DLPACK in arg) {
    const device = (arg as { [DLPACK_DEVICE]?: () => readonly [number, number] })[DLPACK_DEVICE];
    if (typeof device !== 'function') return undefined;
    const [type, id] = device.call(arg);
    return type === DLDeviceType.CUDA ? { ordinal: id, ptr: undefined } : undefined;
  }
  return undefined; // the CUDA array interface: core asks the driver at packing
}

/**
 * Where several devices are present, makes current the device a JIT launch
 * runs on, as numba launches where the arrays live: the stream's device
 * (a stream that is not a default stream), else the device of the first
 * device array, else the current one. Device arrays of another device must be
 * reachable from it through peer access (their pool's
 * `peerAccessibleBy`), or the launch is refused before anything runs.
 *
 * @throws {KernelArgumentError} naming the first array on a device the launch cannot reach
 */
export function enterLaunchDevice(
  names: readonly string[],
  args: readonly unknown[],
  arrays: readonly number[],
  stream: bigint,
): void {
  if (several === undefined) {
    try {
      several = Device.count() > 1;
    } catch {
      return; // no driver: the launch itself says so, after its own checks
    }
  }
  if (!several) return;
  const streamDevice = deviceOfStream(stream);
  let target = streamDevice;
  const located: { index: number; location: ArrayLocation }[] = [];
  for (const i of arrays) {
    const location = locationOf(args[i]);
    if (location !== undefined) located.push({ index: i, location });
  }
  target ??= located.length > 0 ? Device.get(located[0]!.location.ordinal) : undefined;
  if (target === undefined) return;
  for (const { index, location } of located) {
    // an address not known here (a DLPack export) is checked by core when the argument is packed
    if (location.ordinal === target.ordinal || location.ptr === undefined) continue;
    if (canAccessMemory(target, location.ptr, Device.get(location.ordinal))) continue;
    throw argumentError(
      names,
      index,
      `the array lives on device ${location.ordinal}, but the launch runs on device ${target.ordinal} (${streamDevice ? "the stream's" : 'where the first array lives'}), ` +
        `which has no access to it; copy it there, or allocate it from a DeviceMemoryResource with peerAccessibleBy including ${target.ordinal}`,
    );
  }
  target.ensureCurrent();
}
