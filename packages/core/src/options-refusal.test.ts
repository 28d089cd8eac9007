import type { CUgraph } from '@cuda-js/bindings';
import { brandHandle } from '@cuda-js/bindings/runtime';
import { dtype, StridedMemoryView } from '@cuda-js/memory-view';
import { errorOf } from '@cuda-js/test-support/errors';
import { expectMisspeltOption } from '@cuda-js/test-support/option-refusal';
import { describe, expect, it } from 'vitest';
import { debugDotFlags } from './graph/graph-debug-print.js';
import { GraphResources } from './graph/graph-resources.js';
import {
  Buffer,
  Communicator,
  CoreOptionError,
  Device,
  DeviceArray,
  DeviceMemoryResource,
  Graph,
  GraphDefinition,
  Host,
  LaunchConfig,
  LegacyPinnedMemoryResource,
  ManagedBuffer,
  ManagedMemoryResource,
  PinnedMemoryResource,
} from './index.js';
import { planTiledTensorMap } from './tensor-map/tensor-map-layout.js';

// Every options object of @cuda-js/core refuses a misspelt key with the
// nearest known name, as a CoreOptionError, before anything else is read: so
// the methods of objects that need a GPU to exist are called here on a bare
// instance of their class (the options are checked before the instance is
// touched). Where a public method checks its state first (GraphBuilder.complete,
// GraphDefinition.instantiate and debugDotPrint, TensorMapDescriptor.tiled), the
// routine that it passes its options to is called with its name.
const bare = <T extends object>(type: { prototype: T }): T => Object.create(type.prototype) as T;
const host = new Float32Array(4);
const device = bare(Device);
const ID = new Uint8Array(128);
const view2d = StridedMemoryView.fromBuffer(new ArrayBuffer(64 * 64 * 4), { dtype: dtype('float32'), shape: [64, 64] });

