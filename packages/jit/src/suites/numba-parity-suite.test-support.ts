/**
 * Kernels for numba-cuda features the kernel language has in numba's own
 * spelling (issue 18): `cuda.fp16`, `fastMath`, views and captured
 * globals. Each case has inputs and a plain-JavaScript reference; the CPU
 * test runs them in the simulator and compiles them through libNVVM and
 * ptxas (checking the instructions each feature stands for), the GPU test
 * runs them on the device against the same reference.
 */
import { float16Bits, float16FromBits, roundToFloat16 } from '@cuda-js/core';
import * as J from '../index.js';
import {
  floats,
  halfArray,
  halfBits,
  k,
  nd,
  type KernelSource,
  type Nd,
  type SuiteCase,
} from './kernel-suite.test-support.js';

const { cuda } = J;
// the kernels name the dtype f32 (a scalar maker); inside kernels it is a dtype token
const f32 = J.f32 as unknown as J.DtypeToken;
const f16 = roundToFloat16;

/** Elements per thread of the fp16 kernel: one result per cuda.fp16 function. */
export const FP16_RESULTS = 29;
const FP16_N = 256;

/** The inputs of the fp16 kernel: values of both signs, zeros, a NaN and infinities among them. */
function fp16Inputs(seed: number): number[] {
  const values = [...floats(FP16_N, seed, 8)].map(f16);
  values[3] = Number.NaN;
  values[7] = 0;
  values[8] = -0;
  values[11] = Number.POSITIVE_INFINITY;
  values[12] = 65504;
  return values;
}

const fround = Math.fround;

/** What each cuda.fp16 function gives, in plain JavaScript (the f32 function rounded to f16 for the math ones). */
export function fp16Reference(a: number, b: number, c: number): number[] {
  const x = Math.abs(a);
  const fma = f16(a * b + c); // exact product and sum of three f16 values, then one rounding: exact in f64 except at extremes
  const max = a > b || Number.isNaN(b) ? a : b;
  const min = a < b || Number.isNaN(b) ? a : b;
  const bool = (v: boolean): number => (v ? 1 : 0);
  return [
    f16(a + b),
    f16(a - b),
    f16(a * b),
    f16(a / b),
    fma,
    -a,
    x,
    bool(a === b),
    bool(a !== b),
    bool(a > b),
    bool(a >= b),
    bool(a < b),
    bool(a <= b),
    max,
    min,
    f16(fround(Math.sin(a))),
    f16(fround(Math.cos(a))),
    f16(fround(Math.log(x))),
    f16(fround(Math.log2(x))),
    f16(fround(Math.log10(x))),
    f16(fround(Math.exp(a))),
    f16(fround(2 ** a)),
    f16(fround(10 ** a)),
    f16(fround(Math.sqrt(x))),
    f16(fround(1 / fround(Math.sqrt(x)))),
    Math.ceil(a),
    Math.floor(a),
    f16(fround(1 / a)),
    Math.trunc(a),
  ];
}

