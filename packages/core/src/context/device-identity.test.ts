// The floors below the Device facade know a Device by its brand (never by its
// shape) and take device ordinals checked as Device.get checks them. No GPU
// here: only what is decided before the driver is asked.
import { describe, expect, it } from 'vitest';
import { Device } from '../index.js';
import { isDevice, toDeviceOrdinal } from './device-identity.js';

describe('the Device brand', () => {
  it('refuses look-alikes: an object with an ordinal, or one made from the prototype without the constructor', () => {
    for (const value of [{ ordinal: 0, handle: 0 }, Object.create(Device.prototype), null, 0, 'Device(0)'])
      expect(isDevice(value)).toBe(false);
  });

  it('takes a Device or a device ordinal, as Device.get checks it', () => {
    expect(() => toDeviceOrdinal({ ordinal: 0 } as never, 'peers[0]')).toThrow(TypeError);
    expect(() => toDeviceOrdinal({ ordinal: 0 } as never, 'peers[0]')).toThrow(
      /^peers\[0\]: a Device or a device ordinal, got /,
    );
    expect(() => toDeviceOrdinal('0' as never, 'peers[1]')).toThrow(TypeError);
    expect(() => toDeviceOrdinal(-1, 'peers[2]')).toThrow(
      new RangeError('Device.get: ordinal must be a non-negative integer, got -1'),
    );
    expect(() => toDeviceOrdinal(1.5, 'peers[3]')).toThrow(RangeError);
  });
});
