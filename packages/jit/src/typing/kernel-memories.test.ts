import { f32, f64, i32, u32, u8 } from '@cuda-js/core';
import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { KernelTypeError, UnsupportedSyntaxError } from '../errors.js';
import { hostArrayOf } from './kernel-memories.js';
import { array } from './signature.js';
import { MarkedLines, nodesOf, onlyNodeOf, typed, typingError, withoutLocs } from './typer.test-support.js';

const here = new MarkedLines(import.meta.url);
const f32x1 = array('f32', 1);
const i32x1 = array('i32', 1);
const N = 16;

describe('shared and local arrays', () => {
  it('declare one memory each, indexed, measured and written like array parameters', () => {
    const k = typed(
      (x: Float32Array, out: Float32Array) => {
        const sm = cuda.shared.array(128, f32);
        const scratch = cuda.local.array([2, 4], i32);
        const t = cuda.threadIdx.x;
        sm[t] = x[t]!;
        scratch.set(1, 3, t);
        cuda.syncthreads();
        out[t] =
          sm[127 - t]! +
          scratch.get(1, 3) +
          sm.length +
          scratch.shape[1]! +
          scratch.size +
          (scratch as unknown as { ndim: number }).ndim;
      },
      [f32x1, f32x1],
    );
    expect(k.memories).toEqual([
      { space: 'shared', name: 'sm', dtype: 'f32', shape: [128], dynamic: false },
      { space: 'local', name: 'scratch', dtype: 'i32', shape: [2, 4], dynamic: false },
    ]);
    // memories are no locals and no parameters
    expect(k.locals.map((l) => l.name)).toEqual(['t']);
    const stores = nodesOf(k.body, 'store');
    expect(stores.map((s) => [s.ref.space, s.ref.array, s.type])).toEqual([
      ['shared', 0, 'f32'],
      ['local', 1, 'i32'],
      [undefined, 1, 'f32'],
    ]);
    expect(withoutLocs(stores[1]!.ref.indices)).toEqual([
      { op: 'const', type: 'i64', value: '1n' },
      { op: 'const', type: 'i64', value: '3n' },
    ]);
    const loads = nodesOf(k.body, 'load');
    expect(loads.map((l) => [l.ref.space, l.ref.array])).toEqual([
      [undefined, 0],
      ['shared', 0],
      ['local', 1],
    ]);
    // static extents are constants: no dim op, and the parameters' shapes stay unused
    expect(nodesOf(k.body, 'dim')).toEqual([]);
    expect(k.params[1]).toMatchObject({ use: { shape: false, written: true } });
    const sum = nodesOf(k.body, 'const').map((c) => c.value);
    expect(sum).toEqual(expect.arrayContaining([128, 4, 8, 2]));
  });

  it('an n-D memory takes one index per dimension', () => {
    const error = typingError(
      (out: Int32Array) => {
        const counts = cuda.shared.array([N, 2], u32);
        // @ts-expect-error: TypeScript refuses it too (a 2-D array has no index signature); the typer's message is tested
        counts[cuda.threadIdx.x]! += 1; // M-ndim
        out[0] = counts.get(0, 0);
      },
      [i32x1],
      { N: 16 },
    );
    expect(error.detail).toBe(
      "'counts' is shared array(u32, [16, 2]) (2-D): it takes 2 index(es), 1 given; write counts.get(i, j)",
    );
    here.expectAt(error, 'M-ndim', 'counts[');
  });

  it('compound assignments and ++ keep the element type and the space', () => {
    const k = typed(
      (out: Uint8Array) => {
        const bins = cuda.shared.array(N, u8);
        const t = cuda.threadIdx.x;
        bins[t] = 0;
        bins[t & 15]! += 3;
        bins[t]!++;
        out[t] = bins[t]!;
      },
      [array('u8', 1)],
      { N: 16 },
    );
    expect(k.memories[0]).toMatchObject({ shape: [16], dtype: 'u8' });
    const stores = nodesOf(k.body, 'store').filter((s) => s.ref.space === 'shared');
    expect(stores).toHaveLength(3);
    for (const s of stores) expect(s.type).toBe('u8');
    // the compound store reads the element at the same (temporary) index
    const compound = nodesOf(k.body, 'sequence')[0]!;
    expect(nodesOf(compound, 'load')[0]!.ref).toMatchObject({ space: 'shared', array: 0 });
  });

  it('a dynamic shared array (shape 0) reads its extent from the launch', () => {
    const k = typed(
      (out: Float32Array) => {
        const buffer = cuda.shared.array(0, f32);
        out[0] = buffer.length;
      },
      [f32x1],
    );
    expect(k.memories).toEqual([{ space: 'shared', name: 'buffer', dtype: 'f32', shape: [0], dynamic: true }]);
    expect(withoutLocs(onlyNodeOf(k.body, 'dim'))).toEqual({
      op: 'dim',
      type: 'i64',
      array: 0,
      space: 'shared',
      what: 'shape',
      dim: 0,
    });
  });

  it('ids are stable across inference rounds, and a memory in a loop is declared once', () => {
    const k = typed(
      (x: Float32Array, out: Float32Array) => {
        let s = 0; // widens to f32 in a later round
        for (let j = 0; j < 4; j++) {
          const tile = cuda.shared.array(4, f64);
          tile[j] = x[j]!;
          s += tile[j]!;
        }
        const last = cuda.local.array(1, f32);
        last[0] = s;
        out[0] = last[0]!;
      },
      [f32x1, f32x1],
    );
    expect(k.memories.map((m) => `${m.space}:${m.name}`)).toEqual(['shared:tile', 'local:last']);
    expect(k.locals.find((l) => l.name === 's')?.type).toBe('f64');
    expect(
      new Set(
        nodesOf(k.body, 'store')
          .filter((s) => s.ref.space === 'local')
          .map((s) => s.ref.array),
      ),
    ).toEqual(new Set([1]));
  });
});