const fp16Kernel: KernelSource = k((a: Uint16Array, b: Uint16Array, c: Uint16Array, out: Uint16Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  const x = a[i]!,
    y = b[i]!,
    z = c[i]!;
  const ax = cuda.fp16.habs(x);
  const o = i * 29;
  out[o] = cuda.fp16.hadd(x, y);
  out[o + 1] = cuda.fp16.hsub(x, y);
  out[o + 2] = cuda.fp16.hmul(x, y);
  out[o + 3] = cuda.fp16.hdiv(x, y);
  out[o + 4] = cuda.fp16.hfma(x, y, z);
  out[o + 5] = cuda.fp16.hneg(x);
  out[o + 6] = ax;
  out[o + 7] = cuda.fp16.heq(x, y) ? 1 : 0;
  out[o + 8] = cuda.fp16.hne(x, y) ? 1 : 0;
  out[o + 9] = cuda.fp16.hgt(x, y) ? 1 : 0;
  out[o + 10] = cuda.fp16.hge(x, y) ? 1 : 0;
  out[o + 11] = cuda.fp16.hlt(x, y) ? 1 : 0;
  out[o + 12] = cuda.fp16.hle(x, y) ? 1 : 0;
  out[o + 13] = cuda.fp16.hmax(x, y);
  out[o + 14] = cuda.fp16.hmin(x, y);
  out[o + 15] = cuda.fp16.hsin(x);
  out[o + 16] = cuda.fp16.hcos(x);
  out[o + 17] = cuda.fp16.hlog(ax);
  out[o + 18] = cuda.fp16.hlog2(ax);
  out[o + 19] = cuda.fp16.hlog10(ax);
  out[o + 20] = cuda.fp16.hexp(x);
  out[o + 21] = cuda.fp16.hexp2(x);
  out[o + 22] = cuda.fp16.hexp10(x);
  out[o + 23] = cuda.fp16.hsqrt(ax);
  out[o + 24] = cuda.fp16.hrsqrt(ax);
  out[o + 25] = cuda.fp16.hceil(x);
  out[o + 26] = cuda.fp16.hfloor(x);
  out[o + 27] = cuda.fp16.hrcp(x);
  out[o + 28] = cuda.fp16.htrunc(x);
});

/** numba's cuda.fp16 functions, on f16 arrays. */
export const FP16_CASE: SuiteCase = {
  name: 'cuda.fp16: arithmetic, comparisons, hmax/hmin and math',
  kernel: fp16Kernel,
  args: () => [
    halfArray('float16', fp16Inputs(11)),
    halfArray('float16', fp16Inputs(23)),
    halfArray('float16', fp16Inputs(37)),
    halfArray('float16', new Array<number>(FP16_N * FP16_RESULTS).fill(0)),
  ],
  grid: FP16_N / 64,
  block: 64,
  reference: (args) => {
    const [a, b, c] = args.slice(0, 3).map((v) => [...halfBits(v)].map((bits) => float16FromBits(bits)));
    const out = halfBits(args[3]);
    for (let i = 0; i < FP16_N; i++) {
      fp16Reference(a![i]!, b![i]!, c![i]!).forEach((value, r) => {
        out[i * FP16_RESULTS + r] = float16Bits(value);
      });
    }
  },
  outputs: [3],
};

// ---- fastMath ----

/** The functions of the fastMath kernel, in the order of its results. */
export const FAST_MATH_FUNCTIONS = ['sin', 'cos', 'tan', 'exp', 'log', 'log2', 'log10', 'pow'] as const;
const FAST_N = 512;

/** Inputs where libdevice documents the fast forms' errors: x in [-π, π] (trigonometry and exp), p in [0.5, 2] (logarithms, pow's base), y in [-2, 2]. */
export function fastMathInputs(): { x: Float32Array; p: Float32Array; y: Float32Array } {
  const x = floats(FAST_N, 5, 2 * Math.PI);
  const p = floats(FAST_N, 9, 1.5).map((v) => Math.fround(1.25 + v));
  const y = floats(FAST_N, 13, 4);
  return { x, p, y };
}

export const fastMathKernel = (x: Float32Array, p: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  const o = i * 8;
  out[o] = Math.sin(x[i]!);
  out[o + 1] = Math.cos(x[i]!);
  out[o + 2] = Math.tan(x[i]! / 4); // in [-π/4, π/4], where cos is at least 0.7
  out[o + 3] = Math.exp(x[i]!);
  out[o + 4] = Math.log(p[i]!);
  out[o + 5] = Math.log2(p[i]!);
  out[o + 6] = Math.log10(p[i]!);
  out[o + 7] = p[i]! ** y[i]!;
};

