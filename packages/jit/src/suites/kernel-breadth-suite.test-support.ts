/**
 * The breadth suite: kernels that use shared, local and const memory,
 * barriers, atomics, warp operations, cooperative grid sync, device
 * functions and the bit intrinsics, each with a plain-JavaScript reference
 * (see kernel-suite.test-support.ts for how suites run). References compute
 * in the same order as the kernels, so that f32 results are exact.
 */
import { roundToBfloat16, roundToFloat16 } from '@cuda-js/core';
import * as J from '../index.js';
import {
  floats,
  halfArray,
  halfBits,
  halfValues,
  ints,
  k,
  nd,
  type Nd,
  type SuiteCase,
} from './kernel-suite.test-support.js';

type Cast = (x: number | boolean | bigint) => number;
const f32 = J.f32 as unknown as Cast;
const i32 = J.i32 as unknown as Cast;
const u32 = J.u32 as unknown as Cast;
const u64 = J.u64 as unknown as (x: number) => bigint;
const i64 = J.i64 as unknown as (x: number) => bigint;
const bf16 = J.bf16 as unknown as Cast;
const f16 = J.f16 as unknown as Cast;
const { cuda, jit } = J;

/** An f16 or bf16 array in a kernel's parameter list (a halfArray: a float16 or bfloat16 view of bits). */
type Halves = { [i: number]: number; readonly length: number };

/** Writes `values` (already of the type) into a halfArray, for the references. */
function setHalves(view: unknown, values: readonly number[], type: 'f16' | 'bf16'): void {
  const bits = halfBits(view);
  const again = halfArray(type === 'f16' ? 'float16' : 'bfloat16', values);
  bits.set(halfBits(again));
}

/** A bigint rounded to bf16 once, to nearest even, on its bits: the reference for i64 → bf16. */
function bigintToBf16(x: bigint): number {
  const m = x < 0n ? -x : x;
  const length = m.toString(2).length;
  let r = Number(m);
  if (length > 8) {
    const shift = BigInt(length - 8);
    let kept = m >> shift;
    const rest = m - (kept << shift);
    const half = 1n << (shift - 1n);
    if (rest > half || (rest === half && (kept & 1n) === 1n)) kept += 1n;
    r = Number(kept) * 2 ** Number(shift);
  }
  return x < 0n ? -r : r;
}

/** Doubles with all 53 bits random over many binades, after values just beside the ties of bf16 and f16 (where rounding through f32 first fails) and beyond their ranges. */
function wideDoubles(n: number, seed: number): Float64Array {
  const edges = [
    1 + 2 ** -8 + 2 ** -40,
    1 + 2 ** -11 + 2 ** -40,
    -(1 + 2 ** -8 + 2 ** -30),
    65519.99,
    -65520,
    1e39,
    2 ** -134 + 2 ** -160,
    3 * 2 ** -25 + 2 ** -70,
  ];
  const out = new Float64Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const high = s;
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = edges[i] ?? ((high * 2 ** 21 + (s >>> 11)) / 2 ** 53 - 0.5) * 2 ** ((i % 48) - 24);
  }
  return out;
}

const fr = Math.fround;
const FULL = 0xffffffff;

/** The block-sum tree both the kernel and the reference use: pairs (t, t + s) for s = block/2 .. 1. */
function treeSum(values: readonly number[], round: (x: number) => number): number {
  const v = [...values];
  for (let s = v.length / 2; s > 0; s >>= 1) for (let t = 0; t < s; t++) v[t] = round(v[t]! + v[t + s]!);
  return v[0]!;
}

const square = jit.device((x: number) => x * x);
const norm2 = jit.device((a: Float32Array, i: number) => square(a[2 * i]!) + square(a[2 * i + 1]!), {
  constants: { square },
});
const clampUp = jit.device((x: number, limit: number) => {
  if (x > limit) return limit;
  return x;
});

const TABLE = Float32Array.from([0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]);