describe('a dtype passed as a constant', () => {
  it('types memories and casts of kernels generic in their element type', () => {
    const generic = (out: Float64Array) => {
      const sm = cuda.shared.array(4, DTYPE);
      sm[0] = DTYPE(out[0]!);
      out[1] = sm[0]!;
    };
    for (const [token, dtype] of [
      [f64, 'f64'],
      [u8, 'u8'],
    ] as const) {
      const k = typed(generic, [array('f64', 1)], { DTYPE: token });
      expect(k.memories[0]).toMatchObject({ space: 'shared', dtype });
      expect(nodesOf(k.body, 'store')[0]).toMatchObject({ type: dtype, ref: { space: 'shared' } });
    }
    expect(nodesOf(typed(generic, [array('f64', 1)], { DTYPE: u8 }).body, 'convert')[0]).toMatchObject({
      type: 'u8',
      operand: { op: 'load', type: 'f64' },
    });
    expect(() =>
      typed(
        (out: Float64Array) => {
          out[0] = DTYPE as unknown as number;
        },
        [array('f64', 1)],
        { DTYPE: f64 },
      ),
    ).toThrow(
      /'DTYPE' is the scalar type f64: use it as a dtype \(cuda\.shared\.array\(n, DTYPE\)\) or a cast, DTYPE\(x\)/,
    );
  });
});

declare const DTYPE: (x: number) => number;

