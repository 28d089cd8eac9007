/**
 * The JIT's kernel suite: kernels that together use every construct of the
 * kernel language, each with inputs and a plain-JavaScript reference. The
 * CPU tests compile each to PTX (ptxas is the judge) and run it in the
 * simulator against the reference; the GPU tests run each on the device and
 * compare with the simulator.
 */
import { bfloat16Bits, bfloat16FromBits, float16Bits, float16FromBits } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
// some cases pass scijs ndarrays, which memory-view views once their adapter is imported
import '@cuda-js/memory-view/adapters';
import * as J from '../index.js';
import { jit, type JitKernel, type JitOptions, type JitTarget } from '../index.js';

// Inside kernels the casts take and give numbers; these typed aliases only
// satisfy TypeScript (the kernels' text names f32, i32, ... as the JIT expects).
type Cast = (x: number | boolean | bigint) => number;
const f32 = J.f32 as unknown as Cast;
const f64 = J.f64 as unknown as Cast;
const i32 = J.i32 as unknown as Cast;
const u32 = J.u32 as unknown as Cast;
const u8 = J.u8 as unknown as Cast;
const i16 = J.i16 as unknown as Cast;
const i64 = J.i64 as unknown as (x: number) => bigint;
const { cuda } = J;

/** An n-D host array in the scijs ndarray convention (data, shape, stride, offset, get, set). */
export interface Nd {
  readonly data: Float32Array | Float64Array | Int32Array;
  readonly shape: number[];
  readonly stride: number[];
  readonly offset: number;
  get(...index: number[]): number;
  set(...indexAndValue: number[]): void;
}

export function nd(data: Float32Array | Float64Array | Int32Array, shape: number[], stride?: number[], offset = 0): Nd {
  const strides = stride ?? shape.map((_, k) => shape.slice(k + 1).reduce((a, b) => a * b, 1));
  const at = (index: readonly number[]): number => offset + index.reduce((sum, ix, k) => sum + ix * strides[k]!, 0);
  return {
    data,
    shape,
    stride: strides,
    offset,
    get: (...index: number[]) => data[at(index)]!,
    set: (...iv: number[]) => {
      data[at(iv.slice(0, -1))] = iv[iv.length - 1]!;
    },
  };
}

/** A kernel function with its options, made into a kernel per target by {@link kernelFor}. */
export interface KernelSource {
  readonly fn: (...args: never[]) => unknown;
  readonly options: JitOptions;
}

export interface SuiteCase {
  readonly name: string;
  readonly kernel: KernelSource;
  /** Fresh arguments (each call makes new arrays). */
  readonly args: () => unknown[];
  readonly grid: number | [number, number] | [number, number, number];
  readonly block: number | [number, number] | [number, number, number];
  /** Computes the expected outputs in place, in plain JavaScript. */
  readonly reference: (args: unknown[]) => void;
  /** Positions of the arguments that the kernel writes. */
  readonly outputs: readonly number[];
  /** Relative tolerance for floats where libdevice and Math differ (transcendentals); 0 = exact. */
  readonly tolerance?: number;
  /** Bytes of dynamic shared memory for the launch. */
  readonly sharedMemory?: number;
}

const N = 1000;
const BLOCK = 128;
const GRID = Math.ceil(N / BLOCK);

export function floats(n: number, seed: number, scale = 10): Float32Array {
  const out = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = (s / 2 ** 32 - 0.5) * scale;
  }
  return out;
}

export function ints(n: number, seed: number, lo: number, hi: number): Int32Array {
  const out = new Int32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = lo + (s % (hi - lo + 1));
  }
  return out;
}

const options: JitOptions = { fma: false }; // results then match the simulator bit for bit
export const k = (fn: (...args: never[]) => unknown, extra: JitOptions = {}): KernelSource => ({
  fn,
  options: { ...options, ...extra },
});

const kernels = new Map<string, JitKernel>();

/** The case's kernel for a target (one JitKernel per case and target, so specializations are reused). */
export function kernelFor(c: SuiteCase, target: JitTarget, extra: JitOptions = {}): JitKernel {
  const key = `${c.name}|${target}|${JSON.stringify(extra)}`;
  let kernel = kernels.get(key);
  if (!kernel) kernels.set(key, (kernel = jit(c.kernel.fn, { ...c.kernel.options, ...extra, target })));
  return kernel;
}
export const perThread = (n: number, body: (i: number) => void): void => {
  for (let i = 0; i < n; i++) body(i);
};

