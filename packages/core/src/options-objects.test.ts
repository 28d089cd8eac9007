// Options objects of @cuda-js/core that are no plain objects, or answer twice (hostile input):
// a class instance's, a Map's or an inherited setting is no own key, so it was read unchecked or
// not at all; a getter could answer the check with one value and the use with another.
// The GPU-bound methods are called on a bare instance of their class: the options are checked
// (and refused) before the instance or the driver is touched.
import { answersTwice, countingProxy, nonPlainOptions } from '@cuda-js/test-support/option-refusal';
import { describe, expect, it } from 'vitest';
import { debugDotFlags } from './graph/graph-debug-print.js';
import {
  Buffer,
  Communicator,
  CoreOptionError,
  Device,
  DeviceArray,
  Host,
  LaunchConfig,
  LaunchConfigError,
} from './index.js';

const bare = <T extends object>(type: { prototype: T }): T => Object.create(type.prototype) as T;

describe('options that are no plain object', () => {
  it.each(nonPlainOptions({ stream: 0n }))(
    '%s is a CoreOptionError at every entry point that takes an options bag',
    (_what, make) => {
      expect(() => new Host(make() as never)).toThrow(CoreOptionError);
      expect(() => new Host(make() as never)).toThrow('Host: the options must be a plain object');
      expect(() => bare(Device).allocate(8, make() as never)).toThrow(CoreOptionError);
      expect(() => bare(Buffer).fill(0, make() as never)).toThrow(CoreOptionError);
      expect(() => bare(Buffer).copyTo(new Uint8Array(1), make() as never)).toThrow(CoreOptionError);
      expect(() => DeviceArray.allocate([1], 'float32', make() as never)).toThrow(CoreOptionError);
      expect(() => debugDotFlags(make() as never, 'Graph.debugDotPrint')).toThrow(CoreOptionError);
      expect(() => Communicator.initRank(make() as never)).toThrow(CoreOptionError);
    },
  );

  it("a LaunchConfig is a LaunchConfig's options (not plain only), read by its own keys", () => {
    const config = new LaunchConfig({ grid: [2, 3], block: 32, sharedMemory: 16 });
    const copy = new LaunchConfig(config);
    expect(copy).toMatchObject({ grid: [2, 3, 1], block: [32, 1, 1], sharedMemory: 16, cooperative: false });
    // a Map has no own keys: no grid, refused as the constructor refuses a missing one
    expect(() => new LaunchConfig(new Map([['grid', 1]]) as never)).toThrow(LaunchConfigError);
  });
});

describe('options whose getters answer twice are read once: the value checked is the value used', () => {
  it('LaunchConfig', () => {
    const { options, reads } = answersTwice('grid', 4, 'banana', { block: 1 });
    const config = new LaunchConfig(options as never);
    expect(config.grid).toEqual([4, 1, 1]);
    expect(reads()).toBe(1);
  });

  it('Host', () => {
    const { options, reads } = answersTwice('numaId', 1, -5);
    expect(new Host(options as never).numaId).toBe(1);
    expect(reads()).toBe(1);
  });

  it('the graph debug-print flags', () => {
    const { options, reads } = answersTwice('verbose', true, 'banana');
    expect(debugDotFlags(options as never, 'Graph.debugDotPrint')).toBe(
      debugDotFlags({ verbose: true }, 'Graph.debugDotPrint'),
    );
    expect(reads()).toBe(1);
  });
});

describe("a Proxy's get trap runs once per key", () => {
  it.each([
    [
      'LaunchConfig',
      (options: object) => new LaunchConfig(options as never),
      { grid: 2, block: 64, cooperative: false },
    ],
    ['Host', (options: object) => new Host(options as never), { numaId: 0 }],
    [
      'the graph debug-print flags',
      (options: object) => debugDotFlags(options as never, 'Graph.debugDotPrint'),
      { verbose: true, runtimeTypes: false },
    ],
  ] as const)('%s', (_where, call, settings) => {
    const { proxy, gets } = countingProxy({ ...settings });
    call(proxy);
    expect(Object.fromEntries(gets)).toEqual(Object.fromEntries(Object.keys(settings).map((key) => [key, 1])));
  });
});
