// The readable option names of tensor maps and the driver's enums: each name
// is its constant's own suffix, every constant of cuda.h is reachable (the
// packed sub-byte data types aside), and each data type has its dtype's size.
import { driver } from '@cuda-js/bindings';
import { dtype } from '@cuda-js/memory-view';
import { describe, expect, it } from 'vitest';
import { TensorMapError } from '../errors.js';
import {
  lookUpName,
  TENSOR_MAP_DATA_TYPES,
  TENSOR_MAP_INTERLEAVES,
  TENSOR_MAP_L2_PROMOTIONS,
  TENSOR_MAP_OOB_FILLS,
  TENSOR_MAP_SWIZZLES,
} from './tensor-map-options.js';

/** The constants of a generated enum object (its reverse-lookup keys left out). */
function constants(enumObject: object): Record<string, number> {
  return Object.fromEntries(
    Object.entries(enumObject).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
  );
}

/** Checks that `values[name]` is the constant `prefix + suffix(name)`, and that every constant but `unmapped` has a name. */
function expectMapping(
  values: Record<string, number>,
  enumObject: object,
  prefix: string,
  suffix: (name: string) => string,
  unmapped: string[] = [],
): void {
  const all = constants(enumObject);
  for (const [name, value] of Object.entries(values)) expect(all[prefix + suffix(name)], name).toBe(value);
  const named = new Set(Object.keys(values).map((name) => prefix + suffix(name)));
  expect(Object.keys(all).filter((c) => !named.has(c))).toEqual(unmapped);
}

describe('tensor map option names', () => {
  it('name the driver constants', () => {
    const upper = (name: string) => name.toUpperCase();
    expectMapping(TENSOR_MAP_INTERLEAVES, driver.CUtensorMapInterleave, 'CU_TENSOR_MAP_INTERLEAVE_', upper);
    expectMapping(
      Object.fromEntries(Object.entries(TENSOR_MAP_SWIZZLES).map(([n, s]) => [n, s.value])),
      driver.CUtensorMapSwizzle,
      'CU_TENSOR_MAP_SWIZZLE_',
      upper,
    );
    expectMapping(TENSOR_MAP_L2_PROMOTIONS, driver.CUtensorMapL2promotion, 'CU_TENSOR_MAP_L2_PROMOTION_', (n) =>
      n === 'none' ? 'NONE' : `L2_${n.toUpperCase()}`,
    );
    expectMapping(TENSOR_MAP_OOB_FILLS, driver.CUtensorMapFloatOOBfill, 'CU_TENSOR_MAP_FLOAT_OOB_FILL_', upper);
    expectMapping(
      Object.fromEntries(Object.entries(TENSOR_MAP_DATA_TYPES).map(([n, t]) => [n, t.value])),
      driver.CUtensorMapDataType,
      'CU_TENSOR_MAP_DATA_TYPE_',
      upper,
      [
        'CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B',
        'CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B',
        'CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B',
      ],
    );
  });

  it("give each data type its dtype's size, and each swizzle its span", () => {
    for (const [name, type] of Object.entries(TENSOR_MAP_DATA_TYPES)) {
      const base = name.replace(/_ftz$/, '').replace(/^tfloat32$/, 'float32');
      expect(type.itemsize, name).toBe(dtype(base).itemsize);
      expect(type.float, name).toBe(base.startsWith('float') || base === 'bfloat16');
    }
    expect(Object.fromEntries(Object.entries(TENSOR_MAP_SWIZZLES).map(([n, s]) => [n, s.span]))).toEqual({
      none: Infinity,
      '32B': 32,
      '64B': 64,
      '128B': 128,
      '128B_atom_32B': 128,
      '128B_atom_32B_flip_8B': 128,
      '128B_atom_64B': 128,
    });
  });

  it('refuses an unknown name, listing the known ones', () => {
    expect(lookUpName(TENSOR_MAP_INTERLEAVES, '16B', 'interleave')).toEqual({ name: '16B', entry: 1 });
    for (const bad of ['16b', 'NONE', 'toString', '__proto__', 0, undefined, null]) {
      expect(() => lookUpName(TENSOR_MAP_INTERLEAVES, bad, 'interleave'), String(bad)).toThrow(TensorMapError);
    }
    expect(() => lookUpName(TENSOR_MAP_L2_PROMOTIONS, '512B', 'l2Promotion')).toThrow(
      "l2Promotion must be one of 'none', '64B', '128B', '256B'; got '512B'",
    );
  });
});
