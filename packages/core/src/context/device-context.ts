import { driver, type CUcontext } from '@cuda-js/bindings';
import { DeviceNotFoundError } from '../errors.js';
import { DEVICE_ATTRIBUTES, type DeviceAttributeName } from '../generated/device-attributes.js';
import { ensureDriver } from './driver-init.js';
import { applyFastExit } from './fast-exit.js';

/**
 * What core keeps per device ordinal, below every other floor: the CUdevice
 * handle, the primary context (retained on first use, for the life of the
 * process) and the attributes read so far. `Device` (the facade on top) is
 * made of these; lower floors use them by ordinal and never need a Device.
 */
interface DeviceState {
  readonly handle: number;
  context: CUcontext | undefined;
  readonly attributes: Map<DeviceAttributeName, number>;
}

const states = new Map<number, DeviceState>();

/** `Device(n)`, as `Device.toString()` writes it: for messages of the floors that know only ordinals. */
export function deviceLabel(ordinal: number): string {
  return `Device(${ordinal})`;
}

/**
 * Checks that `ordinal` names a device (the checks of `Device.get`): a
 * RangeError for a value that is no ordinal, a DeviceNotFoundError past the
 * driver's count. Initializes the driver.
 */
export function checkDeviceOrdinal(ordinal: number): void {
  if (!Number.isInteger(ordinal) || ordinal < 0)
    throw new RangeError(`Device.get: ordinal must be a non-negative integer, got ${String(ordinal)}`);
  if (states.has(ordinal)) return;
  ensureDriver();
  const count = driver.cuDeviceGetCount();
  if (ordinal >= count)
    throw new DeviceNotFoundError(`no CUDA device ${ordinal}: the driver reports ${count} device(s)`);
}

function stateOf(ordinal: number): DeviceState {
  let state = states.get(ordinal);
  if (state === undefined) {
    checkDeviceOrdinal(ordinal);
    state = { handle: driver.cuDeviceGet(ordinal), context: undefined, attributes: new Map() };
    states.set(ordinal, state);
  }
  return state;
}

/** The CUdevice handle of an ordinal (cuDeviceGet, once); a device that does not exist is refused as `Device.get` refuses it. */
export function deviceHandle(ordinal: number): number {
  return stateOf(ordinal).handle;
}

/** The primary context of a device (cuDevicePrimaryCtxRetain on first use, kept for the life of the process). */
export function primaryContext(ordinal: number): CUcontext {
  const state = stateOf(ordinal);
  if (state.context === undefined) {
    state.context = driver.cuDevicePrimaryCtxRetain(state.handle);
    applyFastExit(); // again, after what the driver registered for the context
  }
  return state.context;
}

/** Makes the primary context of a device current on this thread. */
export function setCurrentDevice(ordinal: number): void {
  driver.cuCtxSetCurrent(primaryContext(ordinal));
}

/** Makes the primary context of a device current unless it is already. */
export function ensureCurrentDevice(ordinal: number): void {
  const context = primaryContext(ordinal);
  if (driver.cuCtxGetCurrent() !== context) driver.cuCtxSetCurrent(context);
}

/** The ordinal of the device of the context current on this thread, or undefined where none is current. */
export function currentDeviceOrdinal(): number | undefined {
  ensureDriver();
  if (driver.cuCtxGetCurrent() === 0n) return undefined;
  return driver.cuCtxGetDevice();
}

/** One device attribute, by name, as the driver reports it. Cached: attributes do not change. */
export function deviceAttribute(ordinal: number, name: DeviceAttributeName): number {
  const state = stateOf(ordinal);
  let value = state.attributes.get(name);
  if (value === undefined) {
    const id = DEVICE_ATTRIBUTES[name];
    if (id === undefined) throw new RangeError(`unknown device attribute '${String(name)}'`);
    value = driver.cuDeviceGetAttribute(id, state.handle) as number;
    state.attributes.set(name, value);
  }
  return value;
}
