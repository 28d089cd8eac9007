// On a GPU: lowered kernels compiled and run, checking typed-ir.ts's
// semantics where the CPU cannot judge them (saturating conversions, integer
// division edge cases, shift masking, the math formulas, laziness, loops),
// and both compile routes, with their times printed.
import { Device, LaunchPlan, type ArgumentSlot, type Buffer } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import type { Stream } from '@cuda-js/streams';
import { describeGpu } from '@cuda-js/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  KernelBuilder,
  binary,
  breakTo,
  compare,
  continueTo,
  convert,
  exprStmt,
  f64,
  i32,
  i64,
  ifStmt,
  logical,
  loop,
  math,
  select,
  special,
} from '../lower/ir-builders.test-support.js';
import { lowerKernel } from '../lower/lower-kernel.js';
import type { ScalarName } from '../typing/jit-types.js';
import type { TypedKernel } from '../typing/typed-ir.js';
import { compileKernel, compileKernelAsync, type CompiledKernel } from './compile-kernel.js';
import type { KernelCompileOptions } from './kernel-compile-options.js';

type HostArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

const DTYPES: Readonly<Record<ScalarName, string>> = {
  bool: 'bool',
  i8: 'int8',
  u8: 'uint8',
  i16: 'int16',
  u16: 'uint16',
  i32: 'int32',
  u32: 'uint32',
  i64: 'int64',
  u64: 'uint64',
  f16: 'float16',
  bf16: 'bfloat16',
  f32: 'float32',
  f64: 'float64',
};