export const SUITE: readonly SuiteCase[] = [
  {
    name: 'axpy with an f32 scalar',
    kernel: k(function axpy(a: number, x: Float32Array, y: Float32Array) {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i]! + y[i]!;
    }),
    args: () => [J.f32(2.5), floats(N, 1), floats(N, 2)],
    grid: GRID,
    block: BLOCK,
    outputs: [2],
    reference: ([, x, y]) =>
      perThread(N, (i) => {
        const xs = x as Float32Array,
          ys = y as Float32Array;
        ys[i] = Math.fround(Math.fround(2.5 * xs[i]!) + ys[i]!);
      }),
  },
  {
    name: 'axpy with a plain number (f64), narrowed on store',
    kernel: k((a: number, x: Float32Array, y: Float32Array) => {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i]! + y[i]!;
    }),
    args: () => [1 / 3, floats(N, 3), floats(N, 4)],
    grid: GRID,
    block: BLOCK,
    outputs: [2],
    reference: ([, x, y]) =>
      perThread(N, (i) => {
        (y as Float32Array)[i] = (1 / 3) * (x as Float32Array)[i]! + (y as Float32Array)[i]!;
      }),
  },
  {
    name: 'i32 arithmetic wraps',
    kernel: k((x: Int32Array, out: Int32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        const v = x[i]! * 65536;
        out[i] = v + 2147483647 - x[i]!;
      }
    }),
    args: () => [ints(N, 5, -100000, 100000), new Int32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    reference: ([x, out]) =>
      perThread(N, (i) => {
        const xi = (x as Int32Array)[i]!;
        (out as Int32Array)[i] = ((Math.imul(xi, 65536) + 2147483647) | 0) - xi;
      }),
  },
  {
    name: 'u32 arithmetic wraps',
    kernel: k((x: Uint32Array, out: Uint32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) out[i] = x[i]! * 3 + 4294967295;
    }),
    args: () => [Uint32Array.from(ints(N, 6, 0, 2 ** 30), (v) => v * 3), new Uint32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    reference: ([x, out]) =>
      perThread(N, (i) => {
        (out as Uint32Array)[i] = (Math.imul((x as Uint32Array)[i]!, 3) + 4294967295) >>> 0;
      }),
  },
  {
    name: 'small integer stores wrap (i8, u8, i16)',
    kernel: k((x: Int32Array, a: Int8Array, b: Uint8Array, c: Int16Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        a[i] = x[i]! + 100;
        b[i] = x[i]! * 7;
        c[i] = x[i]! * 1000;
      }
    }),
    args: () => [ints(N, 7, -1000, 1000), new Int8Array(N), new Uint8Array(N), new Int16Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1, 2, 3],
    reference: ([x, a, b, c]) =>
      perThread(N, (i) => {
        const v = (x as Int32Array)[i]!;
        (a as Int8Array)[i] = v + 100;
        (b as Uint8Array)[i] = v * 7;
        (c as Int16Array)[i] = v * 1000;
      }),
  },
  {
    name: 'f32 rounds after every operation',
    kernel: k((x: Float32Array, out: Float32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) out[i] = (x[i]! * 1.1 + 0.1) / 3.3 - x[i]!;
    }),
    args: () => [floats(N, 8), new Float32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    reference: ([x, out]) =>
      perThread(N, (i) => {
        const f = Math.fround,
          v = (x as Float32Array)[i]!;
        (out as Float32Array)[i] = f(f(f(f(v * f(1.1)) + f(0.1)) / f(3.3)) - v);
      }),
  },
  {
    name: 'f64 arithmetic',
    kernel: k((x: Float64Array, out: Float64Array) => {
      const i = cuda.grid(1);
      if (i < x.length) out[i] = x[i]! / 3 + x[i]! * x[i]! - 0.25;
    }),
    args: () => [Float64Array.from(floats(N, 9)), new Float64Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    reference: ([x, out]) =>
      perThread(N, (i) => {
        const v = (x as Float64Array)[i]!;
        (out as Float64Array)[i] = v / 3 + v * v - 0.25;
      }),
  },
  {
    name: 'integer division by Math.trunc and % keep JavaScript signs',
    kernel: k((a: Int32Array, b: Int32Array, q: Int32Array, r: Int32Array) => {
      const i = cuda.grid(1);
      if (i < a.length) {
        q[i] = Math.trunc(a[i]! / b[i]!);
        r[i] = a[i]! % b[i]!;
      }
    }),
    args: () => [
      ints(N, 10, -100000, 100000),
      Int32Array.from(ints(N, 11, -50, 50), (v) => v || 7),
      new Int32Array(N),
      new Int32Array(N),
    ],
    grid: GRID,
    block: BLOCK,
    outputs: [2, 3],
    reference: ([a, b, q, r]) =>
      perThread(N, (i) => {
        const x = (a as Int32Array)[i]!,
          y = (b as Int32Array)[i]!;
        (q as Int32Array)[i] = Math.trunc(x / y);
        (r as Int32Array)[i] = x % y;
      }),
  },
  {
    name: 'i64 from bigints: wrapping multiply, truncating division',
    kernel: k((a: BigInt64Array, c: bigint, out: BigInt64Array, q: BigInt64Array) => {
      const i = cuda.grid(1);
      if (i < a.length) {
        out[i] = a[i]! * a[i]! + c;
        q[i] = a[i]! / 7n + (a[i]! % 5n);
      }
    }),
    args: () => [
      BigInt64Array.from(ints(N, 12, -(2 ** 30), 2 ** 30), (v) => BigInt(v) * 3_000_000_007n),
      123456789012345n,
      new BigInt64Array(N),
      new BigInt64Array(N),
    ],
    grid: GRID,
    block: BLOCK,
    outputs: [2, 3],
    reference: ([a, c, out, q]) =>
      perThread(N, (i) => {
        const v = (a as BigInt64Array)[i]!;
        (out as BigInt64Array)[i] = BigInt.asIntN(64, v * v + (c as bigint));
        (q as BigInt64Array)[i] = v / 7n + (v % 5n);
      }),
  },
  {
    name: 'bitwise operators on i32 and u32',
    kernel: k((x: Int32Array, out: Int32Array, u: Uint32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        const v = x[i]!;
        out[i] = ((v << 3) ^ (v >> 2)) | (~v & 0xff);
        u[i] = v >>> 1;
      }
    }),
    args: () => [ints(N, 13, -(2 ** 31), 2 ** 31 - 1), new Int32Array(N), new Uint32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1, 2],
    reference: ([x, out, u]) =>
      perThread(N, (i) => {
        const v = (x as Int32Array)[i]!;
        (out as Int32Array)[i] = ((v << 3) ^ (v >> 2)) | (~v & 0xff);
        (u as Uint32Array)[i] = v >>> 1;
      }),
  },
  {
    name: 'shift amounts are taken modulo 32',
    kernel: k((x: Int32Array, s: number, out: Int32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) out[i] = (x[i]! << s) + (x[i]! >> (s + 1)) + (x[i]! >>> (s + 32));
    }, {}),
    args: () => [ints(N, 14, -1000000, 1000000), J.i32(33), new Int32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [2],
    reference: ([x, , out]) =>
      perThread(N, (i) => {
        const v = (x as Int32Array)[i]!;
        (out as Int32Array)[i] = (v << 33) + (v >> 34) + (v >>> 65);
      }),
  },
  {
    name: 'comparisons with NaN are false, != is true',
    kernel: k((x: Float32Array, y: Float32Array, out: Int32Array) => {
      const i = cuda.grid(1);
      if (i < x.length)
        out[i] =
          (x[i]! < y[i]! ? 1 : 0) + (x[i]! != y[i]! ? 2 : 0) + (x[i]! === x[i]! ? 4 : 0) + (x[i]! >= y[i]! ? 8 : 0);
    }),
    args: () => {
      const x = floats(N, 15),
        y = floats(N, 16);
      for (let i = 0; i < N; i += 7) x[i] = NaN;
      for (let i = 0; i < N; i += 11) y[i] = NaN;
      for (let i = 3; i < N; i += 13) y[i] = x[i]!;
      return [x, y, new Int32Array(N)];
    },
    grid: GRID,
    block: BLOCK,
    outputs: [2],
    reference: ([x, y, out]) =>
      perThread(N, (i) => {
        const a = (x as Float32Array)[i]!,
          b = (y as Float32Array)[i]!;
        (out as Int32Array)[i] = (a < b ? 1 : 0) + (a != b ? 2 : 0) + (a === a ? 4 : 0) + (a >= b ? 8 : 0);
      }),
  },
  {
    name: '&& and || short-circuit and give values',
    kernel: k((x: Float32Array, n: number, out: Float32Array) => {
      const i = cuda.grid(1);
      if (i < n && x[i]! > 0) out[i] = 1;
      else if (i < n) out[i] = x[i]! || 5;
    }),
    args: () => {
      const x = floats(N, 17);
      for (let i = 0; i < N; i += 5) x[i] = 0;
      return [x, J.i32(N), new Float32Array(N)];
    },
    grid: GRID + 2,
    block: BLOCK,
    outputs: [2],
    reference: ([x, , out]) =>
      perThread(N, (i) => {
        const v = (x as Float32Array)[i]!;
        (out as Float32Array)[i] = v > 0 ? 1 : v || 5;
      }),
  },
  {
    name: 'nested ternaries',
    kernel: k((x: Int32Array, out: Int32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) out[i] = x[i]! < -10 ? -1 : x[i]! > 10 ? 1 : x[i]! === 0 ? 100 : 0;
    }),
    args: () => [ints(N, 18, -20, 20), new Int32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    reference: ([x, out]) =>
      perThread(N, (i) => {
        const v = (x as Int32Array)[i]!;
        (out as Int32Array)[i] = v < -10 ? -1 : v > 10 ? 1 : v === 0 ? 100 : 0;
      }),
  },
  {
    name: 'for loop sums a row (accumulator takes f32 from its elements)',
    kernel: k((x: Float32Array, m: number, out: Float32Array) => {
      const i = cuda.grid(1);
      if (i >= out.length) return;
      let s = 0;
      for (let j = 0; j < m; j++) s += x[i * m + j]!;
      out[i] = s;
    }),
    args: () => [floats(N * 8, 19), J.i32(8), new Float32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [2],
    reference: ([x, , out]) =>
      perThread(N, (i) => {
        let s = 0;
        for (let j = 0; j < 8; j++) s = Math.fround(s + (x as Float32Array)[i * 8 + j]!);
        (out as Float32Array)[i] = s;
      }),
  },
  {
    name: 'while loop with break finds the first large element',
    kernel: k((x: Float32Array, m: number, out: Int32Array) => {
      const i = cuda.grid(1);
      if (i < out.length) {
        let j = 0;
        while (j < m) {
          if (x[i * m + j]! > 3) break;
          j++;
        }
        out[i] = j;
      }
    }),
    args: () => [floats(N * 16, 20), J.i32(16), new Int32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [2],
    reference: ([x, , out]) =>
      perThread(N, (i) => {
        let j = 0;
        while (j < 16 && !((x as Float32Array)[i * 16 + j]! > 3)) j++;
        (out as Int32Array)[i] = j;
      }),
  },
  {
    name: 'do-while counts Collatz steps',
    kernel: k((x: Int32Array, out: Int32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        let v = x[i]!;
        let steps = 0;
        do {
          v = v % 2 === 0 ? v >> 1 : 3 * v + 1;
          steps += 1;
        } while (v > 1);
        out[i] = steps;
      }
    }),
    args: () => [ints(N, 21, 2, 10000), new Int32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    reference: ([x, out]) =>
      perThread(N, (i) => {
        let v = (x as Int32Array)[i]!,
          steps = 0;
        do {
          v = v % 2 === 0 ? v >> 1 : 3 * v + 1;
          steps++;
        } while (v > 1);
        (out as Int32Array)[i] = steps;
      }),
  },
  {
    name: 'labelled break and continue',
    kernel: k((out: Int32Array) => {
      const i = cuda.grid(1);
      if (i >= out.length) return;
      let count = 0;
      outer: for (let a = 0; a < 20; a++) {
        for (let b = 0; b < 20; b++) {
          if ((a * b + i) % 7 === 0) continue outer;
          if (a + b > (i % 30) + 5) break outer;
          count++;
        }
      }
      found: {
        if (count > 10) break found;
        count += 1000;
      }
      out[i] = count;
    }),
    args: () => [new Int32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [0],
    reference: ([out]) =>
      perThread(N, (i) => {
        let count = 0;
        outer: for (let a = 0; a < 20; a++) {
          for (let b = 0; b < 20; b++) {
            if ((a * b + i) % 7 === 0) continue outer;
            if (a + b > (i % 30) + 5) break outer;
            count++;
          }
        }
        if (count <= 10) count += 1000;
        (out as Int32Array)[i] = count;
      }),
  },
  {
    name: 'compound assignments',
    kernel: k((x: Int32Array, out: Int32Array, f: Float64Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        let v = x[i]!;
        v += 3;
        v -= 1;
        v *= 5;
        v %= 1001;
        v <<= 2;
        v >>= 1;
        v &= 0xfff;
        v |= 0x10;
        v ^= 0x3;
        v >>>= 1;
        out[i] = v;
        let g = f[i]!;
        g += 1.5;
        g *= 2;
        g /= 3;
        g **= 2;
        g -= 0.5;
        f[i] = g;
      }
    }),
    args: () => [ints(N, 22, -5000, 5000), new Int32Array(N), Float64Array.from(floats(N, 23))],
    grid: GRID,
    block: BLOCK,
    outputs: [1, 2],
    tolerance: 1e-15,
    reference: ([x, out, f]) =>
      perThread(N, (i) => {
        let v = (x as Int32Array)[i]!;
        v += 3;
        v -= 1;
        v *= 5;
        v %= 1001;
        v <<= 2;
        v >>= 1;
        v &= 0xfff;
        v |= 0x10;
        v ^= 0x3;
        v >>>= 1;
        (out as Int32Array)[i] = v;
        let g = (f as Float64Array)[i]!;
        g += 1.5;
        g *= 2;
        g /= 3;
        g = Math.pow(g, 2);
        g -= 0.5;
        (f as Float64Array)[i] = g;
      }),
  },
  {
    name: 'increments and decrements, prefix and postfix, of locals and elements',
    kernel: k((x: Int32Array, out: Int32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        let a = x[i]!;
        const b = a++;
        const c = ++a;
        const d = a--;
        x[i]!++;
        --x[i]!;
        x[i]!++;
        out[i] = a * 1000 + b * 100 + c * 10 + d;
      }
    }),
    args: () => [ints(N, 24, 0, 9), new Int32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [0, 1],
    reference: ([x, out]) =>
      perThread(N, (i) => {
        const xs = x as Int32Array;
        let a = xs[i]!;
        const b = a++,
          c = ++a,
          d = a--;
        xs[i] = xs[i]! + 1;
        (out as Int32Array)[i] = a * 1000 + b * 100 + c * 10 + d;
      }),
  },
  {
    name: 'Math on f32 through libdevice',
    kernel: k((x: Float32Array, out: Float32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        const v = x[i]!;
        out[i] =
          Math.sqrt(Math.abs(v)) +
          Math.exp(v / 10) +
          Math.log(Math.abs(v) + 1) +
          Math.sin(v) * Math.cos(v) +
          Math.tan(v / 10) +
          Math.atan2(v, 2) +
          Math.pow(Math.abs(v), 1.5) +
          Math.hypot(v, 3) +
          Math.log2(Math.abs(v) + 2) +
          Math.tanh(v) +
          Math.cbrt(v);
      }
    }),
    args: () => [floats(N, 25), new Float32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    tolerance: 2e-5,
    reference: ([x, out]) =>
      perThread(N, (i) => {
        const v = (x as Float32Array)[i]!;
        (out as Float32Array)[i] =
          Math.sqrt(Math.abs(v)) +
          Math.exp(v / 10) +
          Math.log(Math.abs(v) + 1) +
          Math.sin(v) * Math.cos(v) +
          Math.tan(v / 10) +
          Math.atan2(v, 2) +
          Math.pow(Math.abs(v), 1.5) +
          Math.hypot(v, 3) +
          Math.log2(Math.abs(v) + 2) +
          Math.tanh(v) +
          Math.cbrt(v);
      }),
  },
  {
    name: 'Math on f64 through libdevice',
    kernel: k((x: Float64Array, out: Float64Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        const v = x[i]!;
        out[i] =
          Math.asin(v / 10) +
          Math.acos(v / 10) +
          Math.atan(v) +
          Math.sinh(v / 5) +
          Math.cosh(v / 5) +
          Math.expm1(v / 10) +
          Math.log1p(Math.abs(v)) +
          Math.log10(Math.abs(v) + 1) +
          Math.asinh(v) +
          Math.acosh(Math.abs(v) + 1) +
          Math.atanh(v / 11);
      }
    }),
    args: () => [Float64Array.from(floats(N, 26)), new Float64Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    tolerance: 1e-12,
    reference: ([x, out]) =>
      perThread(N, (i) => {
        const v = (x as Float64Array)[i]!;
        (out as Float64Array)[i] =
          Math.asin(v / 10) +
          Math.acos(v / 10) +
          Math.atan(v) +
          Math.sinh(v / 5) +
          Math.cosh(v / 5) +
          Math.expm1(v / 10) +
          Math.log1p(Math.abs(v)) +
          Math.log10(Math.abs(v) + 1) +
          Math.asinh(v) +
          Math.acosh(Math.abs(v) + 1) +
          Math.atanh(v / 11);
      }),
  },
  {
    name: 'exact Math: floor, ceil, round, trunc, sign, min, max, abs, fround',
    kernel: k((x: Float64Array, out: Float64Array, o32: Float32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        const v = x[i]!;
        out[i] =
          Math.floor(v) * 1e6 +
          Math.ceil(v) * 1e4 +
          Math.round(v) * 100 +
          Math.trunc(v) +
          Math.sign(v) / 2 +
          Math.min(v, 1, 2) +
          Math.max(v, -1) +
          Math.abs(v);
        o32[i] = Math.fround(v) * 3;
      }
    }),
    args: () => {
      const x = Float64Array.from(floats(N, 27));
      x[1] = 2.5;
      x[2] = -2.5;
      x[3] = 0.5;
      x[4] = -0.5;
      x[5] = NaN;
      return [x, new Float64Array(N), new Float32Array(N)];
    },
    grid: GRID,
    block: BLOCK,
    outputs: [1, 2],
    reference: ([x, out, o32]) =>
      perThread(N, (i) => {
        const v = (x as Float64Array)[i]!;
        (out as Float64Array)[i] =
          Math.floor(v) * 1e6 +
          Math.ceil(v) * 1e4 +
          Math.round(v) * 100 +
          Math.trunc(v) +
          Math.sign(v) / 2 +
          Math.min(v, 1, 2) +
          Math.max(v, -1) +
          Math.abs(v);
        (o32 as Float32Array)[i] = Math.fround(Math.fround(v) * 3);
      }),
  },
  {
    name: 'integer Math: min, max, abs and sign stay integers',
    kernel: k((x: Int32Array, out: Int32Array) => {
      const i = cuda.grid(1);
      if (i < x.length)
        out[i] = Math.min(x[i]!, 10) * 1000 + Math.max(x[i]!, -10) * 10 + Math.abs(x[i]!) + Math.sign(x[i]!);
    }),
    args: () => [ints(N, 28, -50, 50), new Int32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    reference: ([x, out]) =>
      perThread(N, (i) => {
        const v = (x as Int32Array)[i]!;
        (out as Int32Array)[i] = Math.min(v, 10) * 1000 + Math.max(v, -10) * 10 + Math.abs(v) + Math.sign(v);
      }),
  },
  {
    name: 'Number.isNaN and Number.isFinite',
    kernel: k((x: Float32Array, out: Int32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) out[i] = (Number.isNaN(x[i]!) ? 1 : 0) + (Number.isFinite(x[i]!) ? 2 : 0);
    }),
    args: () => {
      const x = floats(N, 29);
      for (let i = 0; i < N; i += 3) x[i] = NaN;
      for (let i = 1; i < N; i += 7) x[i] = -Infinity;
      return [x, new Int32Array(N)];
    },
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    reference: ([x, out]) =>
      perThread(N, (i) => {
        const v = (x as Float32Array)[i]!;
        (out as Int32Array)[i] = (Number.isNaN(v) ? 1 : 0) + (Number.isFinite(v) ? 2 : 0);
      }),
  },
  {
    name: 'casts: saturating float to int, NaN to 0, wrapping int to int',
    kernel: k(
      (
        x: Float64Array,
        a: Int32Array,
        b: Uint32Array,
        c: Uint8Array,
        d: Int16Array,
        e: Float32Array,
        g: BigInt64Array,
      ) => {
        const i = cuda.grid(1);
        if (i < x.length) {
          a[i] = i32(x[i]!);
          b[i] = u32(x[i]!);
          c[i] = u8(i32(x[i]!));
          d[i] = i16(i32(x[i]!));
          e[i] = f32(x[i]!) + f64(i32(x[i]!));
          g[i] = i64(x[i]!);
        }
      },
    ),
    args: () => {
      const x = Float64Array.from(floats(N, 30, 1e5));
      x[0] = NaN;
      x[1] = Infinity;
      x[2] = -Infinity;
      x[3] = 3e9;
      x[4] = -3e9;
      x[5] = -7.9;
      x[6] = 7.9;
      x[7] = 1e20;
      return [
        x,
        new Int32Array(N),
        new Uint32Array(N),
        new Uint8Array(N),
        new Int16Array(N),
        new Float32Array(N),
        new BigInt64Array(N),
      ];
    },
    grid: GRID,
    block: BLOCK,
    outputs: [1, 2, 3, 4, 5, 6],
    reference: ([x, a, b, c, d, e, g]) =>
      perThread(N, (i) => {
        const v = (x as Float64Array)[i]!;
        const sat = (lo: number, hi: number): number =>
          Number.isNaN(v) ? 0 : Math.min(hi, Math.max(lo, Math.trunc(v)));
        const asI32 = sat(-(2 ** 31), 2 ** 31 - 1);
        (a as Int32Array)[i] = asI32;
        (b as Uint32Array)[i] = sat(0, 2 ** 32 - 1);
        (c as Uint8Array)[i] = asI32 & 0xff;
        (d as Int16Array)[i] = (asI32 << 16) >> 16;
        (e as Float32Array)[i] = Math.fround(Math.fround(v) + asI32);
        (g as BigInt64Array)[i] = Number.isNaN(v)
          ? 0n
          : v >= 2 ** 63
            ? 2n ** 63n - 1n
            : v <= -(2 ** 63)
              ? -(2n ** 63n)
              : BigInt(Math.trunc(v));
      }),
  },
  {
    name: '2-D C layout: transpose with get/set and cuda.grid(2)',
    kernel: k((a: Nd, out: Nd) => {
      const [r, c] = cuda.grid(2);
      if (r < a.shape[0]! && c < a.shape[1]!) out.set(c, r, a.get(r, c) * 2);
    }),
    args: () => [nd(floats(40 * 30, 31), [40, 30]), nd(new Float32Array(30 * 40), [30, 40])],
    grid: [3, 2],
    block: [16, 16],
    outputs: [1],
    reference: ([a, out]) => {
      for (let r = 0; r < 40; r++)
        for (let c = 0; c < 30; c++) (out as Nd).set(c, r, Math.fround((a as Nd).get(r, c) * 2));
    },
  },
  {
    name: '2-D F layout',
    kernel: k((a: Nd, out: Nd) => {
      const [r, c] = cuda.grid(2);
      if (r < a.shape[0]! && c < a.shape[1]!) out.set(r, c, a.get(r, c) + r * 100 + c);
    }),
    args: () => [nd(floats(40 * 30, 32), [40, 30], [1, 40]), nd(new Float32Array(40 * 30), [40, 30], [1, 40])],
    grid: [3, 2],
    block: [16, 16],
    outputs: [1],
    reference: ([a, out]) => {
      for (let r = 0; r < 40; r++)
        for (let c = 0; c < 30; c++) (out as Nd).set(r, c, Math.fround((a as Nd).get(r, c) + r * 100 + c));
    },
  },
  {
    name: '2-D A layout (every other row and column of a larger array)',
    kernel: k((a: Nd, out: Nd) => {
      const [r, c] = cuda.grid(2);
      if (r < out.shape[0]! && c < out.shape[1]!) out.set(r, c, a.get(r, c) - 1);
    }),
    args: () => [nd(floats(80 * 60, 33), [40, 30], [120, 2], 61), nd(new Float32Array(40 * 30), [40, 30])],
    grid: [3, 2],
    block: [16, 16],
    outputs: [1],
    reference: ([a, out]) => {
      for (let r = 0; r < 40; r++)
        for (let c = 0; c < 30; c++) (out as Nd).set(r, c, Math.fround((a as Nd).get(r, c) - 1));
    },
  },
  {
    name: '3-D array with cuda.grid(3), shape, size and ndim',
    kernel: k((a: Nd, out: Nd, info: Int32Array) => {
      const [x, y, z] = cuda.grid(3);
      if (x < a.shape[0]! && y < a.shape[1]! && z < a.shape[2]!)
        out.set(x, y, z, a.get(x, y, z) + x + 10 * y + 100 * z);
      if (x === 0 && y === 0 && z === 0) {
        info[0] = a.shape[0]! * 10000 + a.shape[1]! * 100 + a.shape[2]!;
        info[1] = (a as unknown as { size: number }).size;
        info[2] = (a as unknown as { ndim: number }).ndim;
        info[3] = info.length;
      }
    }),
    args: () => [
      nd(Float64Array.from(floats(6 * 7 * 8, 34)), [6, 7, 8]),
      nd(new Float64Array(6 * 7 * 8), [6, 7, 8]),
      new Int32Array(4),
    ],
    grid: [2, 2, 2],
    block: [4, 4, 4],
    outputs: [1, 2],
    reference: ([a, out, info]) => {
      for (let x = 0; x < 6; x++)
        for (let y = 0; y < 7; y++)
          for (let z = 0; z < 8; z++) (out as Nd).set(x, y, z, (a as Nd).get(x, y, z) + x + 10 * y + 100 * z);
      (info as Int32Array).set([60708, 336, 3, 4]);
    },
  },
  {
    name: 'thread and block indices, dimensions, lane and warp size',
    kernel: k((out: Int32Array, lanes: Int32Array) => {
      const i = cuda.grid(1);
      const total = cuda.gridsize(1);
      if (i < out.length) {
        out[i] =
          cuda.threadIdx.x +
          cuda.blockIdx.x * 1000 +
          cuda.blockDim.x * 1000000 +
          cuda.gridDim.x * 100000000 +
          (total === cuda.blockDim.x * cuda.gridDim.x ? 0 : 1);
        lanes[i] = cuda.laneid + cuda.warpsize * 100 + cuda.threadIdx.y + cuda.blockIdx.z;
      }
    }),
    args: () => [new Int32Array(N), new Int32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [0, 1],
    reference: ([out, lanes]) =>
      perThread(N, (i) => {
        const t = i % BLOCK,
          b = Math.floor(i / BLOCK);
        (out as Int32Array)[i] = t + b * 1000 + BLOCK * 1000000 + GRID * 100000000;
        (lanes as Int32Array)[i] = (t % 32) + 3200;
      }),
  },
  {
    name: 'cuda.fma rounds once',
    kernel: k((x: Float64Array, out: Float64Array) => {
      const i = cuda.grid(1);
      if (i < x.length) out[i] = cuda.fma(x[i]!, x[i]!, -1);
    }),
    args: () => [Float64Array.from({ length: N }, (_, i) => 1 + i * 2 ** -27), new Float64Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    reference: ([, out]) =>
      perThread(N, (i) => {
        // exact in f64: x = 1 + k·2^-27, so x·x - 1 = k·2^-26 + k²·2^-54 needs no rounding for k < 2^26
        const kk = i;
        (out as Float64Array)[i] = kk * 2 ** -26 + kk * kk * 2 ** -54;
      }),
  },
  {
    name: 'bool and bigint scalars, captured constants',
    kernel: k(
      (flag: boolean, base: bigint, out: Float64Array) => {
        const i = cuda.grid(1);
        if (i < out.length) out[i] = (flag ? SCALE : -SCALE) * i + f64(base) + (LIMIT > i ? 1 : 0);
      },
      { constants: { SCALE: 0.5, LIMIT: 100 } },
    ),
    args: () => [true, 1000n, new Float64Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [2],
    reference: ([, , out]) =>
      perThread(N, (i) => {
        (out as Float64Array)[i] = 0.5 * i + 1000 + (100 > i ? 1 : 0);
      }),
  },
  {
    name: 'mandelbrot (2-D, loops, f32)',
    kernel: k(function mandelbrot(out: Nd, maxIterations: number) {
      const [row, col] = cuda.grid(2);
      const h = out.shape[0]!,
        w = out.shape[1]!;
      if (row >= h || col >= w) return;
      const cr = f32(-2 + (3 * col) / w),
        ci = f32(-1.5 + (3 * row) / h);
      let zr = f32(0),
        zi = f32(0);
      let n = 0;
      while (n < maxIterations && zr * zr + zi * zi <= 4) {
        const t = zr * zr - zi * zi + cr;
        zi = 2 * zr * zi + ci;
        zr = t;
        n++;
      }
      out.set(row, col, n);
    }),
    args: () => [nd(new Int32Array(48 * 64), [48, 64]), J.i32(100)],
    grid: [3, 4],
    block: [16, 16],
    outputs: [0],
    reference: ([out]) => {
      const f = Math.fround;
      for (let row = 0; row < 48; row++)
        for (let col = 0; col < 64; col++) {
          const cr = f(-2 + (3 * col) / 64),
            ci = f(-1.5 + (3 * row) / 48);
          let zr = 0,
            zi = 0,
            n = 0;
          while (n < 100 && f(f(zr * zr) + f(zi * zi)) <= 4) {
            const t = f(f(f(zr * zr) - f(zi * zi)) + cr);
            zi = f(f(f(2 * zr) * zi) + ci);
            zr = t;
            n++;
          }
          (out as Nd).set(row, col, n);
        }
    },
  },
  {
    name: 'code as compilers write it: a namespace object and (0, ns.f)(x)',
    kernel: k((x: Float32Array, out: Float32Array) => {
      const i = J.cuda.grid(1);
      // a call through a sequence expression, (0, f)(x)
      if (i < x.length) out[i] = (0, J.f32)(x[i]! * 2) as unknown as number;
    }),
    args: () => [floats(N, 35), new Float32Array(N)],
    grid: GRID,
    block: BLOCK,
    outputs: [1],
    reference: ([x, out]) =>
      perThread(N, (i) => {
        (out as Float32Array)[i] = Math.fround((x as Float32Array)[i]! * 2);
      }),
  },
];

declare const SCALE: number;
declare const LIMIT: number;

/** Deep copies of a case's arguments (typed arrays and ndarray-likes are copied; scalars kept). */
/**
 * A 1-D f16 or bf16 host array: a view of dtype float16 or bfloat16 over the
 * bits of a Uint16Array (Node 20 has no Float16Array), holding `values`
 * rounded to the type.
 */
export function halfArray(dtype: 'float16' | 'bfloat16', values: ArrayLike<number>): StridedMemoryView {
  const bits = Uint16Array.from(values, dtype === 'float16' ? float16Bits : bfloat16Bits);
  return StridedMemoryView.fromAny(bits).view({ dtype });
}

/** The bits of a {@link halfArray} (its own memory, to read or write in place). */
export function halfBits(view: unknown): Uint16Array {
  const v = view as StridedMemoryView;
  return new Uint16Array(v.buffer as ArrayBuffer, v.byteOffset, v.shape[0]);
}

/** The values of a {@link halfArray}. */
export function halfValues(view: unknown): number[] {
  const decode = (view as StridedMemoryView).dtype.name === 'float16' ? float16FromBits : bfloat16FromBits;
  return [...halfBits(view)].map(decode);
}

export function cloneArgs(args: readonly unknown[]): unknown[] {
  return args.map((a) => {
    if (a instanceof StridedMemoryView) return StridedMemoryView.fromAny(halfBits(a).slice()).view({ dtype: a.dtype });
    if (ArrayBuffer.isView(a) && !(a instanceof DataView)) return (a as unknown as { slice(): unknown }).slice();
    if (a !== null && typeof a === 'object' && 'stride' in a) {
      const n = a as Nd;
      return nd(n.data.slice() as Nd['data'], [...n.shape], [...n.stride], n.offset);
    }
    return a;
  });
}

/** The data of an output argument, for comparison. */
export function outputData(arg: unknown): ArrayLike<number | bigint> {
  if (arg instanceof StridedMemoryView) return halfValues(arg);
  if (arg !== null && typeof arg === 'object' && 'stride' in arg) return (arg as Nd).data;
  return arg as ArrayLike<number | bigint>;
}

/** Compares two outputs exactly (NaN equals NaN) or within a relative tolerance; returns the first difference. */
export function firstDifference(
  actual: ArrayLike<number | bigint>,
  expected: ArrayLike<number | bigint>,
  tolerance = 0,
): string | undefined {
  if (actual.length !== expected.length) return `length ${actual.length} vs ${expected.length}`;
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!,
      e = expected[i]!;
    if (typeof a === 'bigint' || typeof e === 'bigint') {
      if (a !== e) return `[${i}]: ${a} vs ${e}`;
      continue;
    }
    if (Object.is(a, e) || (Number.isNaN(a) && Number.isNaN(e)) || a === e) continue;
    if (tolerance > 0 && Math.abs(a - e) <= tolerance * Math.max(1, Math.abs(e))) continue;
    return `[${i}]: ${a} vs ${e}`;
  }
  return undefined;
}
