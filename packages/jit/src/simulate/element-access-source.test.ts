import { errorOf } from '@cuda-js/test-support/errors';
import { StridedMemoryView } from '@cuda-js/memory-view';
// scijs and stdlib ndarrays are viewed through the host adapters, which their subpath registers.
import '@cuda-js/memory-view/adapters';
import { describe, expect, test } from 'vitest';
import { SimulatorError } from '../errors.js';
import type { Layout, ScalarName } from '../typing/jit-types.js';
import type { Expr, Stmt } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  TextLocator,
  binary,
  bool,
  compare,
  convert,
  dim,
  expr,
  f64,
  get,
  globalIndexX,
  i32,
  i64,
  load,
  set,
  special,
  store,
  u64,
  when,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

const tid = (axis: 'x' | 'y' | 'z'): Expr => special(`tid.${axis}`);

/** out[i, j(, k)] = in[i, j(, k)] * 2 + 1, one thread per element (block = shape, reversed to x, y, z). */
function doubleKernel(ndim: 1 | 2 | 3, inLayout: Layout, outLayout: Layout): SimulatedKernel {
  const b = new KernelBuilder();
  const input = b.array('input', 'f64', ndim, inLayout, { readonly: true });
  const output = b.array('output', 'f64', ndim, outLayout);
  const axes = (['z', 'y', 'x'] as const).slice(3 - ndim);
  const ix = axes.map(tid);
  const value = binary('add', binary('mul', load(input, 'f64', ix), f64(2)), f64(1));
  return new SimulatedKernel(b.build([expr(store(output, 'f64', ix, value))]), NO_POSITIONS);
}

/** Elements of a view in C order, read through its own strides (the reference). */
function elements(view: StridedMemoryView): number[] {
  const data = new Float64Array(view.buffer!);
  const base = view.byteOffset / 8;
  const out: number[] = [];
  const walk = (d: number, offset: number): void => {
    if (d === view.ndim) return void out.push(data[offset]!);
    for (let k = 0; k < view.shape[d]!; k++) walk(d + 1, offset + k * view.strides[d]!);
  };
  walk(0, base);
  return out;
}

function launchFor(shape: readonly number[]): [number, number, number] {
  const r = [...shape].reverse();
  return [r[0] ?? 1, r[1] ?? 1, r[2] ?? 1];
}

