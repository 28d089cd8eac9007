// Options objects of @cuda-js/memory-view that are no plain objects, or answer twice (hostile
// input): a class instance's, a Map's or an inherited setting is no own key, so it was read
// unchecked or not at all; a getter could answer the check with one value and the use with another.
import { answersTwice, countingProxy, nonPlainOptions } from '@cuda-js/test-support/option-refusal';
import { describe, expect, it } from 'vitest';
import { toManagedTensor } from './native/index.js';
import { StridedMemoryView, ViewableArgument, ViewOptionError } from './index.js';

const bytes = new Uint8Array(8);
const view = StridedMemoryView.fromBuffer(bytes.buffer);

describe('options that are no plain object', () => {
  it.each(nonPlainOptions({ writable: true }))('%s is a ViewOptionError at every entry point', (_what, make) => {
    expect(() => StridedMemoryView.fromAny(bytes, make() as never)).toThrow(ViewOptionError);
    expect(() => StridedMemoryView.fromAny(bytes, make() as never)).toThrow(
      'StridedMemoryView.fromAny: the options must be a plain object',
    );
    expect(() => StridedMemoryView.fromBuffer(bytes, make() as never)).toThrow(ViewOptionError);
    expect(() => StridedMemoryView.fromPointer(0x1000n, make() as never)).toThrow(ViewOptionError);
    expect(() => view.view(make() as never)).toThrow(ViewOptionError);
    expect(() => new ViewableArgument(bytes).view(undefined, make() as never)).toThrow(ViewOptionError);
    expect(() => toManagedTensor(bytes, make() as never)).toThrow(ViewOptionError);
  });
});

describe('options whose getters answer twice are read once: the value checked is the value used', () => {
  it('StridedMemoryView.fromBuffer', () => {
    const { options, reads } = answersTwice('dtype', 'float32', 'banana');
    const made = StridedMemoryView.fromBuffer(bytes, options as never);
    expect(made.dtype.name).toBe('float32');
    expect(made.shape).toEqual([2]);
    expect(reads()).toBe(1);
  });

  it('view.view', () => {
    const { options, reads } = answersTwice('shape', [2, 4], 'banana');
    expect(view.view(options as never).shape).toEqual([2, 4]);
    expect(reads()).toBe(1);
  });

  it('Viewable.view', () => {
    const { options, reads } = answersTwice('writable', true, 'banana');
    expect(new ViewableArgument(bytes).view(undefined, options as never).readonly).toBe(false);
    expect(reads()).toBe(1);
  });
});

describe("a Proxy's get trap runs once per key", () => {
  it.each([
    [
      'StridedMemoryView.fromBuffer',
      (options: object) => StridedMemoryView.fromBuffer(bytes, options as never),
      { dtype: 'uint16', shape: [4], readonly: true },
    ],
    [
      'StridedMemoryView.fromAny',
      (options: object) => StridedMemoryView.fromAny(bytes, options as never),
      { writable: false },
    ],
    ['view.view', (options: object) => view.view(options as never), { dtype: 'uint32', shape: [2] }],
  ] as const)('%s', (_where, call, settings) => {
    const { proxy, gets } = countingProxy({ ...settings });
    call(proxy);
    expect(Object.fromEntries(gets)).toEqual(Object.fromEntries(Object.keys(settings).map((key) => [key, 1])));
  });
});