describeGpu('lowered kernels on a GPU', () => {
  let device: Device;
  let stream: Stream;
  const compiled: CompiledKernel[] = [];
  beforeAll(() => {
    device = Device.get(0).setCurrent();
    stream = device.createStream();
  });
  afterAll(() => {
    for (const c of compiled) c.objectCode.close();
    stream?.close();
  });

  /** The kernel's argument layout, as its ABI says (what launch/ builds from the params). */
  function layoutOf(kernel: TypedKernel): ArgumentSlot[] {
    return kernel.params.map(
      (p): ArgumentSlot =>
        p.kind === 'scalar'
          ? { kind: 'scalar', type: p.type, name: p.name }
          : {
              kind: 'array',
              ndim: p.type.ndim,
              shape: p.use.shape,
              strides: p.use.strides,
              dtype: DTYPES[p.type.dtype],
              layout: p.type.layout,
              writable: p.use.written,
              name: p.name,
            },
    );
  }

  /** Compiles `kernel`, runs it on one block of `threads` threads with `args` (host arrays are copied in and back), and returns the arrays. */
  function run(
    kernel: TypedKernel,
    args: readonly (HostArray | number | bigint | boolean)[],
    threads = 1,
    options: KernelCompileOptions = {},
  ): HostArray[] {
    const c = compileKernel(lowerKernel(kernel), kernel.symbol, options);
    compiled.push(c);
    const buffers: { host: HostArray; device: Buffer }[] = [];
    const launchArgs = args.map((a, i) => {
      if (typeof a !== 'object') return a;
      const param = kernel.params[i]!;
      const b = device.allocate(a.byteLength, { stream });
      b.copyFrom(a, { stream });
      buffers.push({ host: a, device: b });
      const dtype = param.kind === 'array' ? DTYPES[param.type.dtype] : 'uint8';
      return StridedMemoryView.fromAny(b, { stream: stream.handle }).view({ dtype }).slice([0, a.length]);
    });
    new LaunchPlan(c.kernel, layoutOf(kernel)).run({ grid: 1, block: threads }, stream.handle, launchArgs);
    for (const { host, device: b } of buffers) {
      const bytes = new Uint8Array(b.size);
      b.copyTo(bytes, { stream });
      new Uint8Array(host.buffer, host.byteOffset, host.byteLength).set(bytes.subarray(0, host.byteLength));
      b.close({ stream });
    }
    stream.synchronize();
    return args.filter((a): a is HostArray => typeof a === 'object');
  }

  /** out_k[t] = convert(x[t]) for each target type, one thread per element. */
  function conversions(from: 'f32' | 'f64', targets: readonly ScalarName[]): TypedKernel {
    const k = new KernelBuilder(`conversions_${from}`);
    const x = k.array('x', from, 1, 'C', { written: false });
    const outs = targets.map((t) => k.array(`out_${t}`, t));
    const t = convert('i64', special('tid.x'));
    return k.build(targets.map((to, i) => exprStmt(outs[i]!.store([t], convert(to, x.load(t))))));
  }

  it('converts float→int truncating and saturating, NaN to 0', () => {
    const inputs = [NaN, Infinity, -Infinity, 3e9, -3e9, 3.7, -3.7, 300, -300, 1e20, -0.5, 65535.9];
    const saturate = (v: number, lo: number, hi: number): number =>
      Number.isNaN(v) ? 0 : Math.min(hi, Math.max(lo, Math.trunc(v))) + 0;
    const n = inputs.length;
    const [, i32s, u32s, i8s, u8s, i16s, u16s, i64s, u64s] = run(
      conversions('f32', ['i32', 'u32', 'i8', 'u8', 'i16', 'u16', 'i64', 'u64']),
      [
        Float32Array.from(inputs),
        new Int32Array(n),
        new Uint32Array(n),
        new Int8Array(n),
        new Uint8Array(n),
        new Int16Array(n),
        new Uint16Array(n),
        new BigInt64Array(n),
        new BigUint64Array(n),
      ],
      n,
    );
    const f = inputs.map((v) => Math.fround(v));
    expect([...i32s!]).toEqual(f.map((v) => saturate(v, -(2 ** 31), 2 ** 31 - 1)));
    expect([...u32s!]).toEqual(f.map((v) => saturate(v, 0, 2 ** 32 - 1)));
    expect([...i8s!]).toEqual(f.map((v) => saturate(v, -128, 127)));
    expect([...u8s!]).toEqual(f.map((v) => saturate(v, 0, 255)));
    expect([...i16s!]).toEqual(f.map((v) => saturate(v, -32768, 32767)));
    expect([...u16s!]).toEqual(f.map((v) => saturate(v, 0, 65535)));
    const big = (v: number, lo: bigint, hi: bigint): bigint =>
      Number.isNaN(v)
        ? 0n
        : v === Infinity || v >= Number(hi)
          ? hi
          : v === -Infinity || v <= Number(lo)
            ? lo
            : BigInt(Math.trunc(v));
    expect([...i64s!]).toEqual(f.map((v) => big(v, -(2n ** 63n), 2n ** 63n - 1n)));
    expect([...u64s!]).toEqual(f.map((v) => big(v, 0n, 2n ** 64n - 1n)));
  });

  it('converts to bool as != 0 with NaN false, and back to 0 or 1', () => {
    const k = new KernelBuilder('bools');
    const x = k.array('x', 'f64', 1, 'C', { written: false });
    const out = k.array('out', 'bool');
    const back = k.array('back', 'f64');
    const t = convert('i64', special('tid.x'));
    const kernel = k.build([
      exprStmt(out.store([t], convert('bool', x.load(t)))),
      exprStmt(back.store([t], convert('f64', out.load(t)))),
    ]);
    const inputs = [0, -0, NaN, 1, -2.5, Infinity, 5e-324];
    const [, bools, backs] = run(
      kernel,
      [Float64Array.from(inputs), new Uint8Array(inputs.length), new Float64Array(inputs.length)],
      inputs.length,
    );
    expect([...bools!]).toEqual([0, 0, 0, 1, 1, 1, 1]);
    expect([...backs!]).toEqual([0, 0, 0, 1, 1, 1, 1]);
  });

  it('divides i64 truncating, rem with the dividend sign, MIN / -1 wrapping, and a zero divisor harmlessly', () => {
    const k = new KernelBuilder('division');
    const a = k.array('a', 'i64', 1, 'C', { written: false });
    const b = k.array('b', 'i64', 1, 'C', { written: false });
    const q = k.array('q', 'i64');
    const r = k.array('r', 'i64');
    const t = convert('i64', special('tid.x'));
    const kernel = k.build([
      exprStmt(q.store([t], binary('div', a.load(t), b.load(t)))),
      exprStmt(r.store([t], binary('rem', a.load(t), b.load(t)))),
    ]);
    const MIN = -(2n ** 63n);
    const as = [7n, -7n, 7n, -7n, MIN, MIN, 5n];
    const bs = [2n, 2n, -2n, -2n, -1n, 1n, 0n];
    const [, , qs, rs] = run(
      kernel,
      [BigInt64Array.from(as), BigInt64Array.from(bs), new BigInt64Array(7), new BigInt64Array(7)],
      7,
    );
    expect([...qs!]).toEqual([3n, -3n, -3n, 3n, MIN, MIN, 5n]);
    expect([...rs!]).toEqual([1n, -1n, 1n, -1n, 0n, 0n, 0n]);
  });

  it('takes shift amounts modulo the width', () => {
    const k = new KernelBuilder('shifts');
    const x = k.array('x', 'i32', 1, 'C', { written: false });
    const out = k.array('out', 'i32');
    const shifts = [
      binary('shl', x.load(i64(0)), i32(33)),
      binary('shr', x.load(i64(1)), i32(33)),
      binary('ushr', x.load(i64(1)), i32(33)),
      binary('shl', x.load(i64(0)), i32(-1)),
    ];
    const [, outs] = run(k.build(shifts.map((s, i) => exprStmt(out.store([i64(i)], s)))), [
      Int32Array.from([1, -8]),
      new Int32Array(4),
    ]);
    expect([...outs!]).toEqual([1 << 33, -8 >> 33, (-8 >>> 33) | 0, 1 << -1]);
  });

  it('computes min, max, round, sign, abs, isnan, isfinite and fmod by their formulas', () => {
    const k = new KernelBuilder('formulas');
    const x = k.array('x', 'f64', 1, 'C', { written: false });
    const out = k.array('out', 'f64');
    const flags = k.array('flags', 'bool');
    const at = (i: number) => x.load(i64(i));
    // x = [NaN, 1, 2.5, -2.5, -0, 0.49999999999999994, -5.5, 2, Infinity]
    const values = [
      math('min', at(0), at(1)),
      math('min', at(1), at(0)),
      math('max', at(1), at(0)),
      math('round', at(2)),
      math('round', at(3)),
      math('round', at(5)),
      math('sign', at(4)),
      math('sign', at(3)),
      math('abs', at(4)),
      binary('rem', at(6), at(7)),
      math('sqrt', at(7)),
      math('sign', at(0)),
    ];
    const tests = [
      math('isnan', at(0)),
      math('isnan', at(8)),
      math('isfinite', at(8)),
      math('isfinite', at(1)),
      math('isfinite', at(0)),
    ];
    const kernel = k.build([
      ...values.map((v, i) => exprStmt(out.store([i64(i)], v))),
      ...tests.map((v, i) => exprStmt(flags.store([i64(i)], v))),
    ]);
    const input = Float64Array.from([NaN, 1, 2.5, -2.5, -0, 0.49999999999999994, -5.5, 2, Infinity]);
    const [, outs, bools] = run(kernel, [input, new Float64Array(values.length), new Uint8Array(tests.length)]);
    const round = (v: number) => Math.floor(v) + (v - Math.floor(v) >= 0.5 ? 1 : 0);
    // NaN wins min and max whichever side it is on
    expect([...outs!]).toEqual([
      NaN,
      NaN,
      NaN,
      round(2.5),
      round(-2.5),
      round(0.49999999999999994),
      -0,
      -1,
      0,
      -1.5,
      Math.SQRT2,
      NaN,
    ]);
    expect(Object.is(outs![6], -0)).toBe(true);
    expect([...bools!]).toEqual([1, 0, 0, 1, 0]);
  });

  it('gives f32 libdevice functions within 2 ulp of the correctly rounded value', () => {
    const fns = ['sin', 'cos', 'exp', 'log', 'tanh', 'cbrt'] as const;
    const k = new KernelBuilder('f32_math');
    const x = k.array('x', 'f32', 1, 'C', { written: false });
    const out = k.array('out', 'f32');
    const t = convert('i64', special('tid.x'));
    const n = 64;
    const kernel = k.build(
      fns.map((fn, i) => exprStmt(out.store([binary('add', binary('mul', i64(i), i64(n)), t)], math(fn, x.load(t))))),
    );
    const input = Float32Array.from({ length: n }, (_, i) => 0.1 + i * 0.37);
    const [, outs] = run(kernel, [input, new Float32Array(n * fns.length)], n);
    fns.forEach((fn, i) => {
      for (let j = 0; j < n; j++) {
        const exact = Math.fround(Math[fn](input[j]!));
        const ulp = Math.abs(Math.fround(exact * (1 + 2 ** -23)) - exact) || 2 ** -149;
        expect(Math.abs(Number(outs![i * n + j]) - exact), `${fn}(${input[j]})`).toBeLessThanOrEqual(2 * ulp);
      }
    });
  });

  it('passes bool scalars as bytes, and evaluates && and ?: lazily', () => {
    const k = new KernelBuilder('lazy');
    const flag = k.scalar('flag', 'bool');
    const out = k.array('out', 'i32');
    const kernel = k.build([
      exprStmt(out.store([i64(0)], select(flag.get, i32(1), i32(2)))),
      exprStmt(logical('and', convert('i32', flag.get), out.store([i64(1)], i32(7)))),
      exprStmt(logical('or', convert('i32', flag.get), out.store([i64(2)], i32(9)))),
    ]);
    expect([...run(kernel, [true, Int32Array.from([0, 0, 0])])[0]!]).toEqual([1, 7, 0]);
    expect([...run(kernel, [false, Int32Array.from([0, 0, 0])])[0]!]).toEqual([2, 0, 9]);
  });

  it('runs loops with continue, break and a labelled outer break', () => {
    const k = new KernelBuilder('loops');
    const out = k.array('out', 'i32');
    const i = k.local('i', 'i32');
    const j = k.local('j', 'i32');
    const sum = k.local('sum', 'i32');
    const inc = (v: typeof i) => exprStmt(v.set(binary('add', v.get, i32(1))));
    const kernel = k.build([
      loop(0, {
        test: compare('lt', i.get, i32(100)),
        body: [
          ifStmt(compare('eq', i.get, i32(3)), [continueTo(0)]),
          ifStmt(compare('eq', i.get, i32(7)), [breakTo(0)]),
          exprStmt(sum.set(binary('add', sum.get, i.get))),
        ],
        update: [inc(i)],
      }),
      exprStmt(out.store([i64(0)], sum.get)),
      exprStmt(i.set(i32(0))),
      loop(1, {
        body: [
          exprStmt(j.set(i32(0))),
          loop(2, {
            body: [ifStmt(compare('eq', binary('mul', i.get, j.get), i32(12)), [breakTo(1)]), inc(j)],
            postTest: compare('lt', j.get, i32(10)),
          }),
          inc(i),
        ],
      }),
      exprStmt(out.store([i64(1)], binary('add', binary('mul', i.get, i32(100)), j.get))),
    ]);
    expect([...run(kernel, [new Int32Array(2)])[0]!]).toEqual([0 + 1 + 2 + 4 + 5 + 6, 2 * 100 + 6]);
  });

  it('indexes 2-D C arrays by their extents, and reads them', () => {
    const k = new KernelBuilder('transpose');
    const x = k.array('x', 'f64', 2, 'C', { written: false });
    const out = k.array('out', 'f64', 2, 'C');
    const r = convert('i64', special('tid.y'));
    const c = convert('i64', special('tid.x'));
    const kernel = k.build([
      ifStmt(logical('and', compare('lt', r, x.shape(0)), compare('lt', c, x.shape(1))), [
        exprStmt(out.store([c, r], binary('add', x.load(r, c), f64(0.5)))),
      ]),
    ]);
    const rows = 3;
    const cols = 5;
    const input = Float64Array.from({ length: rows * cols }, (_, i) => i);
    const c2 = compileKernel(lowerKernel(kernel), kernel.symbol);
    compiled.push(c2);
    using bx = device.allocate(input.byteLength, { stream });
    using bo = device.allocate(input.byteLength, { stream });
    bx.copyFrom(input, { stream });
    const xv = StridedMemoryView.fromAny(bx, { stream: stream.handle }).view({ dtype: 'float64', shape: [rows, cols] });
    const ov = StridedMemoryView.fromAny(bo, { stream: stream.handle }).view({ dtype: 'float64', shape: [cols, rows] });
    new LaunchPlan(c2.kernel, layoutOf(kernel)).run({ grid: 1, block: [8, 8, 1] }, stream.handle, [xv, ov]);
    const host = new Float64Array(rows * cols);
    bo.copyTo(host, { stream });
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) expect(host[j * rows + i]).toBe(i * cols + j + 0.5);
  });

  it('gives the same kernel by both routes, and prints how long each takes to a loaded kernel', async () => {
    const k = new KernelBuilder('routes');
    const a = k.scalar('a', 'f32');
    const out = k.array('out', 'f32');
    const t = convert('i64', special('tid.x'));
    const kernel = k.build([exprStmt(out.store([t], binary('mul', a.get, math('exp', convert('f32', t)))))]);
    const ir = lowerKernel(kernel);
    const timings: Record<string, number> = {};
    for (const route of ['ptx', 'cubin'] as const) {
      const start = performance.now();
      const c = compileKernel(ir.replace(/\broutes\b/g, `routes_${route}`), `routes_${route}`, { route });
      timings[route] = performance.now() - start;
      compiled.push(c);
      expect(c.route).toBe(route);
      expect(c.kernel.parameters.map((p) => p.size)).toEqual([4, 8]);
    }
    const start = performance.now();
    const c = await compileKernelAsync(ir.replace(/\broutes\b/g, 'routes_async'), 'routes_async');
    timings['auto (async)'] = performance.now() - start;
    compiled.push(c);
    expect(c.route).toBe('ptx');
    console.log(
      `time to a loaded kernel (libNVVM + load), ms: ${Object.entries(timings)
        .map(([r, ms]) => `${r} ${ms.toFixed(1)}`)
        .join(', ')}`,
    );
    const [res] = run(kernel, [2, new Float32Array(32)], 32, { route: 'cubin' });
    const [resPtx] = run(kernel, [2, new Float32Array(32)], 32, { route: 'ptx' });
    expect([...res!]).toEqual([...resPtx!]);
    expect(res![0]).toBe(2);
  });
});
