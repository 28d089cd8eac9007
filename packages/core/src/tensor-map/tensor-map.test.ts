// The checks behind TensorMapDescriptor, with no GPU: every layout and
// option that cuTensorMapEncodeTiled's documentation refuses is a
// TensorMapError before any driver call (the same error with or without the
// driver library), and every other one is laid out in the driver's order
// (innermost dimension first, strides in bytes) and reaches the driver.
import { driver, LibraryNotFoundError } from '@cuda-js/bindings';
import { DLDeviceType, dtype, StridedMemoryView } from '@cuda-js/memory-view';
import { probeDriver } from '@cuda-js/test-support/driver-probe';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// Through the package's entry, which loads core's modules in the order that resolves their cycles.
import {
  Buffer,
  CoreOptionError,
  DeviceNotFoundError,
  type MemoryResource,
  TensorMapDescriptor,
  TensorMapError,
} from '../index.js';
import { checkReplacement, planTiledTensorMap, type TensorMapTiledOptions } from './tensor-map-layout.js';

/** What the driver is here: absent (no libcuda), present with no device (this machine, CI), or with a device. */
const driverState = probeDriver(driver, (error) => error instanceof LibraryNotFoundError);

/** Asserts that a valid tensor map got past every check of its own and failed, if at all, in the driver lookup. */
function expectDriverReached(make: () => unknown): void {
  let error: unknown;
  try {
    make();
  } catch (e) {
    error = e;
  }
  if (driverState === 'absent') expect(error).toBeInstanceOf(LibraryNotFoundError);
  else if (driverState === 'no device') expect(error).toBeInstanceOf(DeviceNotFoundError);
  // With a GPU but (usually) no current context in a unit test; a context left current by another file is the driver's to judge.
  else if (error instanceof TensorMapError) expect(error.message).toMatch(/no current CUDA context/);
}

const FUZZ = { seed: 7, numRuns: 1500, interruptAfterTimeLimit: 10_000 } as const;
const BASE = 0x7f00_0000_0000n;
const WHAT = 'test';

const view = (
  shape: number[],
  options: { dtype?: string; strides?: number[]; ptr?: bigint; device?: { type: number; id: number } } = {},
) =>
  StridedMemoryView.fromPointer(options.ptr ?? BASE, {
    dtype: options.dtype ?? 'float32',
    shape,
    ...(options.strides && { strides: options.strides }),
    ...(options.device && { device: options.device }),
  });

const plan = (v: StridedMemoryView, options: TensorMapTiledOptions) => planTiledTensorMap(v, options, WHAT);

/** The rules of cuTensorMapEncodeTiled's documentation, written once more, plainly, as the oracle. */
const SIZES: Record<string, number> = {
  uint8: 1,
  uint16: 2,
  uint32: 4,
  int32: 4,
  uint64: 8,
  int64: 8,
  float16: 2,
  float32: 4,
  float64: 8,
  bfloat16: 2,
};
const FLOATS = new Set(['float16', 'float32', 'float64', 'bfloat16', 'float32_ftz', 'tfloat32', 'tfloat32_ftz']);
const OVERRIDE_SIZES: Record<string, number> = { ...SIZES, float32_ftz: 4, tfloat32: 4, tfloat32_ftz: 4 };
const SPANS: Record<string, number> = {
  none: Infinity,
  '32B': 32,
  '64B': 64,
  '128B': 128,
  '128B_atom_32B': 128,
  '128B_atom_32B_flip_8B': 128,
  '128B_atom_64B': 128,
};

interface Case {
  dtype: string;
  shape: number[];
  strides: number[];
  misalign: bigint;
  box: unknown[];
  elementStrides: unknown[] | undefined;
  dataType: string | undefined;
  interleave: string;
  swizzle: string;
  l2Promotion: string;
  oobFill: string;
}

const NAMES = {
  interleave: ['none', '16B', '32B'],
  l2Promotion: ['none', '64B', '128B', '256B'],
  oobFill: ['none', 'nan_request_zero_fma'],
};

