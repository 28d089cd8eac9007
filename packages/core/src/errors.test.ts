import * as bindings from '@cuda-js/bindings';
import { describe, expect, it } from 'vitest';
import {
  ClosedResourceError,
  CollectiveArgumentError,
  CommunicatorStateError,
  CopyError,
  CoreError,
  DeviceMismatchError,
  DeviceNotFoundError,
  GraphArgumentError,
  GraphInstantiateError,
  GraphStateError,
  GraphUpdateError,
  LaunchArgumentError,
  LaunchConfigError,
  PeerAccessError,
  SystemUnavailableError,
  TensorMapError,
} from './index.js';

describe('the errors of @cuda-js/core', () => {
  it('every error class of core derives from CoreError (no longer from TypeError or RangeError), and keeps its name', () => {
    const errors = [
      new DeviceNotFoundError('m'),
      new LaunchConfigError('m'),
      new LaunchArgumentError('k', 0, 'm'),
      new CopyError('m'),
      new GraphStateError('m'),
      new GraphArgumentError('m'),
      new GraphInstantiateError('m'),
      new GraphUpdateError('m'),
      new TensorMapError('m'),
      new DeviceMismatchError('m'),
      new PeerAccessError('m'),
      new CollectiveArgumentError('m'),
      new CommunicatorStateError('m'),
      new SystemUnavailableError('no NVML'),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(CoreError);
      expect(error).not.toBeInstanceOf(TypeError);
      expect(error).not.toBeInstanceOf(RangeError);
      expect(error.name).toBe(error.constructor.name);
    }
  });

  it('the closed error is the one of the bindings', () => {
    expect(ClosedResourceError).toBe(bindings.ClosedResourceError);
  });
});