describe('cuda.const.arrayLike', () => {
  it('captures a host array constant: dtype from its class, elements as data', () => {
    const TABLE = Float32Array.of(0.5, 1.5, 2.5);
    const k = typed(
      (idx: Int32Array, out: Float32Array) => {
        const table = cuda.const.arrayLike(TABLE);
        const i = cuda.grid(1);
        out[i] = table[idx[i]! % table.length]!;
      },
      [i32x1, f32x1],
      { TABLE },
    );
    expect(k.memories).toEqual([
      { space: 'const', name: 'table', dtype: 'f32', shape: [3], dynamic: false, data: [0.5, 1.5, 2.5] },
    ]);
    expect(nodesOf(k.body, 'load').find((l) => l.ref.space === 'const')?.type).toBe('f32');
  });

  it('takes typed arrays of every kind and plain arrays (f64, or i64 for bigints)', () => {
    expect(hostArrayOf(Int16Array.of(-1, 2))).toEqual({ dtype: 'i16', data: [-1, 2] });
    expect(hostArrayOf(BigUint64Array.of(5n))).toEqual({ dtype: 'u64', data: [5n] });
    expect(hostArrayOf(Uint8ClampedArray.of(7))).toEqual({ dtype: 'u8', data: [7] });
    expect(hostArrayOf([1, 2.5])).toEqual({ dtype: 'f64', data: [1, 2.5] });
    expect(hostArrayOf([1n, -2n])).toEqual({ dtype: 'i64', data: [1n, -2n] });
    expect(hostArrayOf([1, 2n])).toMatch(/only numbers \(f64\) or only bigints/);
    expect(hostArrayOf([2n ** 64n])).toMatch(/outside i64's range/);
    expect(hostArrayOf(new DataView(new ArrayBuffer(4)))).toMatch(/got DataView/);
  });

  // Issue 20: a Proxy reporting length 1e9 walked 1e9 indices; holes and lying lengths read as NaN.
  it('reads a host array once, bounded by constant memory, and refuses holes and lying lengths', () => {
    const huge = new Proxy([1, 2], { get: (t, k, r) => (k === 'length' ? 1e9 : Reflect.get(t, k, r)) });
    expect(hostArrayOf(huge)).toMatch(/has 1000000000 elements, more than constant memory holds \(65536 bytes\)/);
    const hugeTyped = new Proxy(new Float32Array(2), { get: (t, k) => (k === 'length' ? 1e9 : Reflect.get(t, k, t)) });
    expect(hostArrayOf(hugeTyped)).toMatch(/more than constant memory holds/);
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(hostArrayOf([1, , 3])).toMatch(/has a hole at index 1/);
    const lying = new Proxy([1, 2], { get: (t, k, r) => (k === 'length' ? 4 : Reflect.get(t, k, r)) });
    expect(hostArrayOf(lying)).toMatch(/has a hole at index 2/);
    expect(hostArrayOf(new Proxy([1], { get: (t, k, r) => (k === 'length' ? -1 : Reflect.get(t, k, r)) }))).toMatch(
      /length is not a non-negative integer/,
    );
    let reads = 0;
    const counted = new Proxy([1, 2, 3], { get: (t, k, r) => (k === '1' ? ++reads : Reflect.get(t, k, r)) });
    expect(hostArrayOf(counted)).toEqual({ dtype: 'f64', data: [1, 1, 3] });
    expect(reads).toBe(1); // one snapshot: each element read once
  });

  it('refuses writes, atomics and names that are no host arrays', () => {
    const TABLE = [1, 2, 3];
    const write = typingError(
      (out: Float64Array) => {
        const t = cuda.const.arrayLike(TABLE);
        t[0] = out[0]!; // M-const-write
      },
      [array('f64', 1)],
      { TABLE },
    );
    expect(write).toBeInstanceOf(KernelTypeError);
    expect(write.detail).toBe("'t' is constant memory (cuda.const.arrayLike); it cannot be written");
    here.expectAt(write, 'M-const-write', 't[0]');
    expect(() =>
      typed(
        (out: Float64Array) => {
          const t = cuda.const.arrayLike(TABLE);
          out[0] = cuda.atomic.add(t, 0, 1);
        },
        [array('f64', 1)],
        { TABLE },
      ),
    ).toThrow(/constant memory \(cuda\.const\.arrayLike\): atomics need memory they can write/);
    const n = 3;
    expect(() =>
      typed(
        (out: Float64Array) => {
          const t = cuda.const.arrayLike(n as unknown as number[]);
          out[0] = t[0]!;
        },
        [array('f64', 1)],
        { n: 3 },
      ),
    ).toThrow(/cuda\.const\.arrayLike\(n\): a host array is a typed array .* got number/);
    // read by name, a host array is constant memory (numba's global arrays); as a value it is refused
    const k = typed(
      (out: Float64Array) => {
        out[0] = TABLE[0]!;
      },
      [array('f64', 1)],
      { TABLE },
    );
    expect(k.memories.map((m) => [m.space, m.name, m.shape])).toEqual([['const', 'TABLE', [TABLE.length]]]);
    // a variable may hold it (array-locals.ts): it reads the same constant memory
    const held = typed(
      (out: Float64Array) => {
        const t = TABLE;
        out[0] = t[0]!;
      },
      [array('f64', 1)],
      { TABLE },
    );
    expect(held.memories.map((m) => m.space)).toEqual(['const']);
    expect(JSON.stringify(held.body, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).toContain(
      '"space":"const"',
    );
    void n;
  });
});

describe('memory declarations that are refused', () => {
  it('only in const declarations, with constant shapes and scalar element types', () => {
    const viaLet = typingError(
      (out: Float32Array) => {
        // biome-ignore lint/style/useConst: the test declares a memory with let on purpose
        let s = cuda.shared.array(4, f32); // M-let
        s[0] = 1;
        out[0] = s[0]!;
      },
      [f32x1],
    );
    expect(viaLet.detail).toBe('a shared array is declared with const: const s = cuda.shared.array(...)');
    here.expectAt(viaLet, 'M-let', 'cuda.shared');
    const dynamicShape = typingError(
      (out: Float32Array, n: number) => {
        const s = cuda.local.array(n, f32); // M-shape
        out[0] = s[0]!;
      },
      [f32x1, 'i32'],
    );
    expect(dynamicShape.detail).toBe(
      'the shape of a local array must be constant integers (numbers, or names from the constants), got a i32 value',
    );
    here.expectAt(dynamicShape, 'M-shape', 'n, f32');
    expect(() =>
      typed(
        (out: Float32Array) => {
          const s = cuda.local.array(0, f32);
          out[0] = s[0]!;
        },
        [f32x1],
      ),
    ).toThrow(/a local array needs a constant size above 0/);
    expect(() =>
      typed(
        (out: Float32Array) => {
          const s = cuda.shared.array([4, 0], f32);
          out[0] = s.get(0, 0);
        },
        [f32x1],
      ),
    ).toThrow(
      /the extents of a shared array must be above 0, got 0 \(a dynamic shared array is written cuda\.shared\.array\(0, dtype\)\)/,
    );
    expect(() =>
      typed(
        (out: Float32Array) => {
          const s = cuda.shared.array([2, 2, 2, 2], f32);
          out[0] = s.get(0, 0);
        },
        [f32x1],
      ),
    ).toThrow(/a shared array has 1 to 3 dimensions; the shape lists 4/);
    expect(() =>
      typed(
        (out: Float32Array) => {
          const s = cuda.shared.array(4, Number);
          out[0] = s[0]!;
        },
        [f32x1],
      ),
    ).toThrow(
      /the element type of an array is a scalar type: bool, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64/,
    );
    expect(() =>
      typed(
        (out: Float32Array) => {
          out[0] = cuda.shared.array(4, f32)[0]!;
        },
        [f32x1],
      ),
    ).toThrow(
      /cuda\.shared\.array\(\.\.\.\) makes an array: declare it as const name = cuda\.shared\.array\(shape, dtype\)/,
    );
  });

  it('memories are held by variables (array-locals.ts) but cannot be reassigned, indexed out of their extents or exceed the limits', () => {
    const copied = typed(
      (out: Float32Array) => {
        const s = cuda.shared.array(4, f32);
        const t = s;
        out[0] = t[0]!;
      },
      [f32x1],
    );
    expect(JSON.stringify(copied.body, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).toContain(
      '"space":"shared"',
    );
    expect(() =>
      typed(
        (out: Float32Array) => {
          const s = cuda.shared.array(4, f32);
          // @ts-expect-error: the test assigns a const on purpose
          // biome-ignore lint/correctness/noConstAssign: the test assigns a const on purpose
          s = out;
          out[0] = s[0]!;
        },
        [f32x1],
      ),
    ).toThrow(/'s' is an array and cannot be reassigned/);
    const outside = typingError(
      (out: Float32Array) => {
        const s = cuda.shared.array([4, 8], f32);
        out[0] = s.get(1, 8); // M-bounds
      },
      [f32x1],
    );
    expect(outside.detail).toBe("the index 8 is outside 's' (shared array(f32, [4, 8])): dimension 1 has 8 element(s)");
    here.expectAt(outside, 'M-bounds', '8)');
    const tooLarge = typingError(
      (out: Float32Array) => {
        const a = cuda.shared.array(8192, f32);
        const b = cuda.shared.array(4097, f32); // M-limit
        out[0] = a[0]! + b[0]!;
      },
      [f32x1],
    );
    expect(tooLarge.detail).toBe("'b' takes the kernel's static shared memory of a block to 49156 bytes, beyond 49152");
    here.expectAt(tooLarge, 'M-limit', 'cuda.shared');
  });

  it('array literals are parsed only as shapes and atomic indices', () => {
    expect(() =>
      typed(
        (out: Float32Array) => {
          const v = [1, 2];
          out[0] = v[0]!;
        },
        [f32x1],
      ),
    ).toThrow(UnsupportedSyntaxError);
    expect(() =>
      typed(
        (out: Float32Array) => {
          const s = cuda.shared.array([2, ...[3]], f32);
          out[0] = s.get(0, 0);
        },
        [f32x1],
      ),
    ).toThrow(/spread arguments is not supported/);
  });
});