/** The first documented rule that `c` breaks, or undefined. */
function violation(c: Case): string | undefined {
  const rank = c.shape.length;
  const type = c.dataType ?? c.dtype;
  const size = c.dataType === undefined ? SIZES[c.dtype] : OVERRIDE_SIZES[c.dataType];
  if (size === undefined) return 'a data type TMA has';
  if (size !== dtype(c.dtype).itemsize) return "the data type has the array's element size";
  if (
    !NAMES.interleave.includes(c.interleave) ||
    !(c.swizzle in SPANS) ||
    !NAMES.l2Promotion.includes(c.l2Promotion) ||
    !NAMES.oobFill.includes(c.oobFill)
  )
    return 'known option names';
  if (rank < 1 || rank > 5) return 'rank 1 to 5';
  const align = c.interleave === '32B' ? 32 : 16;
  if ((BASE + c.misalign) % BigInt(align) !== 0n) return 'aligned address';
  if (c.shape.some((e) => e < 1 || e > 2 ** 32)) return 'extents 1 to 2^32';
  if (c.strides[rank - 1] !== 1 && c.shape[rank - 1] !== 1) return 'contiguous innermost dimension';
  for (let d = 0; d < rank - 1; d++) {
    const bytes = c.strides[d]! * size;
    if (bytes <= 0 || bytes % align !== 0 || bytes >= 2 ** 40)
      return 'strides positive multiples of 16 (32) below 2^40';
  }
  const ints = (list: unknown[], lo: number, hi: number) =>
    list.length === rank && list.every((v) => Number.isInteger(v) && (v as number) >= lo && (v as number) <= hi);
  if (!ints(c.box, 1, 256)) return 'box 1 to 256';
  if (c.elementStrides !== undefined && !ints(c.elementStrides, 1, 8)) return 'element strides 1 to 8';
  if (c.interleave !== 'none' && rank < 3) return 'interleave needs rank 3';
  if (c.interleave === '32B' && c.swizzle !== '32B') return "32B interleave needs swizzle '32B'";
  if (c.interleave === 'none') {
    const inner = (c.box[rank - 1] as number) * size;
    if (inner % 16 !== 0) return 'inner box a multiple of 16 bytes';
    if (inner > SPANS[c.swizzle]!) return 'inner box within the swizzle span';
  }
  if (c.oobFill !== 'none' && !FLOATS.has(type)) return 'NaN fill needs a float type';
  return undefined;
}

// Mostly near the rules' edges, so that both sides of each rule are reached often.
/** Mostly `usual`, now and then `rare`: each rule is broken in a few percent of cases, so that about half of them are valid. */
const mostly = <T, U>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<U>): fc.Arbitrary<T | U> =>
  fc.oneof({ arbitrary: usual, weight: 30 }, { arbitrary: rare, weight: 1 });
const cases: fc.Arbitrary<Case> = fc
  .record({
    dtype: mostly(
      fc.constantFrom(
        'uint8',
        'uint16',
        'float16',
        'bfloat16',
        'float32',
        'int32',
        'uint32',
        'float64',
        'int64',
        'uint64',
      ),
      fc.constantFrom('int8', 'int16', 'complex64', 'bool'),
    ),
    shape: mostly(
      fc.array(mostly(fc.integer({ min: 1, max: 64 }), fc.constantFrom(0, 2 ** 32, 2 ** 32 + 1)), {
        minLength: 1,
        maxLength: 5,
      }),
      fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 6, maxLength: 6 }).map((s) => (s[0]! > 2 ? s : [])),
    ),
    // Rows pitched to a multiple of pitch bytes, then padded.
    pitch: mostly(fc.constantFrom(16, 32), fc.constant(1)),
    paddingBytes: mostly(fc.constantFrom(0, 16, 32), fc.constantFrom(8, 4)),
    innerStride: mostly(fc.constant(1), fc.constantFrom(2, -1)),
    negate: mostly(fc.constant(false), fc.constant(true)),
    misalign: mostly(fc.constantFrom(0n, 16n, 32n, 48n), fc.constantFrom(8n, 4n, 1n)),
    box: fc.array(
      mostly(
        fc.constantFrom(1, 2, 4, 8, 16, 32, 64, 128, 256),
        fc.constantFrom<unknown>(0, -1, 257, 300, 1.5, NaN, '8'),
      ),
      { minLength: 7, maxLength: 7 },
    ),
    elementStrides: fc.option(
      fc.array(mostly(fc.integer({ min: 1, max: 8 }), fc.constantFrom<unknown>(0, 9, 2.5)), {
        minLength: 7,
        maxLength: 7,
      }),
      { nil: undefined },
    ),
    // Mostly one entry per dimension; sometimes one more or one less.
    lengthError: mostly(fc.constant(0), fc.constantFrom(1, -1)),
    dataType: mostly(
      fc.constant(undefined),
      fc.constantFrom('tfloat32', 'float32_ftz', 'tfloat32_ftz', 'uint32', 'float64', 'int8', 'uint16'),
    ),
    interleave: mostly(fc.constant('none'), fc.constantFrom('16B', '32B', '8B')),
    swizzle: mostly(fc.constantFrom('none', '32B', '64B', '128B', '128B_atom_64B'), fc.constantFrom('NONE', '256B')),
    l2Promotion: mostly(fc.constantFrom('none', '64B', '128B', '256B'), fc.constant('512B')),
    oobFill: mostly(fc.constantFrom('none', 'nan_request_zero_fma'), fc.constant('nan')),
  })
  .map((r) => {
    const size = dtype(r.dtype).itemsize;
    // Compact strides over rows of a pitch in bytes (rounded up to whole elements).
    const rank = r.shape.length;
    const strides = new Array<number>(rank);
    let step = 1;
    for (let d = rank - 1; d >= 0; d--) {
      if (d === rank - 1) {
        strides[d] = r.innerStride;
        const rowBytes = Math.ceil((Math.max(1, r.shape[d]!) * size) / r.pitch) * r.pitch + r.paddingBytes;
        step = Math.ceil(rowBytes / size);
      } else {
        strides[d] = step;
        step *= Math.max(1, r.shape[d]!);
      }
    }
    if (r.negate && strides.length > 1) strides[0] = -strides[0]!;
    const length = Math.max(0, rank + r.lengthError);
    const box = r.box.slice(0, length);
    const elementStrides = r.elementStrides?.slice(0, length);
    return {
      dtype: r.dtype,
      shape: r.shape,
      strides,
      misalign: r.misalign,
      box,
      elementStrides,
      dataType: r.dataType,
      interleave: r.interleave,
      swizzle: r.swizzle,
      l2Promotion: r.l2Promotion,
      oobFill: r.oobFill,
    };
  });

