import { errorOf } from '@cuda-js/test-support/errors';
import { expectMisspeltOption } from '@cuda-js/test-support/option-refusal';
import { describe, expect, it } from 'vitest';
import { CUDA_ARRAY_INTERFACE, DLPACK } from './protocol-keys.js';
import { fromExchangeApi, fromManagedTensor, toManagedTensor } from './native/index.js';
import { StridedMemoryView, ViewableArgument, ViewOptionError } from './index.js';

// Every options object of @cuda-js/memory-view refuses a misspelt key with
// the nearest known name, as a ViewOptionError, before anything is read.
const bytes = new Uint8Array(8);
const view = StridedMemoryView.fromBuffer(bytes.buffer);
const dlpack = { [DLPACK]: () => ({}), [Symbol.for('dlpack.device')]: () => [1, 0] };
const cudaArray = { [CUDA_ARRAY_INTERFACE]: { shape: [2], typestr: '<f4', data: [0n, false], version: 3 } };

const cases: readonly (readonly [where: string, call: () => unknown, key: string, suggestion: string])[] = [
  [
    'StridedMemoryView.fromAny',
    () => StridedMemoryView.fromAny(bytes, { writeable: true } as never),
    'writeable',
    'writable',
  ],
  [
    'StridedMemoryView.fromDLPack',
    () => StridedMemoryView.fromDLPack(dlpack, { strem: 0n } as never),
    'strem',
    'stream',
  ],
  [
    'StridedMemoryView.fromCudaArrayInterface',
    () => StridedMemoryView.fromCudaArrayInterface(cudaArray, { streem: 0n } as never),
    'streem',
    'stream',
  ],
  [
    'StridedMemoryView.fromBuffer',
    () => StridedMemoryView.fromBuffer(bytes, { dtyp: 'uint8' } as never),
    'dtyp',
    'dtype',
  ],
  [
    'StridedMemoryView.fromPointer',
    () => StridedMemoryView.fromPointer(0n, { dtype: 'uint8', shape: [1], stride: [1] } as never),
    'stride',
    'strides',
  ],
  ['view.view', () => view.view({ shap: [8] } as never), 'shap', 'shape'],
  [
    'Viewable.view',
    () => new ViewableArgument(bytes).view(undefined, { writeable: true } as never),
    'writeable',
    'writable',
  ],
  ['toManagedTensor', () => toManagedTensor(bytes, { legasy: true } as never), 'legasy', 'legacy'],
  ['fromManagedTensor', () => fromManagedTensor({}, { exportr: bytes } as never), 'exportr', 'exporter'],
  ['fromExchangeApi', () => fromExchangeApi(dlpack, { writeable: true } as never), 'writeable', 'writable'],
];

describe('the options of memory-view', () => {
  it.each(cases)('%s refuses a misspelt key with the nearest known one', (where, call, key, suggestion) => {
    expectMisspeltOption(ViewOptionError, call, where, key, suggestion);
  });

  it('refuses a value of the wrong type with what is expected', () => {
    const error = errorOf<ViewOptionError>(() => StridedMemoryView.fromAny(bytes, { writable: 'yes' } as never));
    expect(error).toBeInstanceOf(ViewOptionError);
    expect(error.message).toBe(`StridedMemoryView.fromAny: option 'writable' must be true or false; got "yes"`);
  });

  it('takes the known keys as before', () => {
    expect(StridedMemoryView.fromAny(bytes, { writable: true }).shape).toEqual([8]);
    expect(StridedMemoryView.fromBuffer(bytes, { dtype: 'uint16', shape: [4] }).shape).toEqual([4]);
    expect(view.view({ dtype: 'uint32' }).shape).toEqual([2]);
  });
});