/**
 * Where a fastMath result is off by more than libdevice documents for the
 * fast forms (against f64 Math), or undefined. Bounds: sin and cos 2^-21.41
 * absolute on [-π, π]; exp (2 + floor(|1.173·x|)) ulp; log 2^-21.41, log2
 * 2^-22 and log10 2^-24 absolute on [0.5, 2]; tan (sin/cos, on [-π/4, π/4])
 * and pow (exp2(y·log2(p))) compound their parts' errors: 2^-19 absolute and
 * 2^-19 relative. CUDA states its bounds from extensive testing, not
 * proof, so each is allowed twice over (`margin`); a wrong function, or
 * an approximation far worse than documented, still fails the check.
 */
export function fastMathError(
  x: Float32Array,
  p: Float32Array,
  y: Float32Array,
  out: Float32Array,
  margin = 2,
): string | undefined {
  const ulp = (v: number): number => 2 ** (Math.floor(Math.log2(Math.abs(v))) - 23);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i]!,
      pi = p[i]!,
      yi = y[i]!;
    const checks: [string, number, number, number][] = [
      ['sin', out[i * 8]!, Math.sin(xi), 2 ** -21.41],
      ['cos', out[i * 8 + 1]!, Math.cos(xi), 2 ** -21.41],
      ['tan', out[i * 8 + 2]!, Math.tan(Math.fround(xi / 4)), 2 ** -19],
      ['exp', out[i * 8 + 3]!, Math.exp(xi), (2 + Math.floor(Math.abs(1.173 * xi))) * ulp(Math.exp(xi))],
      ['log', out[i * 8 + 4]!, Math.log(pi), 2 ** -21.41],
      ['log2', out[i * 8 + 5]!, Math.log2(pi), 2 ** -22],
      ['log10', out[i * 8 + 6]!, Math.log10(pi), 2 ** -24 + ulp(Math.log10(pi) || 1) / 2],
      ['pow', out[i * 8 + 7]!, pi ** yi, 2 ** -19 * pi ** yi],
    ];
    for (const [fn, got, exact, bound] of checks) {
      if (!(Math.abs(got - exact) <= margin * bound))
        return `${fn} at element ${i}: ${got}, exactly ${exact}, off by ${Math.abs(got - exact)} > ${margin} × ${bound}`;
    }
  }
  return undefined;
}

export const fastMathSource: KernelSource = { fn: fastMathKernel, options: { fastMath: true } };
export const FAST_MATH_N = FAST_N;

// ---- captured globals ----

/** A host array that kernels read by name, as numba reads a global NumPy array (from constant memory). */
export const PRICES = Float64Array.from({ length: 24 }, (_, i) => 10 + 0.25 * i * i);
/** A plain array of numbers is an f64 table too. */
export const WEIGHTS = [0.5, 1, 2, 4];

const CAPTURED_N = 300;

/** Reads two host arrays of the constants directly, in the kernel and in a device function it calls. */
export const CAPTURED_HOST_ARRAYS_CASE: SuiteCase = (() => {
  const weighted = J.jit.device((k: number) => WEIGHTS[k % WEIGHTS.length]! * PRICES[k % PRICES.length]!, {
    constants: { WEIGHTS, PRICES },
  });
  return {
    name: 'host arrays in the constants read directly (PRICES[i]), from constant memory',
    kernel: k(
      (x: Float32Array, out: Float64Array) => {
        const i = cuda.grid(1);
        if (i < out.length) out[i] = x[i]! * PRICES[i % PRICES.length]! + weighted(i);
      },
      { constants: { PRICES, WEIGHTS, weighted } },
    ),
    args: () => [floats(CAPTURED_N, 3), new Float64Array(CAPTURED_N)],
    grid: Math.ceil(CAPTURED_N / 128),
    block: 128,
    reference: (args) => {
      const [x, out] = args as [Float32Array, Float64Array];
      for (let i = 0; i < out.length; i++)
        out[i] = x[i]! * PRICES[i % PRICES.length]! + WEIGHTS[i % WEIGHTS.length]! * PRICES[i % PRICES.length]!;
    },
    outputs: [1],
  };
})();

// ---- views ----

