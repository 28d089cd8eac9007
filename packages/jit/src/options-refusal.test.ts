import { expectMisspeltOption } from '@cuda-js/test-support/option-refusal';
import { describe, expect, it } from 'vitest';
import {
  buildKernelArtifact,
  buildModuleKernels,
  createXoroshiro128pStates,
  declareDevice,
  defaultStream,
  deviceArray,
  deviceArrayLike,
  event,
  f32,
  guvectorize,
  JitOptionError,
  jit,
  managedArray,
  mappedArray,
  pinnedArray,
  reduce,
  stream,
  toDevice,
  vectorize,
} from './index.js';

// Every options object of @cuda-js/jit refuses a misspelt key with the nearest
// known name, as a JitOptionError, before anything is parsed, compiled or
// allocated: so none of these needs a GPU (the kernels run in the simulator).
// jit-options.test.ts checks the value types and messages of jit() and its kin.
const kernel = jit(
  (a: Float32Array) => {
    a[0] = 1;
  },
  { target: 'simulator', name: 'fill' },
);
const add = (a: number, b: number) => a + b;
const sum = reduce(add, { target: 'simulator', name: 'sum' });
const ufunc = vectorize(add, { target: 'simulator', name: 'plus' });
const gufunc = guvectorize(
  ['void(f32[:], f32[:])'],
  '(n)->(n)',
  (x: Float32Array, out: Float32Array) => {
    for (let i = 0; i < x.length; i++) out[i] = x[i]!;
  },
  { target: 'simulator', name: 'copy' },
);
const host = new Float32Array(4);

const cases: readonly (readonly [where: string, call: () => unknown, key: string, suggestion: string])[] = [
  ['jit()', () => jit(add, { fastmath: true } as never), 'fastmath', 'fastMath'],
  ['jit()', () => jit.withConstants({ N: 1 }, () => add, { cahce: true } as never), 'cahce', 'cache'],
  ['jit.device()', () => jit.device(add, { nmae: 'plus' } as never), 'nmae', 'name'],
  ['fill.launch', () => kernel.launch({ grid: 1, blok: 1 } as never, host), 'blok', 'block'],
  ['fill.launch', () => kernel.launch({ grid: 1, block: 1, strem: 0n } as never, host), 'strem', 'stream'],
  ['fill.forall', () => kernel.forall(4, { strem: 0n } as never), 'strem', 'stream'],
  [
    'fill.maxCooperativeGridBlocks',
    () => kernel.maxCooperativeGridBlocks(32, { sharedMemroy: 0 } as never),
    'sharedMemroy',
    'sharedMemory',
  ],
  ['fill.artifactCode', () => kernel.artifactCode([f32], { arc: 'sm_90' } as never), 'arc', 'arch'],
  ['fill.inspect', () => kernel.inspect([f32], { arc: 'sm_90' } as never), 'arc', 'arch'],
  ['vectorize()', () => vectorize(add, { fastmath: true } as never), 'fastmath', 'fastMath'],
  ['plus()', () => ufunc(host, host, { strem: 0n } as never), 'strem', 'stream'],
  [
    'guvectorize()',
    () => guvectorize(['void(f32[:], f32[:])'], '(n)->(n)', add, { targte: 'simulator' } as never),
    'targte',
    'target',
  ],
  ['copy()', () => gufunc(host, { outt: host } as never), 'outt', 'out'],
  ['reduce()', () => reduce(add, { nam: 'sum' } as never), 'nam', 'name'],
  ['sum()', () => sum(host, { initt: 0 } as never), 'initt', 'init'],
  [
    'declareDevice()',
    () => declareDevice('twice', { args: ['f32'], returns: 'f32' }, { simulte: (x: number) => 2 * x } as never),
    'simulte',
    'simulate',
  ],
  [
    'createXoroshiro128pStates()',
    () => createXoroshiro128pStates(4, 1, { subsequencestart: 2 } as never),
    'subsequencestart',
    'subsequenceStart',
  ],
  ['stream()', () => stream({ nonBlockng: true } as never), 'nonBlockng', 'nonBlocking'],
  ['defaultStream()', () => defaultStream({ targt: 'simulator' } as never), 'targt', 'target'],
  ['event()', () => event({ timng: true } as never), 'timng', 'timing'],
  ['toDevice()', () => toDevice(host, { devce: 0 } as never), 'devce', 'device'],
  ['deviceArray()', () => deviceArray(4, 'float32', { strem: 0n } as never), 'strem', 'stream'],
  ['deviceArrayLike()', () => deviceArrayLike(host, { targt: 'simulator' } as never), 'targt', 'target'],
  ['pinnedArray()', () => pinnedArray(4, 'float32', { strem: 0n } as never), 'strem', 'stream'],
  ['mappedArray()', () => mappedArray(4, 'float32', { strem: 0n } as never), 'strem', 'stream'],
  ['managedArray()', () => managedArray(4, 'float32', { strem: 0n } as never), 'strem', 'stream'],
  ['buildKernelArtifact()', () => buildKernelArtifact([], { arch: [], ptxs: false } as never), 'ptxs', 'ptx'],
];

describe('the options of the JIT', () => {
  it.each(cases)('%s refuses a misspelt key with the nearest known one', (where, call, key, suggestion) => {
    expectMisspeltOption(JitOptionError, call, where, key, suggestion);
  });

  it('buildModuleKernels() refuses a misspelt key before importing the entry', async () => {
    const error = await buildModuleKernels('./no-such-entry.js', { arch: [], outt: 'kernels' } as never).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JitOptionError);
    expect((error as JitOptionError).problem).toMatchObject({
      kind: 'unknown',
      where: 'buildModuleKernels()',
      key: 'outt',
      suggestion: 'out',
    });
  });

  it('a launch with only known keys, and a ufunc whose last operand is an array, go on as before', () => {
    kernel.launch({ grid: 1, block: 1 }, host);
    expect(host[0]).toBe(1);
    expect(Array.from(ufunc(host, host) as Float32Array)).toEqual([2, 0, 0, 0]);
  });
});