function optionsOf(c: Case): TensorMapTiledOptions {
  return {
    box: c.box,
    elementStrides: c.elementStrides,
    dataType: c.dataType,
    interleave: c.interleave,
    swizzle: c.swizzle,
    l2Promotion: c.l2Promotion,
    oobFill: c.oobFill,
  } as unknown as TensorMapTiledOptions;
}

describe('TensorMapDescriptor.tiled and its checks', () => {
  it('refuses exactly what the driver documents as invalid, with a TensorMapError, and lays out the rest innermost first', () => {
    let valid = 0;
    const reasons = new Map<string, number>();
    let invalid = 0;
    fc.assert(
      fc.property(cases, (c) => {
        let v: StridedMemoryView;
        try {
          v = view(c.shape, { dtype: c.dtype, strides: c.strides, ptr: BASE + c.misalign });
        } catch {
          return; // a layout memory-view itself refuses (it would reach past 2^64)
        }
        const broken = violation(c);
        if (broken !== undefined) reasons.set(broken, (reasons.get(broken) ?? 0) + 1);
        if (broken === undefined) {
          valid++;
          const layout = plan(v, optionsOf(c));
          const rank = c.shape.length;
          const size = v.itemsize;
          expect(layout.encode.rank).toBe(rank);
          expect(layout.encode.globalDim).toEqual([...c.shape].reverse());
          expect(layout.encode.globalStrides).toEqual(
            c.strides
              .slice(0, -1)
              .map((s) => s * size)
              .reverse(),
          );
          expect(layout.encode.boxDim).toEqual([...c.box].reverse());
          expect(layout.encode.elementStrides).toEqual(
            c.elementStrides === undefined ? new Array(rank).fill(1) : [...c.elementStrides].reverse(),
          );
          // A failing cuInit takes milliseconds here: every eighth valid case goes on to the driver.
          if (valid % 8 === 1) expectDriverReached(() => TensorMapDescriptor.tiled(v, optionsOf(c)));
        } else {
          invalid++;
          expect(() => plan(v, optionsOf(c))).toThrow(TensorMapError);
          expect(() => TensorMapDescriptor.tiled(v, optionsOf(c))).toThrow(TensorMapError);
        }
      }),
      FUZZ,
    );
    // Both sides were reached often enough to mean something.
    expect(valid).toBeGreaterThan(100);
    expect(invalid).toBeGreaterThan(100);
    // Each rule decided some case on its own (the rarest, 32-byte interleave's swizzle, is checked by name below).
    const rules = [
      'a data type TMA has',
      "the data type has the array's element size",
      'known option names',
      'rank 1 to 5',
      'aligned address',
      'extents 1 to 2^32',
    ];
    rules.push(
      'contiguous innermost dimension',
      'strides positive multiples of 16 (32) below 2^40',
      'box 1 to 256',
      'element strides 1 to 8',
      'interleave needs rank 3',
    );
    rules.push('inner box a multiple of 16 bytes', 'inner box within the swizzle span', 'NaN fill needs a float type');
    for (const rule of rules) expect(reasons.get(rule), rule).toBeGreaterThan(0);
  }, 60_000);

  it('maps the enums and the dtype to the driver constants', () => {
    const layout = plan(view([128, 64]), {
      box: [16, 32],
      swizzle: '128B',
      l2Promotion: '256B',
      oobFill: 'nan_request_zero_fma',
    });
    expect(layout.encode.dataType).toBe(7); // CU_TENSOR_MAP_DATA_TYPE_FLOAT32 in cuda.h
    expect(layout.encode.swizzle).toBe(3); // CU_TENSOR_MAP_SWIZZLE_128B
    expect(layout.encode.l2Promotion).toBe(3); // CU_TENSOR_MAP_L2_PROMOTION_L2_256B
    expect(layout.encode.oobFill).toBe(1); // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
    expect(layout.encode.interleave).toBe(0);
    expect(layout.encode.globalDim).toEqual([64, 128]);
    expect(layout.encode.globalStrides).toEqual([256]);
    expect(layout.encode.boxDim).toEqual([32, 16]);
    expect(layout.spanBytes).toBe(128n * 64n * 4n);
    expect(plan(view([8, 8], { dtype: 'bfloat16' }), { box: [8, 8] }).encode.dataType).toBe(9);
    expect(plan(view([8, 8]), { box: [8, 8], dataType: 'tfloat32' }).dataType).toBe('tfloat32');
  });

  it('refuses an unknown option with the nearest known name (a CoreOptionError) before any other check', () => {
    expect(() => plan(view([64, 64]), { box: [8, 8], swizle: '128B' } as never)).toThrow(CoreOptionError);
    expect(() => plan(view([64, 64]), { box: [8, 8], swizle: '128B' } as never)).toThrow(
      "test: unknown option 'swizle' (did you mean 'swizzle'?); known options: box, elementStrides, dataType, interleave, swizzle, l2Promotion, oobFill",
    );
    expect(() => TensorMapDescriptor.tiled(view([64, 64]), { box: [8, 8], oobfil: 'nan' } as never)).toThrow(
      "TensorMapDescriptor.tiled: unknown option 'oobfil' (did you mean 'oobFill'?)",
    );
  });

  it('says which rule was broken', () => {
    expect(() => plan(view([4, 4], { dtype: 'int8' }), { box: [4, 16] })).toThrow(
      'TMA has no data type for int8 arrays',
    );
    expect(() => plan(view([128, 64], { ptr: BASE + 8n }), { box: [16, 32] })).toThrow('must be 16-byte aligned');
    expect(() => plan(view([128, 62]), { box: [16, 32] })).toThrow(
      'the stride of dimension 0 is 248 bytes; it must be positive, a multiple of 16',
    );
    expect(() => plan(view([128, 64]), { box: [16, 300] })).toThrow(
      'test: box[1] must be an integer from 1 to 256; got 300',
    );
    expect(() => plan(view([128, 64]), { box: [16] })).toThrow('box has 1 entries, but the array has 2 dimension(s)');
    expect(() => plan(view([128, 64]), { box: [16, 2] })).toThrow(
      "the box's inner dimension is 8 bytes (box[1] × 4); it must be a multiple of 16",
    );
    expect(() => plan(view([128, 64]), { box: [16, 64], swizzle: '128B' })).toThrow(
      "swizzle '128B' takes an inner box dimension of at most 128 bytes; the box's is 256",
    );
    expect(() => plan(view([128, 64]), { box: [16, 32], elementStrides: [1, 9] })).toThrow(
      'elementStrides[1] must be an integer from 1 to 8',
    );
    expect(() => plan(view([128, 64]), { box: [16, 32], swizzle: '256B' as never })).toThrow(
      "test: swizzle must be one of 'none', '32B', '64B', '128B'",
    );
    expect(() => plan(view([128, 64]), { box: [16, 32], interleave: '16B' })).toThrow(
      'an interleaved tensor map has at least 3 dimensions',
    );
    expect(() => plan(view([4, 4, 64]), { box: [1, 1, 8], interleave: '32B' })).toThrow(
      "32-byte interleave needs swizzle '32B'",
    );
    expect(() => plan(view([8, 8], { dtype: 'int32' }), { box: [8, 8], oobFill: 'nan_request_zero_fma' })).toThrow(
      'needs a floating-point data type',
    );
    expect(() => plan(view([8, 8]), { box: [8, 8], dataType: 'float64' })).toThrow(
      "dataType 'float64' is 8 bytes per element, the array's float32 is 4",
    );
    expect(() => plan(view([8, 8], { strides: [1, 8] }), { box: [8, 8] })).toThrow(
      'the innermost dimension must be contiguous',
    );
    expect(() => plan(view([1, 1, 1, 1, 1, 4]), { box: [1, 1, 1, 1, 1, 4] })).toThrow(
      'a tensor map has 1 to 5 dimensions; the array has 6',
    );
    expect(() => plan(StridedMemoryView.fromTypedArray(new Float32Array(64)), { box: [16] })).toThrow(
      'host memory the GPU cannot address',
    );
    expect(() => plan(view([8, 8]), undefined as never)).toThrow('options { box, ... } are required');
    const closed = view([8, 8]);
    closed.close();
    expect(() => plan(closed, { box: [8, 8] })).toThrow('the view is closed');
  });
});