type Rows = J.KernelArray<'f32', 2>;

const ROWS = 12;
const COLUMNS = 9;

/** numba's test_slice_as_arg: each row of a 2-D array passed to a device function as a 1-D view (`inp[i, :]`). */
export const ROW_VIEWS_CASE: SuiteCase = (() => {
  const copyScaled = J.jit.device((src: J.KernelArray<'f32', 1>, dst: J.KernelArray<'f32', 1>) => {
    for (let j = 0; j < dst.length; j++) dst[j] = src[j]! * 2 + j;
  });
  return {
    name: 'row views of 2-D arrays passed to a device function (numba inp[i, :])',
    kernel: k(
      (inp: Rows, out: Rows, sums: Float32Array) => {
        const i = cuda.grid(1);
        if (i >= inp.shape[0]!) return;
        copyScaled(inp.row(i), out.row(i));
        const row = inp.row(i);
        let s = 0;
        for (let j = 0; j < row.length; j++) s += row[j]!;
        sums[i] = s;
      },
      { constants: { copyScaled } },
    ),
    args: () => [
      nd(floats(ROWS * COLUMNS, 17), [ROWS, COLUMNS]),
      nd(new Float32Array(ROWS * COLUMNS), [ROWS, COLUMNS]),
      new Float32Array(ROWS),
    ],
    grid: 1,
    block: 32,
    reference: (args) => {
      const [inp, out, sums] = args as [Nd, Nd, Float32Array];
      for (let i = 0; i < ROWS; i++) {
        let s = 0;
        for (let j = 0; j < COLUMNS; j++) {
          out.set(i, j, inp.get(i, j) * 2 + j);
          s = Math.fround(s + inp.get(i, j));
        }
        sums[i] = s;
      }
    },
    outputs: [1, 2],
  };
})();

/** x.subarray on parameters and shared arrays (negative bounds from the end, clamped), views used where they are made, and a 0-d view (numba's r[()]). */
export const SUBARRAY_VIEWS_CASE: SuiteCase = {
  name: 'subarray views of parameters and shared arrays, and a 0-d view (numba dyn_arr[1:], r[()])',
  kernel: k((x: Float32Array, out: Float32Array, total: J.KernelArray<'f32', 1>) => {
    const t = cuda.threadIdx.x;
    const sm = cuda.shared.array(64, f32);
    sm[t] = x[t]!;
    cuda.syncthreads();
    const upper = sm.subarray(32);
    const tail = x.subarray(-8);
    const mid = x.subarray(3, 10);
    const none = x.subarray(10, 3);
    if (t < 32) out[t] = sm[t]! + upper[t]!;
    if (t < tail.length) out[32 + t] = tail[t]!;
    if (t < mid.length) out[40 + t] = mid[t]! * 2;
    const window = out.subarray(40, 48);
    if (t < 7) window[t * 1]! += 1; // a compound store through a view, at a computed index
    out[64 + t] = x.subarray(t).length + x.subarray(t, 1000).subarray(1).length + none.length;
    if (t === 0) {
      const r = total.row(0);
      r.set(x.subarray(60)[0]! + mid.length);
      total[1] = r.get() + 1;
    }
  }),
  args: () => [floats(64, 29), new Float32Array(128), new Float32Array(2)],
  grid: 1,
  block: 64,
  reference: (args) => {
    const [x, out, total] = args as [Float32Array, Float32Array, Float32Array];
    for (let t = 0; t < 64; t++) {
      if (t < 32) out[t] = Math.fround(x[t]! + x[32 + t]!);
      if (t < 8) out[32 + t] = x[56 + t]!;
      if (t < 7) out[40 + t] = Math.fround(Math.fround(x[3 + t]! * 2) + 1);
      out[64 + t] = 64 - t + Math.max(64 - t - 1, 0);
    }
    total[0] = Math.fround(x[60]! + 7);
    total[1] = Math.fround(total[0] + 1);
  },
  outputs: [1, 2],
};
