import {
  Buffer,
  bf16,
  bool,
  f16,
  f32,
  f64,
  i16,
  i32,
  i64,
  i8,
  u16,
  u32,
  u64,
  u8,
  type MemoryResource,
} from '@cuda-js/core';
import {
  CUDA_ARRAY_INTERFACE,
  DLPACK,
  DLPACK_DEVICE,
  StridedMemoryView,
  type CudaArrayInterface,
  type DLDataType,
  type DLPackRequest,
  type DLPackTensor,
} from '@cuda-js/memory-view';
// scijs and stdlib ndarrays are viewed through the host adapters, which their subpath registers.
import '@cuda-js/memory-view/adapters';
import { describe, expect, it } from 'vitest';
import { KernelArgumentError } from '../errors.js';
import { arrayType, typeName, type JitType } from '../typing/jit-types.js';
import { argumentTypes, type LaunchTarget } from './argument-types.js';

const names = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`);
const typesOf = (args: unknown[], target: LaunchTarget = 'gpu'): string[] =>
  argumentTypes(args, names(args.length), target).map(typeName);
const typeOf = (arg: unknown, target: LaunchTarget = 'gpu'): JitType => argumentTypes([arg], ['x'], target)[0]!;

/** A DLPack exporter, as docs/protocols.md tells a third-party author to write one; counts its exports and deletions. */
class DLPackArray {
  exports = 0;
  deleted = 0;
  readonly requests: (DLPackRequest | undefined)[] = [];
  constructor(
    readonly data: ArrayBuffer | bigint,
    readonly shape: number[],
    readonly dtype: DLDataType = { code: 2, bits: 32, lanes: 1 },
    readonly strides: number[] | null = null,
    readonly flags = 0,
  ) {}
  get deviceType(): number {
    return typeof this.data === 'bigint' ? 2 : 1;
  }
  [DLPACK_DEVICE](): [number, number] {
    return [this.deviceType, 0];
  }
  [DLPACK](request?: DLPackRequest): DLPackTensor {
    this.exports++;
    this.requests.push(request);
    return {
      version: { major: 1, minor: 3 },
      flags: this.flags,
      device: { type: this.deviceType, id: 0 },
      data: this.data,
      dtype: this.dtype,
      shape: this.shape,
      strides: this.strides,
      deleter: () => void this.deleted++,
    };
  }
}

/** A device array that speaks only the CUDA array interface; counts the calls. */
class CaiArray {
  calls = 0;
  constructor(private readonly answer: CudaArrayInterface) {}
  [CUDA_ARRAY_INTERFACE](): CudaArrayInterface {
    this.calls++;
    return this.answer;
  }
}

const frozenCai = (fields: Partial<CudaArrayInterface>): CudaArrayInterface =>
  Object.freeze({
    shape: Object.freeze([4]),
    typestr: '<f4',
    data: Object.freeze([0x1000n, false] as const),
    strides: null,
    version: 3,
    ...fields,
  });

describe('argumentTypes: scalars', () => {
  it('types JS numbers as f64, bigints as i64, booleans as bool', () => {
    expect(typesOf([1, 1.5, -0, Number.NaN, 7n, true, false])).toEqual([
      'f64',
      'f64',
      'f64',
      'f64',
      'i64',
      'bool',
      'bool',
    ]);
  });

  it('types core Scalars by their own type', () => {
    expect(
      typesOf([
        i8(1),
        u8(1),
        i16(1),
        u16(1),
        i32(1),
        u32(1),
        i64(1n),
        u64(1n),
        f16(1),
        bf16(1),
        f32(1),
        f64(1),
        bool(true),
      ]),
    ).toEqual(['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f16', 'bf16', 'f32', 'f64', 'bool']);
  });

  it('refuses values that are not kernel arguments, naming the argument', () => {
    expect(() => argumentTypes([1, 'no'], ['a', 'b'], 'gpu')).toThrow("argument 'b' (2 of 2): cannot pass string");
    expect(() => typeOf(null)).toThrow('cannot pass null');
    expect(() => typeOf(undefined)).toThrow('cannot pass undefined');
    expect(() => typeOf(() => 0)).toThrow('cannot pass function');
    expect(() => typeOf([1, 2, 3])).toThrow('a JS Array is not an array of numbers in memory');
    expect(() => typeOf({})).toThrow(/not an array that cuda-js can view/);
  });

  it('refuses a wrong argument count, listing the parameters', () => {
    expect(() => argumentTypes([1], ['a', 'x', 'y'], 'gpu')).toThrow(KernelArgumentError);
    expect(() => argumentTypes([1], ['a', 'x', 'y'], 'gpu')).toThrow(
      'the kernel takes 3 argument(s) (a, x, y), 1 were given',
    );
  });
});

describe('argumentTypes: host arrays', () => {
  it('types typed arrays as 1-D C arrays of their element type, on both targets', () => {
    const arrays = [
      new Int8Array(2),
      new Uint8Array(2),
      new Uint8ClampedArray(2),
      new Int16Array(2),
      new Uint16Array(2),
      new Int32Array(2),
      new Uint32Array(2),
      new BigInt64Array(2),
      new BigUint64Array(2),
      new Float32Array(2),
      new Float64Array(2),
    ];
    const expected = ['i8', 'u8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64'].map(
      (t) => `array(${t}, 1, 'C')`,
    );
    expect(typesOf(arrays, 'gpu')).toEqual(expected);
    expect(typesOf(arrays, 'simulator')).toEqual(expected);
    expect(typeOf(new Float32Array(4))).toBe(arrayType('f32', 1, 'C')); // canonical: === compares types
  });

  it('types a typed array by the engine kind, not by its constructor property (issue 20: a Float32Array with an own constructor was float64)', () => {
    const owned = new Float32Array(4);
    Object.defineProperty(owned, 'constructor', { value: Float64Array });
    expect(typeName(typeOf(owned))).toBe(typeName(typeOf(new Float32Array(4))));
    const swapped = new Int32Array(4);
    Object.setPrototypeOf(swapped, Float64Array.prototype);
    expect(typeName(typeOf(swapped, 'simulator'))).toBe(typeName(typeOf(new Int32Array(4), 'simulator')));
    class Samples extends Float32Array {}
    expect(typeName(typeOf(new Samples(2)))).toBe(typeName(typeOf(new Float32Array(2))));
    // a look-alike whose constructor is Float64Array is no array
    expect(() => typeOf({ constructor: Float64Array, length: 4 })).toThrow(KernelArgumentError);
  });

  it('views other host memory: Node Buffers, DataViews and ArrayBuffers as bytes', () => {
    expect(typesOf([globalThis.Buffer.from([1, 2]), new DataView(new ArrayBuffer(8)), new ArrayBuffer(4)])).toEqual(
      Array(3).fill("array(u8, 1, 'C')"),
    );
  });

  it("gives host StridedMemoryViews their layout: 'C', 'F' (2-D and up) or 'A', and read-only where they are", () => {
    const data = new Float64Array(24);
    const c = StridedMemoryView.fromBuffer(data, { dtype: 'float64', shape: [4, 6] });
    const f = StridedMemoryView.fromBuffer(data, { dtype: 'float64', shape: [4, 6], strides: [1, 4] });
    const a = c.slice(null, [0, undefined, 2]);
    const oneD = StridedMemoryView.fromBuffer(data, { dtype: 'float64', shape: [12], strides: [2] });
    const threeD = StridedMemoryView.fromBuffer(data, { dtype: 'float64', shape: [2, 3, 4] });
    const ro = StridedMemoryView.fromBuffer(new Int32Array(6), { dtype: 'int32', shape: [2, 3], readonly: true });
    expect(typesOf([c, f, a, oneD, threeD, ro], 'simulator')).toEqual([
      "array(f64, 2, 'C')",
      "array(f64, 2, 'F')",
      "array(f64, 2, 'A')",
      "array(f64, 1, 'A')",
      "array(f64, 3, 'C')",
      "array(i32, 2, 'C') readonly",
    ]);
    // cached per view: the same canonical object each time
    expect(typeOf(f)).toBe(typeOf(f));
  });

  it('views scijs and stdlib ndarrays', () => {
    const scijs = { data: new Float32Array(12), shape: [3, 4], stride: [1, 3], offset: 0, dtype: 'float32' };
    const stdlib = {
      data: new Int16Array(6),
      dtype: 'int16',
      shape: [2, 3],
      strides: [3, 1],
      offset: 0,
      order: 'row-major',
    };
    expect(typesOf([scijs, stdlib], 'simulator')).toEqual(["array(f32, 2, 'F')", "array(i16, 2, 'C')"]);
  });

  it('views host DLPack exporters without synchronizing, and gives their export back at once', () => {
    const array = new DLPackArray(new ArrayBuffer(48), [3, 4], { code: 0, bits: 32, lanes: 1 }, [1, 3]);
    expect(typeName(typeOf(array, 'simulator'))).toBe("array(i32, 2, 'F')");
    expect([array.exports, array.deleted]).toEqual([1, 1]);
    const ro = new DLPackArray(new ArrayBuffer(16), [4], undefined, null, 1);
    expect(typeName(typeOf(ro))).toBe("array(f32, 1, 'C') readonly");
  });
});

describe('argumentTypes: device arrays', () => {
  const device = (shape: number[], options: { dtype?: string; strides?: number[]; readonly?: boolean } = {}) =>
    StridedMemoryView.fromPointer(0x10000n, {
      dtype: options.dtype ?? 'float32',
      shape,
      ...(options.strides ? { strides: options.strides } : {}),
      readonly: options.readonly ?? false,
    });

  it('types device StridedMemoryViews for the GPU, and refuses them in the simulator', () => {
    expect(
      typesOf([device([8]), device([2, 3], { strides: [1, 2] }), device([4, 4], { dtype: 'uint64', readonly: true })]),
    ).toEqual(["array(f32, 1, 'C')", "array(f32, 2, 'F')", "array(u64, 2, 'C') readonly"]);
    expect(() => typeOf(device([8]), 'simulator')).toThrow(
      "argument 'x' (1 of 1): the array is on CUDA:0, which the simulator cannot read",
    );
  });

  it('reads a CUDA array interface answer, once per frozen answer', () => {
    const frozen = new CaiArray(
      frozenCai({ shape: Object.freeze([2, 3]), strides: Object.freeze([4, 8]), typestr: '<i4' }),
    );
    expect(typeName(typeOf(frozen))).toBe("array(i32, 2, 'F')");
    const calls = frozen.calls;
    expect(typeName(typeOf(frozen))).toBe("array(i32, 2, 'F')");
    expect(frozen.calls).toBe(calls + 1); // the answer is asked for, and found known
    const fresh = new CaiArray({ shape: [5], typestr: '<f8', data: [0x2000n, true], version: 3 });
    expect(typeName(typeOf(fresh))).toBe("array(f64, 1, 'C') readonly");
    const withStream = new CaiArray({ shape: [5], typestr: '<u2', data: [0x2000n, false], version: 3, stream: 7 });
    expect(typeName(typeOf(withStream))).toBe("array(u16, 1, 'C')"); // typing waits for nothing
    expect(() => typeOf(frozen, 'simulator')).toThrow(
      'a CUDA array interface object is device memory, which the simulator cannot read',
    );
    expect(() => typeOf(new CaiArray({ shape: [5], typestr: '<f4', data: [0x2000n, false], version: 2 }))).toThrow(
      /not a CUDA array that cuda-js can view \(CUDA array interface version 2/,
    );
  });

  it('views device DLPack exporters, asking for no synchronization', () => {
    const array = new DLPackArray(0x3000n, [16]);
    expect(typeName(typeOf(array))).toBe("array(f32, 1, 'C')");
    expect(array.requests[0]?.stream).toBe(-1n);
    expect(array.deleted).toBe(1);
    expect(() => typeOf(array, 'simulator')).toThrow('which the simulator cannot read');
  });

  it('refuses a core Buffer: bytes without an element type', () => {
    const resource = {
      isDeviceAccessible: true,
      isHostAccessible: false,
      device: undefined,
      deallocate: () => undefined,
    } as unknown as MemoryResource;
    const buffer = new Buffer(0x4000n, 64, resource, 0n);
    expect(() => typeOf(buffer)).toThrow(
      "a Buffer is bytes with no element type; pass a typed view of it: StridedMemoryView.fromAny(buffer, { stream }).view({ dtype: 'float32', shape })",
    );
    buffer.close();
  });
});

describe('argumentTypes: f16 and bf16 arrays', () => {
  it('types views of dtype float16 and bfloat16 (over a Uint16Array of bits) as f16 and bf16 arrays; a Uint16Array alone is u16', () => {
    const bits = new Uint16Array(8);
    expect(typeName(typeOf(StridedMemoryView.fromAny(bits).view({ dtype: 'float16' })))).toBe("array(f16, 1, 'C')");
    expect(
      typeName(typeOf(StridedMemoryView.fromAny(bits).view({ dtype: 'bfloat16', shape: [2, 4] }), 'simulator')),
    ).toBe("array(bf16, 2, 'C')");
    expect(typeName(typeOf(bits))).toBe("array(u16, 1, 'C')");
    expect(typeName(typeOf(new DLPackArray(new ArrayBuffer(64), [2], { code: 4, bits: 16, lanes: 1 })))).toBe(
      "array(bf16, 1, 'C')",
    );
  });
});

describe('argumentTypes: what kernels cannot take', () => {
  it.each([
    ['complex64', { code: 5, bits: 64, lanes: 1 }],
    ['float32x4', { code: 2, bits: 32, lanes: 4 }],
    ['float8_e4m3fn', { code: 10, bits: 8, lanes: 1 }],
  ])('refuses arrays of %s, naming the argument and the dtype', (name, dtype) => {
    const array = new DLPackArray(new ArrayBuffer(64), [2], dtype);
    expect(() => argumentTypes([1, array], ['a', 'x'], 'gpu')).toThrow(KernelArgumentError);
    expect(() => argumentTypes([1, array], ['a', 'x'], 'gpu')).toThrow(
      `argument 'x' (2 of 2): arrays of ${name} are not supported by kernels (they take bool, int8,`,
    );
  });

  it('refuses 0-d and 4-d arrays, and closed views', () => {
    expect(() => typeOf(StridedMemoryView.fromBuffer(new Float32Array(1), { dtype: 'float32', shape: [] }))).toThrow(
      'the array has 0 dimension(s); kernels take arrays of 1 to 3',
    );
    expect(() =>
      typeOf(StridedMemoryView.fromBuffer(new Float32Array(16), { dtype: 'float32', shape: [2, 2, 2, 2] })),
    ).toThrow('the array has 4 dimension(s)');
    const view = StridedMemoryView.fromBuffer(new Float32Array(4));
    view.close();
    expect(() => typeOf(view)).toThrow('the view is closed');
  });
});