/** A device-accessible Buffer at `ptr` that no driver ever sees (a recording stand-in for the memory resource). */
function bufferAt(ptr: bigint, size: number): Buffer {
  const resource: MemoryResource = {
    isDeviceAccessible: true,
    isHostAccessible: false,
    device: undefined,
    allocate: () => {
      throw new Error('not used');
    },
    deallocate: () => undefined,
    deallocateAsync: () => Promise.resolve(),
  };
  return new Buffer(ptr, size, resource, 0n);
}

describe('checkReplacement', () => {
  const layout = plan(view([128, 64]), { box: [16, 32] });
  const other = BASE + 0x10_0000n;

  it('takes an array of the same layout elsewhere, or a Buffer that holds the whole span', () => {
    const v = view([128, 64], { ptr: other });
    expect(checkReplacement(layout, v, 0, WHAT)).toEqual({ address: other, holder: v });
    const b = bufferAt(other, 128 * 64 * 4);
    expect(checkReplacement(layout, b, 0, WHAT)).toEqual({ address: other, holder: b });
    // Pinned and managed memory serve every device.
    expect(
      checkReplacement(layout, view([128, 64], { ptr: other, device: { type: DLDeviceType.CUDAHost, id: 0 } }), 3, WHAT)
        .address,
    ).toBe(other);
  });

  it('refuses anything else: only the address may change', () => {
    expect(() => checkReplacement(layout, view([128, 64], { ptr: other + 8n }), 0, WHAT)).toThrow(
      'must be 16-byte aligned',
    );
    expect(() => checkReplacement(layout, view([64, 64], { ptr: other }), 0, WHAT)).toThrow(
      'only the address can change; the array has shape [64, 64]',
    );
    expect(() => checkReplacement(layout, view([128, 64], { ptr: other, strides: [80, 1] }), 0, WHAT)).toThrow(
      'only the address can change',
    );
    expect(() => checkReplacement(layout, view([64, 128], { ptr: other, strides: [1, 64] }), 0, WHAT)).toThrow(
      TensorMapError,
    );
    expect(() => checkReplacement(layout, view([128, 64], { ptr: other, dtype: 'int32' }), 0, WHAT)).toThrow(
      'the array holds int32; the tensor map was made for float32',
    );
    expect(() =>
      checkReplacement(layout, view([128, 64], { ptr: other, device: { type: DLDeviceType.CUDA, id: 1 } }), 0, WHAT),
    ).toThrow('the array lives on CUDA device 1, but the tensor map is for device 0');
    expect(() => checkReplacement(layout, new Float32Array(128 * 64), 0, WHAT)).toThrow(
      'host memory the GPU cannot address',
    );
    expect(() => checkReplacement(layout, 'nope', 0, WHAT)).toThrow(/not an array that cuda-js can view/);
    expect(() => checkReplacement(layout, bufferAt(other, 128 * 64 * 4 - 1), 0, WHAT)).toThrow(
      'the Buffer holds 32767 bytes; the tensor map spans 32768',
    );
    expect(() => checkReplacement(layout, bufferAt(other + 4n, 1 << 20), 0, WHAT)).toThrow('must be 16-byte aligned');
    const closed = bufferAt(other, 1 << 20);
    closed.close();
    expect(() => checkReplacement(layout, closed, 0, WHAT)).toThrow('the Buffer is closed');
  });
});
