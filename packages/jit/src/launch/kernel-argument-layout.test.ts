import { LaunchPlan, type KernelParameter } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { describe, expect, it } from 'vitest';
import { arrayType } from '../typing/jit-types.js';
import type { KernelParam } from '../typing/typed-ir.js';
import { kernelArgumentLayout } from './kernel-argument-layout.js';

const PARAMS: readonly KernelParam[] = [
  { kind: 'scalar', name: 'a', type: 'f32', local: 0 },
  { kind: 'array', name: 'x', type: arrayType('f32', 1, 'C'), use: { shape: true, strides: false, written: false } },
  { kind: 'scalar', name: 'flag', type: 'bool', local: 1 },
  { kind: 'array', name: 'y', type: arrayType('f64', 2, 'A'), use: { shape: true, strides: true, written: true } },
  {
    kind: 'array',
    name: 'z',
    type: arrayType('i32', 3, 'F', true),
    use: { shape: false, strides: false, written: false },
  },
];

/** The parameters of the kernel's ABI as the C ABI lays them out: each aligned to its size. */
function abiParameters(sizes: readonly number[]): KernelParameter[] {
  let offset = 0;
  return sizes.map((size) => {
    offset = Math.ceil(offset / size) * size;
    const p = { offset, size };
    offset += size;
    return p;
  });
}

describe('kernelArgumentLayout', () => {
  it('gives core one slot per parameter: scalars by type, arrays with what the kernel receives of them', () => {
    expect(kernelArgumentLayout(PARAMS)).toEqual([
      { kind: 'scalar', type: 'f32', name: 'a' },
      { kind: 'array', ndim: 1, shape: true, strides: false, dtype: 'f32', layout: 'C', writable: false, name: 'x' },
      { kind: 'scalar', type: 'bool', name: 'flag' },
      { kind: 'array', ndim: 2, shape: true, strides: true, dtype: 'f64', layout: 'A', writable: true, name: 'y' },
      { kind: 'array', ndim: 3, shape: false, strides: false, dtype: 'i32', layout: 'F', writable: false, name: 'z' },
    ]);
  });

  it('packs into the TypedKernel ABI: a (f32), x (ptr, n0), flag (i8), y (ptr, n0, n1, s0, s1), z (ptr)', () => {
    const sizes = [4, 8, 8, 1, 8, 8, 8, 8, 8, 8];
    const parameters = abiParameters(sizes);
    const plan = new LaunchPlan({ handle: 0x42n, name: 'k', parameters }, kernelArgumentLayout(PARAMS));
    const x = StridedMemoryView.fromPointer(0x1000n, { dtype: 'float32', shape: [10] });
    const y = StridedMemoryView.fromPointer(0x2000n, { dtype: 'float64', shape: [3, 4], strides: [8, 2] });
    const z = StridedMemoryView.fromPointer(0x3000n, {
      dtype: 'int32',
      shape: [2, 3, 4],
      strides: [1, 2, 6],
      readonly: true,
    });
    plan.pack([1.5, x, true, y, z], 1n);
    const bytes = plan.parameterBytes;
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const at = (i: number) => parameters[i]!.offset;
    expect(v.getFloat32(at(0), true)).toBe(1.5);
    expect([v.getBigUint64(at(1), true), v.getBigInt64(at(2), true)]).toEqual([0x1000n, 10n]);
    expect(v.getUint8(at(3))).toBe(1);
    expect([4, 5, 6, 7, 8].map((i) => v.getBigInt64(at(i), true))).toEqual([0x2000n, 3n, 4n, 8n, 2n]);
    expect(v.getBigUint64(at(9), true)).toBe(0x3000n);
    // a view of the wrong element type or layout is refused by the packer, by name
    expect(() => plan.pack([1.5, y, true, y, z], 1n)).toThrow(
      "k: argument 1 ('x'): the array has 2 dimension(s), the kernel takes 1",
    );
    expect(() => plan.pack([1.5, x, true, y, x], 1n)).toThrow(
      "argument 4 ('z'): the array has 1 dimension(s), the kernel takes 3",
    );
  });
});
