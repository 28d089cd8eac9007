import { DeviceArray, f32 } from '@cuda-js/core';
import { InvalidLayoutError } from '@cuda-js/memory-view';
import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { KernelArgumentError } from '../errors.js';
import { jit } from '../jit.js';
import type { KernelArray } from '../kernel-array.js';
import { deviceArray, deviceArrayLike, mappedArray, pinnedArray, toDevice } from './device-arrays.js';
import { vectorize } from './vectorize.js';

const target = 'simulator';

describe("numba's array makers for the simulator (DeviceArrays over host memory)", () => {
  it('toDevice copies, a kernel takes the array directly and copyToHost gives the result', () => {
    const source = Float32Array.from({ length: 300 }, (_, i) => i);
    const d = toDevice(source, { target });
    expect(d).toBeInstanceOf(DeviceArray);
    source[0] = 99; // a copy: the array keeps 0
    const scale = jit(
      (a: number, x: Float32Array) => {
        const i = cuda.grid(1);
        if (i < x.length) x[i] = a * x[i]!;
      },
      { target },
    );
    scale.launch({ grid: 2, block: 256 }, f32(3), d);
    const back = d.copyToHost() as Float32Array;
    expect(Array.from(back)).toEqual(Array.from({ length: 300 }, (_, i) => 3 * i));
  });

  it('deviceArray, deviceArrayLike, pinnedArray and mappedArray have the shape and dtype asked (a scalar maker or a dtype name)', () => {
    const m = deviceArray([3, 4], f32, { target });
    expect([m.shape, m.dtype.name]).toEqual([[3, 4], 'float32']);
    expect(deviceArray(5, 'int64', { target }).dtype.name).toBe('int64');
    const like = deviceArrayLike(new Float64Array(7), { target });
    expect([like.shape, like.dtype.name]).toEqual([[7], 'float64']);
    expect(deviceArrayLike(m, { target }).shape).toEqual([3, 4]);
    expect(pinnedArray([2], 'uint8', { target }).nbytes).toBe(2);
    expect(mappedArray([2, 2], 'int32', { target }).typedArray()).toBeInstanceOf(Int32Array);
    expect(() => deviceArray(3, (() => 0) as never, { target })).toThrow(KernelArgumentError);
  });

  it('a 2-D device array goes to kernels with its shape; vectorize gives a DeviceArray for DeviceArray inputs', () => {
    const grid = toDevice(new Float64Array(12).fill(1), { target }).reshape([3, 4]);
    const fill = jit(
      (g: KernelArray<'f64', 2>) => {
        const [i, j] = cuda.grid(2);
        if (i < g.shape[0]! && j < g.shape[1]!) g.set(i, j, i * 10 + j);
      },
      { target },
    );
    fill.launch({ grid: [1, 1], block: [4, 4] }, grid);
    const add = vectorize(['float64(float64, float64)'], (a: number, b: number) => a + b, { target });
    const sum = add(grid, 0.5) as DeviceArray;
    expect(sum).toBeInstanceOf(DeviceArray);
    expect(sum.shape).toEqual([3, 4]);
    expect(Array.from(sum.copyToHost() as Float64Array)).toEqual(
      [0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23].map((v) => v + 0.5),
    );
  });

  it('toDevice and deviceArrayLike take JS lists as numba takes Python lists: numbers float64, bigints int64, nested lists n-D', () => {
    const d = toDevice([1, 10, 234], { target });
    expect(d.dtype.name).toBe('float64');
    expect(Array.from(d.copyToHost() as Float64Array)).toEqual([1, 10, 234]);
    const m = toDevice(
      [
        [1n, 2n, 3n],
        [4n, 5n, 6n],
      ],
      { target },
    );
    expect(m.dtype.name).toBe('int64');
    expect(m.shape).toEqual([2, 3]);
    expect(Array.from(m.copyToHost() as BigInt64Array)).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    expect(deviceArrayLike([[0.5], [1.5]], { target }).shape).toEqual([2, 1]);
    expect(() => toDevice([[1, 2], [3]], { target })).toThrow(
      /toDevice: the list is not rectangular \(\[1\] should be a list of 2\)/,
    );
    expect(() => toDevice([1, 2n], { target })).toThrow(/all numbers \(float64\) or all bigints \(int64\)/);
  });
});

describe('array makers given shapes that describe no array (hostile input)', () => {
  it.each([
    ['a negative extent', [-1]],
    ['a fractional extent', 1.5],
    ['NaN', [Number.NaN]],
    ['more than 2^53 elements', [2 ** 31, 2 ** 31, 2 ** 31]],
    ['a string', '3'],
    ['65 dimensions', Array(65).fill(1)],
  ])(
    '%s is an InvalidLayoutError, in the simulator as on the GPU (before any device), not an engine RangeError',
    (_what, shape) => {
      for (const options of [{ target: 'simulator' as const }, { target: 'gpu' as const }]) {
        expect(() => deviceArray(shape as never, 'float64', options)).toThrow(InvalidLayoutError);
        expect(() => DeviceArray.allocate(shape as never, 'float64')).toThrow(InvalidLayoutError);
      }
    },
  );

  it('an array larger than a JS buffer holds is a KernelArgumentError in the simulator, naming its size', () => {
    expect(() => deviceArray([2 ** 30, 2 ** 22], 'float64', { target })).toThrow(KernelArgumentError);
    expect(() => deviceArray([2 ** 30, 2 ** 22], 'float64', { target })).toThrow(
      /of float64 is \d+ bytes, which the simulator cannot allocate/,
    );
  });

  it('a JS list that contains itself, nests past 64 levels, has holes or lies about its length is refused at once', () => {
    const itself: unknown[] = [];
    itself.push(itself); // walked for ever, growing its shape
    expect(() => toDevice(itself, { target })).toThrow(/nests deeper than 64 levels \(or contains itself\)/);
    let deep: unknown = [1];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => toDevice(deep, { target })).toThrow(KernelArgumentError);
    // 2^31 holes: each was walked and kept before the element check
    expect(() => toDevice(new Array(2 ** 31), { target })).toThrow(/\[0\] is a hole or undefined/);
    const lying = new Proxy([1, 2], { get: (t, k, r) => (k === 'length' ? 2 ** 32 - 1 : Reflect.get(t, k, r)) });
    expect(() => toDevice(lying, { target })).toThrow(/\[2\] is a hole or undefined/);
    expect(() =>
      deviceArrayLike(
        [
          [1, 2],
          [3, 'x'],
        ],
        { target },
      ),
    ).toThrow(/\[1\]\[1\] is string/);
  });

  it('reads a shape once: a Proxy that answers again with other extents does not change the array', () => {
    let reads = 0;
    const shape = new Proxy([2, 3], {
      get(t, k, r) {
        if (k === '0') reads++;
        return k === '0' && reads > 1 ? 1e12 : Reflect.get(t, k, r);
      },
    });
    expect(deviceArray(shape, 'float32', { target }).shape).toEqual([2, 3]);
  });
});