export const BREADTH_SUITE: readonly SuiteCase[] = [
  {
    name: 'shared-memory block reduction (f32, 128 threads, 7 tree steps)',
    kernel: k((x: Float32Array, sums: Float32Array) => {
      const sm = cuda.shared.array(128, f32);
      const t = cuda.threadIdx.x;
      sm[t] = x[cuda.grid(1)]!;
      cuda.syncthreads();
      for (let s = 64; s > 0; s >>= 1) {
        if (t < s) sm[t] = sm[t]! + sm[t + s]!;
        cuda.syncthreads();
      }
      if (t === 0) sums[cuda.blockIdx.x] = sm[0]!;
    }),
    args: () => [floats(1024, 41), new Float32Array(8)],
    grid: 8,
    block: 128,
    outputs: [1],
    reference: ([x, sums]) => {
      for (let b = 0; b < 8; b++)
        (sums as Float32Array)[b] = treeSum([...(x as Float32Array).subarray(b * 128, b * 128 + 128)], fr);
    },
  },
  {
    name: 'tiled shared-memory matrix multiply (16x16 tiles, 48x64 by 64x32)',
    kernel: k((a: Nd, b: Nd, c: Nd) => {
      const ta = cuda.shared.array([16, 16], f32);
      const tb = cuda.shared.array([16, 16], f32);
      const tx = cuda.threadIdx.x;
      const ty = cuda.threadIdx.y;
      const row = cuda.blockIdx.y * 16 + ty;
      const col = cuda.blockIdx.x * 16 + tx;
      let acc = f32(0);
      for (let t = 0; t < a.shape[1]! / 16; t++) {
        ta.set(ty, tx, a.get(row, t * 16 + tx));
        tb.set(ty, tx, b.get(t * 16 + ty, col));
        cuda.syncthreads();
        for (let kk = 0; kk < 16; kk++) acc += ta.get(ty, kk) * tb.get(kk, tx);
        cuda.syncthreads();
      }
      c.set(row, col, acc);
    }),
    args: () => [
      nd(floats(48 * 64, 42, 2), [48, 64]),
      nd(floats(64 * 32, 43, 2), [64, 32]),
      nd(new Float32Array(48 * 32), [48, 32]),
    ],
    grid: [2, 3],
    block: [16, 16],
    outputs: [2],
    reference: ([a, b, c]) => {
      const A = a as Nd;
      const B = b as Nd;
      for (let r = 0; r < 48; r++)
        for (let q = 0; q < 32; q++) {
          let acc = 0;
          for (let kk = 0; kk < 64; kk++) acc = fr(acc + fr(A.get(r, kk) * B.get(kk, q)));
          (c as Nd).set(r, q, acc);
        }
    },
  },
  {
    name: 'atomics histogram (u32 bins, atomic.add in global memory)',
    kernel: k((values: Int32Array, bins: Uint32Array) => {
      const i = cuda.grid(1);
      if (i < values.length) cuda.atomic.add(bins, values[i]!, 1);
    }),
    args: () => [ints(1000, 44, 0, 15), new Uint32Array(16)],
    grid: 8,
    block: 128,
    outputs: [1],
    reference: ([values, bins]) => {
      for (const v of values as Int32Array) (bins as Uint32Array)[v]!++;
    },
  },
  {
    name: 'shared-memory histogram (atomics in shared memory, merged with one global atomic per bin)',
    kernel: k((values: Int32Array, bins: Uint32Array) => {
      const local = cuda.shared.array(16, u32);
      const t = cuda.threadIdx.x;
      if (t < 16) local[t] = 0;
      cuda.syncthreads();
      const i = cuda.grid(1);
      if (i < values.length) cuda.atomic.add(local, values[i]!, 1);
      cuda.syncthreads();
      if (t < 16) cuda.atomic.add(bins, t, local[t]!);
    }),
    args: () => [ints(1000, 45, 0, 15), new Uint32Array(16)],
    grid: 8,
    block: 128,
    outputs: [1],
    reference: ([values, bins]) => {
      for (const v of values as Int32Array) (bins as Uint32Array)[v]!++;
    },
  },
  {
    name: 'atomic min, max, and, or, xor, exch and inc on every integer width, and min/max/add on floats',
    kernel: k(
      (x: Int32Array, ri: Int32Array, ru: Uint32Array, rl: BigInt64Array, rf: Float64Array, rs: Float32Array) => {
        const i = cuda.grid(1);
        if (i < x.length) {
          const v = x[i]!;
          cuda.atomic.min(ri, 0, v);
          cuda.atomic.max(ri, 1, v);
          cuda.atomic.and(ru, 0, u32(v) | 0x100);
          cuda.atomic.or(ru, 1, u32(1) << u32(v & 31));
          cuda.atomic.xor(ru, 2, u32(v));
          cuda.atomic.inc(ru, 3, 99);
          cuda.atomic.dec(ru, 4, 1000);
          cuda.atomic.max(rl, 0, i64(v) * i64(1000000007));
          cuda.atomic.add(rl, 1, i64(v));
          cuda.atomic.min(rf, 0, v * 0.5);
          cuda.atomic.max(rf, 1, v * 0.5);
          cuda.atomic.add(rs, 0, f32(v & 7));
          cuda.atomic.exch(ri, 2, 7);
        }
      },
    ),
    args: () => [
      ints(1000, 46, -500, 500),
      Int32Array.from([2 ** 31 - 1, -(2 ** 31), 0]),
      Uint32Array.from([FULL, 0, 0, 0, 0]),
      BigInt64Array.from([-(2n ** 63n), 0n]),
      Float64Array.from([Infinity, -Infinity]),
      new Float32Array(1),
    ],
    grid: 8,
    block: 128,
    outputs: [1, 2, 3, 4, 5],
    reference: ([x, ri, ru, rl, rf, rs]) => {
      const X = x as Int32Array;
      const RI = ri as Int32Array;
      const RU = ru as Uint32Array;
      const RL = rl as BigInt64Array;
      const RF = rf as Float64Array;
      const RS = rs as Float32Array;
      for (const v of X) {
        RI[0] = Math.min(RI[0]!, v);
        RI[1] = Math.max(RI[1]!, v);
        RU[0]! &= (v >>> 0) | 0x100;
        RU[1]! |= 1 << (v & 31);
        RU[2]! ^= v >>> 0;
        RU[3] = RU[3]! >= 99 ? 0 : RU[3]! + 1;
        RU[4] = RU[4] === 0 || RU[4]! > 1000 ? 1000 : RU[4]! - 1;
        const big = BigInt(v) * 1000000007n;
        if (big > RL[0]!) RL[0] = big;
        RL[1]! += BigInt(v);
        RF[0] = Math.min(RF[0]!, v * 0.5);
        RF[1] = Math.max(RF[1]!, v * 0.5);
        RS[0] = fr(RS[0]! + (v & 7)); // small integers: exact in any order
      }
      RI[2] = 7;
    },
  },
  {
    name: 'atomic nanmin and nanmax: a NaN counts as missing, in the values and in the elements; on integers min and max',
    kernel: k((x: Float64Array, rf: Float64Array, rs: Float32Array, ri: Int32Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        const v = x[i]!;
        cuda.atomic.nanmin(rf, 0, v);
        cuda.atomic.nanmax(rf, 1, v);
        cuda.atomic.nanmin(rs, 0, f32(v));
        cuda.atomic.nanmax(rs, 1, f32(v));
        cuda.atomic.nanmin(ri, 0, i32(i));
        cuda.atomic.nanmax(ri, 1, i32(i));
      }
    }),
    args: () => [
      Float64Array.from({ length: 600 }, (_, i) => (i % 7 === 3 ? NaN : ((i * 37) % 601) - 300)),
      Float64Array.from([NaN, NaN]),
      Float32Array.from([NaN, 5]),
      Int32Array.from([1000, -1]),
    ],
    grid: 5,
    block: 128,
    outputs: [1, 2, 3],
    reference: ([x, rf, rs, ri]) => {
      const values = [...(x as Float64Array)].filter((v) => !Number.isNaN(v));
      const RF = rf as Float64Array;
      const RS = rs as Float32Array;
      const RI = ri as Int32Array;
      RF[0] = Math.min(...values);
      RF[1] = Math.max(...values);
      RS[0] = Math.min(...values);
      RS[1] = Math.max(5, ...values);
      RI[0] = 0;
      RI[1] = (x as Float64Array).length - 1;
    },
  },
  {
    name: 'compare-and-swap loop: a lock-free counter, every thread adds its index',
    kernel: k((total: BigUint64Array) => {
      const mine = u64(cuda.grid(1));
      for (;;) {
        const old = total[0]!;
        if (cuda.atomic.cas(total, 0, old, old + mine) === old) break;
      }
    }),
    args: () => [new BigUint64Array(1)],
    grid: 4,
    block: 64,
    outputs: [0],
    reference: ([total]) => {
      (total as BigUint64Array)[0] = BigInt((256 * 255) / 2);
    },
  },
  {
    name: 'warp-shuffle reduction (shfl_down_sync on f32 and i64, then shfl_sync broadcast)',
    kernel: k((x: Float32Array, sums: Float32Array, counts: BigInt64Array) => {
      const i = cuda.grid(1);
      let v = x[i]!;
      let n = i64(i);
      for (let offset = 16; offset > 0; offset >>= 1) {
        v += cuda.shfl_down_sync(0xffffffff, v, offset);
        n += cuda.shfl_down_sync(0xffffffff, n, offset);
      }
      const first = cuda.shfl_sync(0xffffffff, v, 0);
      if (cuda.laneid === 0) {
        sums[i >> 5] = first;
        counts[i >> 5] = n;
      }
    }),
    args: () => [floats(256, 47), new Float32Array(8), new BigInt64Array(8)],
    grid: 2,
    block: 128,
    outputs: [1, 2],
    reference: ([x, sums, counts]) => {
      for (let w = 0; w < 8; w++) {
        const v = [...(x as Float32Array).subarray(w * 32, w * 32 + 32)];
        const n = v.map((_, l) => w * 32 + l);
        // shfl_down: lanes whose source is beyond 31 keep their own value (only lane 0's result is kept)
        for (let offset = 16; offset > 0; offset >>= 1)
          for (let l = 0; l < 32; l++)
            if (l + offset < 32) {
              v[l] = fr(v[l]! + v[l + offset]!);
              n[l] = n[l]! + n[l + offset]!;
            } else {
              v[l] = fr(v[l]! + v[l]!);
              n[l] = n[l]! + n[l]!;
            }
        (sums as Float32Array)[w] = v[0]!;
        (counts as BigInt64Array)[w] = BigInt(n[0]!);
      }
    },
  },
  {
    name: 'warp votes: ballot, all, any, eq, and match_any, lanemask_lt, activemask',
    kernel: k((x: Int32Array, out: Uint32Array) => {
      const i = cuda.grid(1);
      const v = x[i]!;
      const ballot = cuda.ballot_sync(0xffffffff, v % 3 === 0);
      const all = cuda.all_sync(0xffffffff, v >= 0);
      const any = cuda.any_sync(0xffffffff, v > 8);
      const eq = cuda.eq_sync(0xffffffff, v < 100);
      const peers = cuda.match_any_sync(0xffffffff, v % 4);
      const below = cuda.popc(ballot & cuda.lanemask_lt());
      out[i] =
        (all ? 1 : 0) |
        (any ? 2 : 0) |
        (eq ? 4 : 0) |
        (u32(cuda.popc(peers)) << 3) |
        (u32(below) << 9) |
        (cuda.activemask() === 0xffffffff ? 1 << 15 : 0);
      if (cuda.laneid === 0) out[64 + (i >> 5)] = ballot;
    }),
    args: () => [ints(64, 48, 0, 9), new Uint32Array(66)],
    grid: 1,
    block: 64,
    outputs: [1],
    reference: ([x, out]) => {
      const X = x as Int32Array;
      const O = out as Uint32Array;
      for (let w = 0; w < 2; w++) {
        const lanes = [...X.subarray(w * 32, w * 32 + 32)];
        let ballot = 0;
        lanes.forEach((v, l) => {
          if (v % 3 === 0) ballot |= 1 << l;
        });
        ballot >>>= 0;
        const all = lanes.every((v) => v >= 0);
        const any = lanes.some((v) => v > 8);
        lanes.forEach((v, l) => {
          const peers = lanes.filter((u) => u % 4 === v % 4).length;
          let below = 0;
          for (let m = 0; m < l; m++) if (lanes[m]! % 3 === 0) below++;
          O[w * 32 + l] = ((all ? 1 : 0) | (any ? 2 : 0) | 4 | (peers << 3) | (below << 9) | (1 << 15)) >>> 0;
        });
        O[64 + w] = ballot;
      }
    },
  },
  {
    name: 'lane masks: lanemask_lt, _le, _eq, _ge, _gt, and globaltimer',
    kernel: k((out: Int32Array) => {
      const i = cuda.grid(1);
      const lane = cuda.laneid;
      const ok = cuda.lanemask_eq() === u32(1) << u32(lane) && cuda.globaltimer() >= u64(0);
      out[i] =
        cuda.popc(cuda.lanemask_lt()) +
        100 * cuda.popc(cuda.lanemask_le()) +
        10000 * cuda.popc(cuda.lanemask_ge()) +
        1000000 * cuda.popc(cuda.lanemask_gt()) +
        (ok ? 0 : -1);
    }),
    args: () => [new Int32Array(64)],
    grid: 1,
    block: 64,
    outputs: [0],
    reference: ([out]) => {
      for (let i = 0; i < 64; i++) {
        const l = i % 32;
        (out as Int32Array)[i] = l + 100 * (l + 1) + 10000 * (32 - l) + 1000000 * (31 - l);
      }
    },
  },
  {
    name: 'syncthreads_count, syncthreads_and and syncthreads_or',
    kernel: k((x: Int32Array, out: Int32Array) => {
      const t = cuda.threadIdx.x;
      const v = x[cuda.grid(1)]!;
      const count = cuda.syncthreads_count(v > 4);
      const all = cuda.syncthreads_and(v >= 0);
      const any = cuda.syncthreads_or(v === 9);
      if (t === 0) out[cuda.blockIdx.x] = count * 4 + (all ? 2 : 0) + (any ? 1 : 0);
    }),
    args: () => [ints(256, 49, 0, 9), new Int32Array(4)],
    grid: 4,
    block: 64,
    outputs: [1],
    reference: ([x, out]) => {
      for (let b = 0; b < 4; b++) {
        const v = [...(x as Int32Array).subarray(b * 64, b * 64 + 64)];
        (out as Int32Array)[b] =
          v.filter((e) => e > 4).length * 4 + (v.every((e) => e >= 0) ? 2 : 0) + (v.some((e) => e === 9) ? 1 : 0);
      }
    },
  },
  {
    name: 'dynamic shared memory (shape 0, sized by the launch): reverse each block',
    kernel: k((x: Float32Array, out: Float32Array) => {
      const buffer = cuda.shared.array(0, f32);
      const t = cuda.threadIdx.x;
      const n = cuda.blockDim.x;
      buffer[t] = x[cuda.grid(1)]!;
      cuda.syncthreads();
      out[cuda.grid(1)] = buffer[n - 1 - t]! + buffer.length;
    }),
    args: () => [floats(256, 50), new Float32Array(256)],
    grid: 2,
    block: 128,
    sharedMemory: 128 * 4,
    outputs: [1],
    reference: ([x, out]) => {
      for (let b = 0; b < 2; b++)
        for (let t = 0; t < 128; t++)
          (out as Float32Array)[b * 128 + t] = fr((x as Float32Array)[b * 128 + 127 - t]! + 128);
    },
  },
  {
    name: 'local arrays: a per-thread insertion sort of 8 values',
    kernel: k((x: Int32Array, out: Int32Array) => {
      const v = cuda.local.array(8, i32);
      const base = cuda.grid(1) * 8;
      for (let j = 0; j < 8; j++) v[j] = x[base + j]!;
      for (let j = 1; j < 8; j++) {
        const key = v[j]!;
        let m = j - 1;
        while (m >= 0 && v[m]! > key) {
          v[m + 1] = v[m]!;
          m--;
        }
        v[m + 1] = key;
      }
      for (let j = 0; j < 8; j++) out[base + j] = v[j]!;
    }),
    args: () => [ints(512, 51, -50, 50), new Int32Array(512)],
    grid: 1,
    block: 64,
    outputs: [1],
    reference: ([x, out]) => {
      for (let t = 0; t < 64; t++)
        (out as Int32Array).set(
          [...(x as Int32Array).subarray(t * 8, t * 8 + 8)].sort((a, b) => a - b),
          t * 8,
        );
    },
  },
  {
    name: 'constant memory captured at compile time (cuda.const.arrayLike)',
    kernel: k(
      (idx: Int32Array, out: Float32Array) => {
        const table = cuda.const.arrayLike(TABLE);
        const i = cuda.grid(1);
        if (i < idx.length) out[i] = table[idx[i]! & 7]! * 2;
      },
      { constants: { TABLE } },
    ),
    args: () => [ints(300, 52, 0, 100), new Float32Array(300)],
    grid: 3,
    block: 128,
    outputs: [1],
    reference: ([idx, out]) => (idx as Int32Array).forEach((v, i) => ((out as Float32Array)[i] = TABLE[v & 7]! * 2)),
  },
  {
    name: 'device functions: typed per call site (f32 and f64), taking arrays, calling each other, returning early',
    kernel: k(
      (p: Float32Array, d: Float64Array, out: Float32Array, outD: Float64Array) => {
        const i = cuda.grid(1);
        if (i < out.length) {
          out[i] = clampUp(norm2(p, i), 50);
          outD[i] = square(d[i]!);
        }
      },
      { constants: { norm2, square, clampUp } },
    ),
    args: () => [floats(400, 53), Float64Array.from(floats(200, 54)), new Float32Array(200), new Float64Array(200)],
    grid: 2,
    block: 128,
    outputs: [2, 3],
    reference: ([p, d, out, outD]) => {
      const P = p as Float32Array;
      for (let i = 0; i < 200; i++) {
        const n = fr(fr(P[2 * i]! * P[2 * i]!) + fr(P[2 * i + 1]! * P[2 * i + 1]!));
        (out as Float32Array)[i] = Math.min(n, 50);
        (outD as Float64Array)[i] = (d as Float64Array)[i]! * (d as Float64Array)[i]!;
      }
    },
  },
  {
    name: 'cooperative grid sync: every block reads what the next block wrote before the sync',
    kernel: k((a: Int32Array, out: Int32Array) => {
      const i = cuda.grid(1);
      const n = a.length;
      a[i] = i * 3;
      cuda.cg.thisGrid().sync();
      out[i] = a[(i + 64) % n]!;
    }),
    args: () => [new Int32Array(256), new Int32Array(256)],
    grid: 4,
    block: 64,
    outputs: [0, 1],
    reference: ([a, out]) => {
      for (let i = 0; i < 256; i++) (a as Int32Array)[i] = i * 3;
      for (let i = 0; i < 256; i++) (out as Int32Array)[i] = ((i + 64) % 256) * 3;
    },
  },
  {
    name: 'bit intrinsics: popc, clz, ffs and brev on u32 and i64, cuda.selp, fences and nanosleep',
    kernel: k((x: Uint32Array, y: BigInt64Array, out: Int32Array, rev: Uint32Array, revL: BigInt64Array) => {
      const i = cuda.grid(1);
      if (i < x.length) {
        const v = x[i]!;
        const w = y[i]!;
        out[4 * i] = cuda.popc(v) + cuda.popc(w) * 100;
        out[4 * i + 1] = cuda.clz(v) + cuda.clz(w) * 100;
        out[4 * i + 2] = cuda.ffs(v) + cuda.ffs(w) * 100;
        out[4 * i + 3] = cuda.selp(v > 1000, 1, -1);
        rev[i] = cuda.brev(v);
        revL[i] = cuda.brev(w);
        cuda.threadfence_block();
        cuda.threadfence();
        cuda.threadfence_system();
        cuda.nanosleep(10);
      }
    }),
    args: () => [
      Uint32Array.from(ints(100, 55, 0, 2 ** 30), (v, j) => (j === 0 ? 0 : j === 1 ? FULL : v * 3)),
      BigInt64Array.from(ints(100, 56, -(2 ** 30), 2 ** 30), (v, j) => (j === 0 ? 0n : BigInt(v) * 12345n)),
      new Int32Array(400),
      new Uint32Array(100),
      new BigInt64Array(100),
    ],
    grid: 1,
    block: 128,
    outputs: [2, 3, 4],
    reference: ([x, y, out, rev, revL]) => {
      const popc = (b: bigint, bits: number): number =>
        [...BigInt.asUintN(bits, b).toString(2)].filter((c) => c === '1').length;
      const clz = (b: bigint, bits: number): number => {
        const s = BigInt.asUintN(bits, b).toString(2);
        return b === 0n ? bits : bits - s.length;
      };
      const ffs = (b: bigint, bits: number): number => {
        const u = BigInt.asUintN(bits, b);
        if (u === 0n) return 0;
        let n = 1;
        while (((u >> BigInt(n - 1)) & 1n) === 0n) n++;
        return n;
      };
      const brev = (b: bigint, bits: number): bigint =>
        BigInt(`0b${BigInt.asUintN(bits, b).toString(2).padStart(bits, '0').split('').reverse().join('')}`);
      (x as Uint32Array).forEach((v, i) => {
        const w = (y as BigInt64Array)[i]!;
        const O = out as Int32Array;
        O[4 * i] = popc(BigInt(v), 32) + popc(w, 64) * 100;
        O[4 * i + 1] = clz(BigInt(v), 32) + clz(w, 64) * 100;
        O[4 * i + 2] = ffs(BigInt(v), 32) + ffs(w, 64) * 100;
        O[4 * i + 3] = v > 1000 ? 1 : -1;
        (rev as Uint32Array)[i] = Number(brev(BigInt(v), 32));
        (revL as BigInt64Array)[i] = BigInt.asIntN(64, brev(w, 64));
      });
    },
  },
  {
    name: 'f16 axpy on float16 views (an f16 scalar; each operation rounded to f16)',
    kernel: k((a: number, x: Halves, y: Halves) => {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i]! + y[i]!;
    }),
    args: () => [J.f16(2.5), halfArray('float16', floats(1000, 61, 100)), halfArray('float16', floats(1000, 62, 1000))],
    grid: 8,
    block: 128,
    outputs: [2],
    reference: ([, x, y]) => {
      const xs = halfValues(x);
      setHalves(
        y,
        halfValues(y).map((v, i) => roundToFloat16(roundToFloat16(2.5 * xs[i]!) + v)),
        'f16',
      );
    },
  },
  {
    name: 'bf16 and f16 conversions: from f64 and i64 in one rounding (near ties, overflow), and their sum in f32',
    kernel: k((d: Float64Array, n: BigInt64Array, bd: Halves, hd: Halves, bn: Halves, sum: Float32Array) => {
      const i = cuda.grid(1);
      if (i < d.length) {
        bd[i] = bf16(d[i]!);
        hd[i] = d[i]!;
        bn[i] = n[i]! as unknown as number;
        sum[i] = bd[i]! + hd[i]!;
      }
    }),
    args: () => [
      wideDoubles(1000, 63),
      BigInt64Array.from(
        wideDoubles(1000, 64),
        (v, j) =>
          [2n ** 60n + 2n ** 52n + 1n, -(2n ** 60n + 2n ** 52n + 1n), 257n, 2n ** 63n - 1n][j] ??
          BigInt(Math.trunc(v * 2 ** 60)),
      ),
      halfArray('bfloat16', new Float64Array(1000)),
      halfArray('float16', new Float64Array(1000)),
      halfArray('bfloat16', new Float64Array(1000)),
      new Float32Array(1000),
    ],
    grid: 8,
    block: 128,
    outputs: [2, 3, 4, 5],
    reference: ([d, n, bd, hd, bn, sum]) => {
      const ds = [...(d as Float64Array)];
      const b = ds.map(roundToBfloat16);
      const h = ds.map(roundToFloat16);
      setHalves(bd, b, 'bf16');
      setHalves(hd, h, 'f16');
      setHalves(bn, [...(n as BigInt64Array)].map(bigintToBf16), 'bf16');
      (sum as Float32Array).set(b.map((v, i) => Math.fround(v + h[i]!)));
    },
  },
  {
    name: 'f16 and bf16 atomic add in global memory (sums of quarters and ones, exact in any order)',
    kernel: k((values: Int32Array, quarters: Halves, ones: Halves) => {
      const i = cuda.grid(1);
      if (i < values.length) {
        cuda.atomic.add(quarters, values[i]!, 0.25);
        cuda.atomic.add(ones, values[i]!, 1);
      }
    }),
    args: () => [
      ints(1000, 65, 0, 15),
      halfArray('float16', new Float64Array(16)),
      halfArray('bfloat16', new Float64Array(16)),
    ],
    grid: 8,
    block: 128,
    outputs: [1, 2],
    reference: ([values, quarters, ones]) => {
      const counts = new Array<number>(16).fill(0);
      for (const v of values as Int32Array) counts[v]!++;
      setHalves(
        quarters,
        counts.map((c) => c / 4),
        'f16',
      );
      setHalves(ones, counts, 'bf16');
    },
  },
  {
    name: 'f16 square roots through shared memory, multiplied across the block',
    kernel: k((x: Halves, out: Halves) => {
      const sm = cuda.shared.array(128, f16);
      const t = cuda.threadIdx.x;
      const i = cuda.grid(1);
      sm[t] = Math.sqrt(x[i]!);
      cuda.syncthreads();
      out[i] = sm[t]! * sm[127 - t]! - 1;
    }),
    args: () => [
      halfArray('float16', Float64Array.from(floats(512, 66, 200), Math.abs)),
      halfArray('float16', new Float64Array(512)),
    ],
    grid: 4,
    block: 128,
    outputs: [1],
    reference: ([x, out]) => {
      const roots = halfValues(x).map((v) => roundToFloat16(Math.sqrt(v)));
      setHalves(
        out,
        roots.map((r, i) => roundToFloat16(roundToFloat16(r * roots[i - (i % 128) + 127 - (i % 128)]!) - 1)),
        'f16',
      );
    },
  },
  {
    name: 'cuda.clock64 does not go backwards within a thread',
    kernel: k((out: Int32Array) => {
      const t0 = cuda.clock64();
      let spin = 0;
      for (let j = 0; j < 100; j++) spin += j;
      const t1 = cuda.clock64();
      out[cuda.grid(1)] = t1 >= t0 && spin === 4950 ? 1 : 0;
    }),
    args: () => [new Int32Array(64)],
    grid: 1,
    block: 64,
    outputs: [0],
    reference: ([out]) => (out as Int32Array).fill(1),
  },
];
