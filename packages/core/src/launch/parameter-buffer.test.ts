// The native boundary of a packed launch (bindings' createPackedLaunch, which
// ParameterBuffer is made over): it accepts exactly the layouts whose
// parameters and header lie in the buffer, and refuses any other with an
// error naming the parameter, before anything is made. No device needed.
import { driver, type CUfunction } from '@cuda-js/bindings';
import { PACKED_LAUNCH_HEADER } from '@cuda-js/bindings/runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParameterBuffer } from './parameter-buffer.js';

const F = 0x1234n as CUfunction;

describe('createPackedLaunch and createLaunchFunction (the native boundary under ParameterBuffer)', () => {
  it('accepts exactly the layouts whose parameters and header lie in the buffer, apart (fast-check)', () => {
    const entry = fc.record({
      offset: fc.oneof(fc.integer({ min: 0, max: 170 }), fc.constantFrom(-1, 0.5, 2 ** 32, Number.NaN)),
      size: fc.oneof(fc.constantFrom(1, 2, 4, 8, 16), fc.constantFrom(0, -4, 0.5, 2 ** 32)),
    });
    const layout = fc.record({
      length: fc.integer({ min: 0, max: 160 }),
      entries: fc.array(entry, { maxLength: 6 }),
      header: fc.oneof(fc.integer({ min: 0, max: 170 }), fc.constantFrom(-8, 1.5, 2 ** 32, Number.NaN)),
      view: fc.constantFrom('ArrayBuffer', 'Uint8Array', 'DataView'),
      skip: fc.integer({ min: 0, max: 16 }),
    });
    const isU32 = (n: number) => Number.isInteger(n) && n >= 0 && n < 2 ** 32;
    fc.assert(
      fc.property(layout, ({ length, entries, header, view, skip }) => {
        const buffer = new ArrayBuffer(length + skip);
        const target =
          view === 'ArrayBuffer'
            ? new ArrayBuffer(length)
            : view === 'Uint8Array'
              ? new Uint8Array(buffer, skip, length)
              : new DataView(buffer, skip, length);
        const fit = entries.every(
          ({ offset, size }) => isU32(offset) && isU32(size) && size > 0 && offset + size <= length,
        );
        const headerFits =
          Number.isInteger(header) && header >= 0 && header % 8 === 0 && header + PACKED_LAUNCH_HEADER.bytes <= length;
        const apart = (a: { offset: number; size: number }, b: { offset: number; size: number }) =>
          a.offset + a.size <= b.offset || b.offset + b.size <= a.offset;
        const outsideHeader = entries.every((e) => apart(e, { offset: header, size: PACKED_LAUNCH_HEADER.bytes }));
        const disjoint = entries.every((a, i) => entries.every((b, j) => i === j || apart(a, b)));
        const make = () =>
          driver.createPackedLaunch(
            F,
            target,
            entries.map((e) => e.offset),
            entries.map((e) => e.size),
            header,
          );
        // the launch function over bytes of its own accepts and refuses the same layouts (and no empty buffer)
        const makeFunction = () =>
          driver.createLaunchFunction(
            F,
            length,
            entries.map((e) => e.offset),
            entries.map((e) => e.size),
            header,
          );
        if (fit && headerFits && outsideHeader && disjoint) {
          expect(make()).toBeTypeOf('object');
          expect(makeFunction()).toBeTypeOf('function');
        } else {
          expect(make).toThrow(/^createPackedLaunch: parameter '(offsets'\[\d+\]|sizes'\[\d+\]|headerOffset') /);
          expect(makeFunction).toThrow(
            /^createLaunchFunction: parameter '(offsets'\[\d+\]|sizes'\[\d+\]|headerOffset'|byteLength') /,
          );
        }
      }),
      { seed: 3, numRuns: 400 },
    );
  });
});

describe('ParameterBuffer', () => {
  it('lays the header past the parameters, 8-byte aligned, and packs only into the parameters', () => {
    const buffer = new ParameterBuffer(F, [
      { offset: 0, size: 8 },
      { offset: 8, size: 4 },
    ]);
    expect([buffer.size, buffer.view.byteLength, buffer.bytes.byteLength]).toEqual([12, 16, 16]);
    expect(() => buffer.view.setBigUint64(16, 1n, true)).toThrow(RangeError); // the header is not reachable through the view
    expect(buffer.params).not.toBeNull();
    const none = new ParameterBuffer(F, []);
    expect([none.size, none.view.byteLength, none.params]).toEqual([0, 0, null]);
    // the launch owns the bytes (a launch function), and a batch copies parameters and header together
    expect(buffer.queued).toBeTypeOf('function');
    expect(buffer.record.byteLength).toBe(16 + 48);
    expect(buffer.record.buffer).toBe(buffer.view.buffer);
    expect(none.record.byteLength).toBe(48);
  });
});
