import { DLPACK_DEVICE } from './protocol-keys.js';
import { checkedDevice, type Device } from './device.js';
import { ProtocolError, UnsupportedDeviceError } from './errors.js';
import { formatValue } from './format-value.js';
import { driverHooks } from './stream.js';

/**
 * @internal The device of a view whose producer did not say (the CUDA array
 * interface): the exporter's `Symbol.for('dlpack.device')`, else the driver
 * hook's answer for the address.
 */
export function resolveDevice(exporter: unknown, ptr: bigint | undefined): Device {
  const withDevice = exporter as { [DLPACK_DEVICE]?: () => readonly [number, number] } | null;
  if (withDevice !== null && typeof withDevice === 'object' && typeof withDevice[DLPACK_DEVICE] === 'function') {
    const answer: unknown = withDevice[DLPACK_DEVICE]();
    const type: unknown = answer !== null && typeof answer === 'object' ? (answer as unknown[])[0] : undefined;
    const id: unknown = answer !== null && typeof answer === 'object' ? (answer as unknown[])[1] : undefined;
    const device = checkedDevice(type, id);
    if (device === undefined)
      throw new ProtocolError(
        `Symbol.for('dlpack.device') returned ${formatValue(answer)}; expected [deviceType, deviceId] of integers`,
      );
    return device;
  }
  const pointerDevice = driverHooks().pointerDevice;
  if (pointerDevice !== undefined && ptr !== undefined) {
    const d = pointerDevice(ptr);
    return { type: d.type, id: d.id };
  }
  throw new UnsupportedDeviceError(
    'the device of this CUDA array interface view is unknown: the interface does not carry it and no driver hook is registered ' +
      "(import @cuda-js/core, call setDriverHooks({ pointerDevice }), or implement Symbol.for('dlpack.device') on the exporter)",
  );
}