describe('arrays of 1, 2 and 3 dimensions in C, F and A layouts', () => {
  const cases: { name: string; make: () => StridedMemoryView; layout: Layout }[] = [
    {
      name: '1-D C',
      layout: 'C',
      make: () =>
        StridedMemoryView.fromBuffer(
          Float64Array.from({ length: 7 }, (_, k) => k),
          { dtype: 'float64' },
        ),
    },
    {
      name: '1-D A (every second element)',
      layout: 'A',
      make: () =>
        StridedMemoryView.fromBuffer(
          Float64Array.from({ length: 12 }, (_, k) => k),
          { dtype: 'float64' },
        ).slice([1, 12, 2]),
    },
    {
      name: '1-D A (reversed)',
      layout: 'A',
      make: () =>
        StridedMemoryView.fromBuffer(
          Float64Array.from({ length: 6 }, (_, k) => k),
          { dtype: 'float64' },
        ).slice([undefined, undefined, -1]),
    },
    {
      name: '2-D C',
      layout: 'C',
      make: () =>
        StridedMemoryView.fromBuffer(
          Float64Array.from({ length: 12 }, (_, k) => k),
          { dtype: 'float64', shape: [3, 4] },
        ),
    },
    {
      name: '2-D F',
      layout: 'F',
      make: () =>
        StridedMemoryView.fromBuffer(
          Float64Array.from({ length: 12 }, (_, k) => k),
          { dtype: 'float64', shape: [3, 4], strides: [1, 3] },
        ),
    },
    {
      name: '2-D A (a strided slice, one axis reversed)',
      layout: 'A',
      make: () =>
        StridedMemoryView.fromBuffer(
          Float64Array.from({ length: 48 }, (_, k) => k),
          { dtype: 'float64', shape: [6, 8] },
        ).slice([1, 6, 2], [7, undefined, -3]),
    },
    {
      name: '3-D C',
      layout: 'C',
      make: () =>
        StridedMemoryView.fromBuffer(
          Float64Array.from({ length: 24 }, (_, k) => k),
          { dtype: 'float64', shape: [2, 3, 4] },
        ),
    },
    {
      name: '3-D F',
      layout: 'F',
      make: () =>
        StridedMemoryView.fromBuffer(
          Float64Array.from({ length: 24 }, (_, k) => k),
          { dtype: 'float64', shape: [2, 3, 4], strides: [1, 2, 6] },
        ),
    },
    {
      name: '3-D A (a transposed slice)',
      layout: 'A',
      make: () =>
        StridedMemoryView.fromBuffer(
          Float64Array.from({ length: 60 }, (_, k) => k),
          { dtype: 'float64', shape: [3, 4, 5], strides: [1, 3, 12] },
        ).slice(null, [1, 4], [0, 5, 2]),
    },
  ];
  for (const { name, make, layout } of cases) {
    test(`${name}: read in place and written in place`, () => {
      const input = make();
      const ndim = input.ndim as 1 | 2 | 3;
      expect(input.isCContiguous || input.isFContiguous).toBe(layout !== 'A');
      // Output in the same layout over a fresh buffer: the kernel writes through the strides.
      const output = make();
      const before = elements(input);
      doubleKernel(ndim, layout, layout).run([1, 1, 1], launchFor(input.shape), [input, output]);
      expect(elements(output)).toEqual(before.map((x) => x * 2 + 1));
      // And into a compact C array: the element order is the logical one.
      const compact = StridedMemoryView.fromBuffer(new Float64Array(input.size), {
        dtype: 'float64',
        shape: input.shape,
      });
      doubleKernel(ndim, layout, 'C').run([1, 1, 1], launchFor(input.shape), [input, compact]);
      expect([...new Float64Array(compact.buffer!)]).toEqual(before.map((x) => x * 2 + 1));
    });
  }

  test('the strided view writes only its own elements', () => {
    const data = new Float64Array(12);
    const every2 = StridedMemoryView.fromBuffer(data, { dtype: 'float64' }).slice([0, 12, 2]);
    const b = new KernelBuilder();
    const out = b.array('out', 'f64', 1, 'A');
    new SimulatedKernel(b.build([expr(store(out, 'f64', [tid('x')], f64(1)))]), NO_POSITIONS).run(
      [1, 1, 1],
      [6, 1, 1],
      [every2],
    );
    expect([...data]).toEqual([1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]);
  });

  test('a typed array with a byte offset, and other host arrays that views accept', () => {
    const buffer = new ArrayBuffer(64);
    const typed = new Float64Array(buffer, 16, 4); // element 0 is element 2 of the buffer
    typed.set([1, 2, 3, 4]);
    const ndarray = { data: new Float64Array([0, 10, 20, 30, 40, 50]), shape: [3], stride: [2], offset: 1 }; // scijs ndarray: 10, 30, 50
    const stdlib = {
      data: new Float64Array([0, 1, 2, 3, 4, 5]),
      dtype: 'float64',
      shape: [2, 3],
      strides: [3, 1],
      offset: 0,
      order: 'row-major',
    };
    const out1 = new Float64Array(4);
    doubleKernel(1, 'C', 'C').run([1, 1, 1], [4, 1, 1], [typed, out1]);
    expect([...out1]).toEqual([3, 5, 7, 9]);
    expect([...new Float64Array(buffer)].slice(0, 2)).toEqual([0, 0]);
    const out2 = new Float64Array(3);
    doubleKernel(1, 'A', 'C').run([1, 1, 1], [3, 1, 1], [ndarray, out2]);
    expect([...out2]).toEqual([21, 61, 101]);
    const out3 = StridedMemoryView.fromBuffer(new Float64Array(6), { dtype: 'float64', shape: [2, 3] });
    doubleKernel(2, 'C', 'C').run([1, 1, 1], [3, 2, 1], [stdlib, out3]);
    expect([...new Float64Array(out3.buffer!)]).toEqual([1, 3, 5, 7, 9, 11]);
    // An ArrayBuffer is a view of bytes.
    const bytes = new ArrayBuffer(4);
    const b = new KernelBuilder();
    const out = b.array('out', 'u8');
    new SimulatedKernel(
      b.build([expr(store(out, 'u8', [tid('x')], convert('u8', binary('add', tid('x'), i32(250)))))]),
      NO_POSITIONS,
    ).run([1, 1, 1], [4, 1, 1], [bytes]);
    expect([...new Uint8Array(bytes)]).toEqual([250, 251, 252, 253]);
  });

  test("dim reads the extents and the view's strides", () => {
    const view = StridedMemoryView.fromBuffer(new Float64Array(48), { dtype: 'float64', shape: [6, 8] }).slice(
      [1, 6, 2],
      [7, undefined, -3],
    );
    const b = new KernelBuilder();
    const a = b.array('a', 'f64', 2, 'A', { readonly: true });
    const out = b.array('out', 'i64');
    const body: Stmt[] = [0, 1].flatMap((k) => [
      expr(store(out, 'i64', [i32(2 * k)], dim(a, 'shape', k))),
      expr(store(out, 'i64', [i32(2 * k + 1)], dim(a, 'stride', k))),
    ]);
    const host = new BigInt64Array(4);
    new SimulatedKernel(b.build(body), NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [view, host]);
    expect([...host]).toEqual([3n, 16n, 3n, -3n]);
  });
});