const cases: readonly (readonly [where: string, call: () => unknown, key: string, suggestion: string])[] = [
  ['LaunchConfig', () => new LaunchConfig({ grid: 1, block: 1, clustr: 2 } as never), 'clustr', 'cluster'],
  ['Host', () => new Host({ numId: 0 } as never), 'numId', 'numaId'],
  ['GraphDefinition', () => new GraphDefinition({ devic: device } as never), 'devic', 'device'],
  [
    'Graph.instantiate',
    () => Graph.instantiate(brandHandle<CUgraph>(0n), new GraphResources(), { autoFreeOnLanch: true } as never),
    'autoFreeOnLanch',
    'autoFreeOnLaunch',
  ],
  [
    'GraphDefinition.debugDotPrint',
    () => debugDotFlags({ verbos: true } as never, 'GraphDefinition.debugDotPrint'),
    'verbos',
    'verbose',
  ],
  [
    'TensorMapDescriptor.tiled',
    () => planTiledTensorMap(view2d, { box: [8, 8], swizle: '128B' } as never, 'TensorMapDescriptor.tiled'),
    'swizle',
    'swizzle',
  ],
  ['DeviceMemoryResource', () => new DeviceMemoryResource(device, { maxSiz: 1 } as never), 'maxSiz', 'maxSize'],
  [
    'DeviceMemoryResource.allocate',
    () => bare(DeviceMemoryResource).allocate(8, { strem: 0n } as never),
    'strem',
    'stream',
  ],
  [
    'PinnedMemoryResource.allocate',
    () => new PinnedMemoryResource().allocate(8, { strem: 0n } as never),
    'strem',
    'stream',
  ],
  [
    'LegacyPinnedMemoryResource.allocate',
    () => new LegacyPinnedMemoryResource().allocate(8, { strem: 0n } as never),
    'strem',
    'stream',
  ],
  [
    'ManagedMemoryResource.allocate',
    () => new ManagedMemoryResource(device).allocate(8, { strem: 0n } as never),
    'strem',
    'stream',
  ],
  ['Device.allocate', () => device.allocate(8, { strem: 0n } as never), 'strem', 'stream'],
  ['Buffer.copyTo', () => bare(Buffer).copyTo(host, { strem: 0n } as never), 'strem', 'stream'],
  ['Buffer.copyFrom', () => bare(Buffer).copyFrom(host, { strem: 0n } as never), 'strem', 'stream'],
  ['Buffer.fill', () => bare(Buffer).fill(0, { widht: 4 } as never), 'widht', 'width'],
  ['Buffer.close', () => bare(Buffer).close({ strem: 0n } as never), 'strem', 'stream'],
  ['Buffer.closeAsync', () => bare(Buffer).closeAsync({ strem: 0n } as never), 'strem', 'stream'],
  [
    'Buffer.fromIpcDescriptor',
    () => Buffer.fromIpcDescriptor(bare(DeviceMemoryResource), {} as never, { strem: 0n } as never),
    'strem',
    'stream',
  ],
  [
    'ManagedBuffer.prefetch',
    () => bare(ManagedBuffer).prefetch('host' as never, { strem: 0n } as never),
    'strem',
    'stream',
  ],
  ['ManagedBuffer.discard', () => bare(ManagedBuffer).discard({ strem: 0n } as never), 'strem', 'stream'],
  [
    'ManagedBuffer.discardPrefetch',
    () => bare(ManagedBuffer).discardPrefetch('host' as never, { strem: 0n } as never),
    'strem',
    'stream',
  ],
  [
    'DeviceArray.allocate',
    () => DeviceArray.allocate([4], 'float32', { memroy: 'device' } as never),
    'memroy',
    'memory',
  ],
  ['DeviceArray.allocateLike', () => DeviceArray.allocateLike(host, { devic: device } as never), 'devic', 'device'],
  ['DeviceArray.fromHost', () => DeviceArray.fromHost(host, { strem: 0n } as never), 'strem', 'stream'],
  ['DeviceArray.copyToHost', () => bare(DeviceArray).copyToHost(host, { strem: 0n } as never), 'strem', 'stream'],
  ['DeviceArray.copyToHost', () => bare(DeviceArray).copyToHost({ strem: 0n } as never), 'strem', 'stream'],
  ['DeviceArray.copyFromHost', () => bare(DeviceArray).copyFromHost(host, { strem: 0n } as never), 'strem', 'stream'],
  ['DeviceArray.close', () => bare(DeviceArray).close({ strem: 0n } as never), 'strem', 'stream'],
  [
    'Communicator.initRank',
    () => Communicator.initRank({ id: ID, rank: 0, worldSize: 1, devise: 0 } as never),
    'devise',
    'device',
  ],
  ['Communicator.allReduce', () => bare(Communicator).allReduce(host, host, { opp: 'sum' } as never), 'opp', 'op'],
  ['Communicator.broadcast', () => bare(Communicator).broadcast(host, host, { rooot: 0 } as never), 'rooot', 'root'],
  ['Communicator.reduce', () => bare(Communicator).reduce(host, host, { cont: 1 } as never), 'cont', 'count'],
  [
    'Communicator.allGather',
    () => bare(Communicator).allGather(host, host, { dtyp: 'float32' } as never),
    'dtyp',
    'dtype',
  ],
  [
    'Communicator.reduceScatter',
    () => bare(Communicator).reduceScatter(host, host, { strem: 0n } as never),
    'strem',
    'stream',
  ],
  ['Communicator.send', () => bare(Communicator).send(host, 1, { strem: 0n } as never), 'strem', 'stream'],
  ['Communicator.recv', () => bare(Communicator).recv(host, 1, { strem: 0n } as never), 'strem', 'stream'],
];

describe('the options of core', () => {
  it.each(cases)('%s refuses a misspelt key with the nearest known one', (where, call, key, suggestion) => {
    expectMisspeltOption(CoreOptionError, call, where, key, suggestion);
  });

  it("refuses a fill width that is not 1 or 4 (Buffer.fill's values are checked too)", () => {
    const error = errorOf<CoreOptionError>(() => bare(Buffer).fill(0, { width: 2 } as never));
    expect(error).toBeInstanceOf(CoreOptionError);
    expect(error.problem).toMatchObject({ kind: 'invalid', key: 'width', expected: 'one of 1, 4' });
  });
});
