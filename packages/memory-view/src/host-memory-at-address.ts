/**
 * Host views of pinned and managed memory, which a view holds as a `bigint`
 * address (DLPack's `CUDAHost` and `CUDAManaged`): the registered driver hook
 * (`DriverHooks.hostBuffer`, which `@cuda-js/core` installs) makes an
 * ArrayBuffer over the view's bytes; this package has no driver to ask
 * whether the address is host memory. While such a buffer lives, the view's
 * family is retained: a `close()` of the view defers the producer's deleter
 * until the buffer is collected, as an outstanding DLPack export does.
 */
import { DLDeviceType, deviceTypeName } from './device.js';
import { ProtocolError, UnsupportedDeviceError } from './errors.js';
import { formatValue } from './format-value.js';
import { bufferByteLength, isArrayBuffer } from './host-buffer.js';
import { byteExtent } from './layout.js';
import type { Lease } from './lease.js';
import { driverHooks } from './stream.js';

/** Whether memory of this device type, at an address, is readable by the host there (pinned and managed memory). */
export function isHostMemoryAtAddress(type: number): boolean {
  return type === DLDeviceType.CUDAHost || type === DLDeviceType.CUDAManaged;
}

/** Whether a view of this device type at an address can be read from JS now: the type is host-readable and a hook is registered. */
export function canViewHostMemoryAtAddress(type: number): boolean {
  return isHostMemoryAtAddress(type) && driverHooks().hostBuffer !== undefined;
}

// A family stays retained while one of its host buffers lives; a deleter that throws here has no caller to reach.
const retained = new FinalizationRegistry<Lease>((lease) => {
  try {
    lease.unretain();
  } catch (error) {
    process.emitWarning(`a DLPack deleter threw: ${(error as Error)?.message ?? String(error)}`, 'MemoryViewWarning');
  }
});

/** Host memory of a view: the buffer, and the byte offset of element 0 in it. */
export interface HostMemoryAtAddress {
  readonly buffer: ArrayBuffer;
  readonly byteOffset: number;
}

/**
 * @internal An ArrayBuffer over the bytes that a layout at `ptr` touches
 * (strides may be negative), from the driver hook, with element 0's offset
 * in it. Throws {@link UnsupportedDeviceError} where the type is not host
 * memory or no hook is registered, and {@link ProtocolError} where the hook
 * answers with less than it was asked for.
 */
export function hostMemoryAtAddress(
  ptr: bigint,
  deviceType: number,
  deviceId: number,
  shape: readonly number[],
  strides: readonly number[],
  itemsize: number,
  exporter: unknown,
  keepAlive: object,
  lease: Lease,
  action: string,
): HostMemoryAtAddress {
  const where = `${deviceTypeName(deviceType)}:${deviceId}`;
  if (!isHostMemoryAtAddress(deviceType))
    throw new UnsupportedDeviceError(
      `cannot ${action}: the memory is on ${where}, not in a JS buffer; copy it to the host first`,
    );
  const hook = driverHooks().hostBuffer;
  if (hook === undefined) {
    throw new UnsupportedDeviceError(
      `cannot ${action}: the memory is ${deviceType === DLDeviceType.CUDAHost ? 'pinned' : 'managed'} memory (${where}) at an address, and viewing it from JS ` +
        'needs the CUDA driver, which @cuda-js/memory-view does not load: import @cuda-js/core (it registers a host-memory hook once a device is used), ' +
        'or call setDriverHooks({ hostBuffer })',
    );
  }
  const [first, end] = byteExtent(shape, strides, itemsize, action);
  const byteLength = end - first;
  const answer = hook(ptr + BigInt(first), byteLength, exporter, keepAlive);
  const buffer: unknown = answer !== null && typeof answer === 'object' ? answer.buffer : undefined;
  const offset: unknown = answer !== null && typeof answer === 'object' ? answer.byteOffset : undefined;
  if (
    !isArrayBuffer(buffer) ||
    typeof offset !== 'number' ||
    !Number.isSafeInteger(offset) ||
    offset < 0 ||
    offset + byteLength > bufferByteLength(buffer)
  ) {
    throw new ProtocolError(
      `the hostBuffer driver hook answered ${formatValue(answer)} for ${byteLength} bytes at 0x${ptr.toString(16)}; expected { buffer: ArrayBuffer, byteOffset } holding them`,
    );
  }
  lease.retain();
  retained.register(buffer, lease);
  return { buffer, byteOffset: offset - first };
}