describe('element types', () => {
  function roundTrip(
    dtype: ScalarName,
    input: ArrayBufferView,
    output: ArrayBufferView,
    value: (x: Expr) => Expr,
  ): void {
    const b = new KernelBuilder();
    const x = b.array('x', dtype, 1, 'C', { readonly: true });
    const y = b.array('y', dtype);
    const i = tid('x');
    const kernel = b.build([expr(store(y, dtype, [i], value(load(x, dtype, [i]))))]);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [(input as Uint8Array).length, 1, 1], [input, output]);
  }

  test('i8 stores wrap (the typer converts the value to i8 first)', () => {
    const y = new Int8Array(4);
    roundTrip('i8', new Int8Array([100, -100, 127, -128]), y, (x) =>
      convert('i8', binary('mul', convert('i32', x), i32(3))),
    );
    expect([...y]).toEqual([44, -44, 125, -128]);
  });

  test('u16 and u32 elements', () => {
    const y16 = new Uint16Array(2);
    roundTrip('u16', new Uint16Array([65535, 1]), y16, (x) => convert('u16', binary('add', convert('i32', x), i32(1))));
    expect([...y16]).toEqual([0, 2]);
    const y32 = new Uint32Array(2);
    roundTrip('u32', new Uint32Array([2 ** 32 - 1, 5]), y32, (x) => binary('mul', x, x));
    expect([...y32]).toEqual([1, 25]);
  });

  test("bool elements are bytes 0 and 1; a store's value is the bool", () => {
    const b = new KernelBuilder();
    const x = b.array('x', 'bool', 1, 'C', { readonly: true });
    const y = b.array('y', 'bool');
    const z = b.array('z', 'i32');
    const i = tid('x');
    // z[i] = (y[i] = !x[i]) ? 10 : 20
    const stored = store(y, 'bool', [i], compare('eq', load(x, 'bool', [i]), bool(false)));
    const kernel = b.build([
      expr(store(z, 'i32', [i], { op: 'select', type: 'i32', test: stored, then: i32(10), otherwise: i32(20) })),
    ]);
    const ys = new Uint8Array(3);
    const zs = new Int32Array(3);
    const asBool = (bytes: Uint8Array) => StridedMemoryView.fromBuffer(bytes, { dtype: 'bool' });
    new SimulatedKernel(kernel, NO_POSITIONS).run(
      [1, 1, 1],
      [3, 1, 1],
      [asBool(new Uint8Array([0, 1, 2])), asBool(ys), zs],
    );
    expect([...ys]).toEqual([1, 0, 0]); // 2 reads as true
    expect([...zs]).toEqual([10, 20, 20]);
  });

  test('i64 and u64 elements are bigints', () => {
    const y = new BigInt64Array(2);
    roundTrip('i64', new BigInt64Array([2n ** 63n - 1n, -5n]), y, (x) => binary('add', x, i64(1n)));
    expect([...y]).toEqual([-(2n ** 63n), -4n]);
    const u = new BigUint64Array(2);
    roundTrip('u64', new BigUint64Array([0n, 7n]), u, (x) => binary('sub', x, u64(1n)));
    expect([...u]).toEqual([2n ** 64n - 1n, 6n]);
  });

  test('f32 elements', () => {
    const y = new Float32Array(2);
    roundTrip('f32', new Float32Array([16777216, 0.1]), y, (x) =>
      binary('add', x, { op: 'const', type: 'f32', value: 1 }),
    );
    expect([...y]).toEqual([16777216, Math.fround(Math.fround(0.1) + 1)]);
  });

  test('an index held as a bigint (gather through an i64 index array)', () => {
    const b = new KernelBuilder();
    const idx = b.array('idx', 'i64', 1, 'C', { readonly: true });
    const x = b.array('x', 'f64', 1, 'C', { readonly: true });
    const y = b.array('y', 'f64');
    const i = tid('x');
    const kernel = b.build([expr(store(y, 'f64', [i], load(x, 'f64', [load(idx, 'i64', [i])])))]);
    const sim = new SimulatedKernel(kernel, NO_POSITIONS);
    const out = new Float64Array(3);
    sim.run([1, 1, 1], [3, 1, 1], [new BigInt64Array([2n, 0n, 1n]), new Float64Array([10, 20, 30]), out]);
    expect([...out]).toEqual([30, 10, 20]);
    expect(() =>
      sim.run([1, 1, 1], [3, 1, 1], [new BigInt64Array([2n, 2n ** 62n, 1n]), new Float64Array([10, 20, 30]), out]),
    ).toThrow(
      /index 4611686018427387904 \(approximately\) is out of bounds of 'x' \(length 3\), in thread \(1, 0, 0\)/,
    );
  });
});

describe('out-of-bounds accesses raise a SimulatorError at the access', () => {
  const text = [
    'function k(x, y, n) {',
    '  const i = cuda.grid(1);',
    '  y[i] = x[i + 1];',
    '  grid2[i, i] = 0;',
    '}',
  ].join('\n');
  const locator = new TextLocator(text);

  function shiftKernel(): SimulatedKernel {
    const b = new KernelBuilder();
    const n = b.scalar('n', 'i32');
    const x = b.array('x', 'f32', 1, 'C', { readonly: true });
    const y = b.array('y', 'f32');
    const i = b.local('i', 'i32');
    const iv = get(i, 'i32');
    return new SimulatedKernel(
      b.build([
        expr(set(i, globalIndexX())),
        when(compare('lt', iv, get(n, 'i32')), [
          expr(
            store(
              y,
              'f32',
              [iv],
              load(x, 'f32', [binary('add', iv, i32(1))], locator.loc('x[i + 1]')),
              locator.loc('y[i]'),
            ),
          ),
        ]),
      ]),
      locator,
    );
  }

  test('reading one past the end', () => {
    const x = new Float32Array(8).fill(1);
    const y = new Float32Array(8);
    const error = errorOf<unknown>(() => {
      shiftKernel().run([2, 1, 1], [4, 1, 1], [8, x, y]);
    });
    expect(error).toBeInstanceOf(SimulatorError);
    const e = error as SimulatorError;
    expect(e.detail).toBe("index 8 is out of bounds of 'x' (length 8), in thread (3, 0, 0) of block (1, 0, 0)");
    expect([e.file, e.line, e.column]).toEqual(['kernels/test-kernel.js', 3, 10]);
    expect(e.message).toBe(`kernels/test-kernel.js:3:10: ${e.detail}\n  y[i] = x[i + 1];\n         ^`);
    expect([...y]).toEqual([1, 1, 1, 1, 1, 1, 1, 0]); // the threads before the failing one ran
  });

  test('writing outside, and negative indices', () => {
    const x = new Float32Array(9);
    const y = new Float32Array(4);
    expect(() => shiftKernel().run([1, 1, 1], [8, 1, 1], [8, x, y])).toThrow(
      /^kernels\/test-kernel\.js:3:3: index 4 is out of bounds of 'y' \(length 4\), in thread \(4, 0, 0\)/,
    );
    expect(() => shiftKernel().run([1, 1, 1], [8, 1, 1], [-3, x, y])).not.toThrow();
    const b = new KernelBuilder();
    const out = b.array('out', 'f64', 1, 'A');
    const sim = new SimulatedKernel(
      b.build([expr(store(out, 'f64', [binary('sub', tid('x'), i32(1))], f64(1), locator.loc('y[i]')))]),
      locator,
    );
    expect(() => sim.run([1, 1, 1], [2, 1, 1], [new Float64Array(4)])).toThrow(
      /index -1 is out of bounds of 'out' \(length 4\), in thread \(0, 0, 0\)/,
    );
  });

  test('each dimension is checked against its own extent', () => {
    const b = new KernelBuilder();
    const g = b.array('grid2', 'f64', 2, 'C');
    const sim = new SimulatedKernel(
      b.build([expr(store(g, 'f64', [tid('y'), tid('x')], f64(0), locator.loc('grid2[i, i]')))]),
      locator,
    );
    const view = StridedMemoryView.fromBuffer(new Float64Array(12), { dtype: 'float64', shape: [4, 3] }); // 12 elements: [0, 3] would be in the buffer
    expect(() => sim.run([1, 1, 1], [3, 4, 1], [view])).not.toThrow();
    expect(() => sim.run([1, 1, 1], [4, 3, 1], [view])).toThrow(
      "kernels/test-kernel.js:4:3: index 3 is out of bounds for dimension 1 of 'grid2' (shape [4, 3], indices [0, 3]), in thread (3, 0, 0) of block (0, 0, 0)",
    );
  });

  test('an empty array has no element to touch', () => {
    expect(() => shiftKernel().run([1, 1, 1], [1, 1, 1], [1, new Float32Array(0), new Float32Array(1)])).toThrow(
      /index 1 is out of bounds of 'x' \(length 0\)/,
    );
  });
});
