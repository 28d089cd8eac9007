// cuda.mma (intrinsics/mma.ts): the simulator's warp mma against a plain
// matrix product (a property), a one-warp GEMM kernel in the simulator, the
// misuse it reports, the typing rule's refusals, and the PTX through
// libNVVM and ptxas.
import { bfloat16Bits, float16Bits } from '@cuda-js/core';
import { fuzzParameters } from '@cuda-js/test-support/fuzz';
import { ptxasMissing, ptxasRejects } from '@cuda-js/test-support/toolchain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeWhen, nvvmMissing } from './compile/toolchain-environment.test-support.js';
import { ArchitectureTooOldError } from './errors.js';
import { array, cuda, f32, jit, SimulatorError, u16, u32 } from './index.js';
import { M16N8K16_LAYOUT, MMA_FUNCTIONS } from './intrinsics/mma.js';
import { gemmInputs, gemmKernel, gemmReference, type GemmInputs, seeded } from './mma.test-support.js';
import { mmaWarp } from './simulate/mma-simulator.js';

/** The 32 lanes' registers (a, b, c) of the matrices, by the m16n8k16 layout. */
function fragments({ a, b, c }: GemmInputs): number[][] {
  return Array.from({ length: 32 }, (_, lane) => {
    const pack = (lo: number, hi: number): number => (lo | (hi << 16)) >>> 0;
    const at = (i: number) => {
      const [m, k] = M16N8K16_LAYOUT.a(lane, i);
      return a[m * 16 + k]!;
    };
    const bt = (i: number) => {
      const [k, n] = M16N8K16_LAYOUT.b(lane, i);
      return b[k * 8 + n]!;
    };
    const ct = (i: number) => {
      const [m, n] = M16N8K16_LAYOUT.c(lane, i);
      return c[m * 8 + n]!;
    };
    return [
      pack(at(0), at(1)),
      pack(at(2), at(3)),
      pack(at(4), at(5)),
      pack(at(6), at(7)),
      pack(bt(0), bt(1)),
      pack(bt(2), bt(3)),
      ct(0),
      ct(1),
      ct(2),
      ct(3),
    ];
  });
}

/** D from each lane's fragment, as a row-major 16 × 8 matrix. */
function gather(d: readonly (readonly number[])[]): Float32Array {
  const out = new Float32Array(128);
  d.forEach((values, lane) =>
    values.forEach((v, i) => {
      const [m, n] = M16N8K16_LAYOUT.c(lane, i);
      out[m * 8 + n] = v;
    }),
  );
  return out;
}

const closeTo = (actual: Float32Array, expected: Float32Array): void => {
  for (let i = 0; i < expected.length; i++)
    expect(Math.abs(actual[i]! - expected[i]!)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(expected[i]!)));
};

describe('the m16n8k16 fragment layout', () => {
  it('places every element of A, B and C exactly once over the 32 lanes', () => {
    const seen = { a: new Set<string>(), b: new Set<string>(), c: new Set<string>() };
    for (let lane = 0; lane < 32; lane++) {
      for (let i = 0; i < 8; i++) seen.a.add(M16N8K16_LAYOUT.a(lane, i).join());
      for (let i = 0; i < 4; i++) seen.b.add(M16N8K16_LAYOUT.b(lane, i).join());
      for (let i = 0; i < 4; i++) seen.c.add(M16N8K16_LAYOUT.c(lane, i).join());
    }
    expect([seen.a.size, seen.b.size, seen.c.size]).toEqual([256, 128, 128]);
    // PTX ISA: lane 5 (groupID 1, threadID_in_group 1) holds a0 at (1, 2), a7 at (9, 11), b3 at (11, 1), c2 at (9, 2).
    expect(M16N8K16_LAYOUT.a(5, 0)).toEqual([1, 2]);
    expect(M16N8K16_LAYOUT.a(5, 7)).toEqual([9, 11]);
    expect(M16N8K16_LAYOUT.b(5, 3)).toEqual([11, 1]);
    expect(M16N8K16_LAYOUT.c(5, 2)).toEqual([9, 2]);
  });
});

describe("the simulator's warp mma", () => {
  for (const input of ['bf16', 'f16'] as const)
    it(`is the ${input} matrix product of the unpacked fragments plus C (property)`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
          const inputs = gemmInputs(input, seeded(seed));
          closeTo(gather(mmaWarp(`m16n8k16.${input}`, fragments(inputs))), gemmReference(input, inputs));
        }),
        fuzzParameters(50),
      );
    });
});

describe('a one-warp 16×8×16 GEMM in the simulator', () => {
  for (const input of ['bf16', 'f16'] as const)
    it(`computes D = A × B + C in ${input} as the CPU reference does`, () => {
      const inputs = gemmInputs(input, seeded(7));
      const d = new Float32Array(128);
      gemmKernel(input, 'simulator').launch({ grid: 1, block: 32 }, inputs.a, inputs.b, inputs.c, d);
      closeTo(d, gemmReference(input, inputs));
    });

  it('gives the identity product exactly', () => {
    const a = new Uint16Array(256);
    for (let i = 0; i < 16; i++) a[i * 16 + i] = bfloat16Bits(1);
    const b = Uint16Array.from({ length: 128 }, (_, i) => bfloat16Bits((i % 13) - 6));
    const d = new Float32Array(128);
    gemmKernel('bf16', 'simulator').launch({ grid: 1, block: 32 }, a, b, new Float32Array(128), d);
    expect([...d]).toEqual([...b].map((_, i) => (i % 13) - 6));
  });

  it('reports a warp with fewer than 32 lanes, and lanes that do not all arrive, as a SimulatorError', () => {
    const inputs = gemmInputs('bf16', seeded(3));
    const d = new Float32Array(128);
    const short = () => gemmKernel('bf16', 'simulator').launch({ grid: 1, block: 16 }, inputs.a, inputs.b, inputs.c, d);
    expect(short).toThrow(SimulatorError);
    expect(short).toThrow(/mma\.m16n8k16_bf16\(\) needs all 32 lanes/);
    const diverged = jit(
      (x: Float32Array) => {
        const a = cuda.local.array(4, u32);
        const b = cuda.local.array(2, u32);
        const c = cuda.local.array(4, f32);
        const d = cuda.local.array(4, f32);
        if (cuda.laneid < 31) cuda.mma.m16n8k16_bf16(d, a, b, c);
        x[cuda.laneid] = d[0]!;
      },
      { target: 'simulator' },
    );
    const run = () => diverged.launch({ grid: 1, block: 32 }, new Float32Array(32));
    expect(run).toThrow(SimulatorError);
    expect(run).toThrow(
      /mma\.m16n8k16_bf16\(\) in thread \(0, 0, 0\) of block \(0, 0, 0\) waits for all 32 lanes of its warp/,
    );
    expect(run).toThrow(
      /lane 31 \(thread \(31, 0, 0\)\) returned: every lane of the warp must run the same mma together/,
    );
    // lanes at two different mmas: a deadlock on the GPU
    const twoSites = jit(
      (x: Float32Array) => {
        const a = cuda.local.array(4, u32);
        const b = cuda.local.array(2, u32);
        const c = cuda.local.array(4, f32);
        const d = cuda.local.array(4, f32);
        if (cuda.laneid < 16) cuda.mma.m16n8k16_bf16(d, a, b, c);
        else cuda.mma.m16n8k16_bf16(d, a, b, c);
        x[cuda.laneid] = d[0]!;
      },
      { target: 'simulator' },
    );
    expect(() => twoSites.launch({ grid: 1, block: 32 }, new Float32Array(32))).toThrow(/a deadlock on the GPU/);
  });
});

const packKernel = () =>
  jit(
    (x: Float32Array, out: Uint32Array) => {
      const i = cuda.grid(1);
      if (2 * i + 1 < x.length) {
        out[2 * i] = cuda.pack_bf16x2(x[2 * i]!, x[2 * i + 1]!);
        out[2 * i + 1] = cuda.pack_f16x2(x[2 * i]!, x[2 * i + 1]!);
      }
    },
    { target: 'simulator' },
  );

describe('cuda.pack_bf16x2 and pack_f16x2', () => {
  it('round two f32 values to nearest-even and pack them, lo in the lower half (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true }), { minLength: 2, maxLength: 64 }), (values) => {
        const n = values.length & ~1;
        const x = Float32Array.from(values.slice(0, n));
        const out = new Uint32Array(n);
        packKernel().launch({ grid: 1, block: 32 }, x, out);
        for (let i = 0; 2 * i + 1 < n; i++) {
          const [lo, hi] = [x[2 * i]!, x[2 * i + 1]!];
          expect(out[2 * i]).toBe(((bfloat16Bits(hi) << 16) | bfloat16Bits(lo)) >>> 0);
          expect(out[2 * i + 1]).toBe(((float16Bits(hi) << 16) | float16Bits(lo)) >>> 0);
        }
      }),
      fuzzParameters(30),
    );
  });
});

describe('the typing rule', () => {
  it('takes 1-D arrays of the fragment types with enough elements', () => {
    const wrongType = jit(
      (x: Float32Array) => {
        const a = cuda.local.array(4, f32);
        const b = cuda.local.array(2, u32);
        const c = cuda.local.array(4, f32);
        const d = cuda.local.array(4, f32);
        cuda.mma.m16n8k16_bf16(d, a as never, b, c);
        x[0] = d[0]!;
      },
      { target: 'simulator' },
    );
    expect(() => wrongType.compile([array(f32, 1)])).toThrow(/a \(4 × u32\) is a 1-D array of u32/);
    const short = jit(
      (x: Float32Array) => {
        const a = cuda.local.array(4, u32);
        const b = cuda.local.array(1, u32);
        const c = cuda.local.array(4, f32);
        const d = cuda.local.array(4, f32);
        cuda.mma.m16n8k16_bf16(d, a, b, c);
        x[0] = d[0]!;
      },
      { target: 'simulator' },
    );
    expect(() => short.compile([array(f32, 1)])).toThrow(/b \(2 × u32\) needs 2 elements/);
  });
});

describeWhen([nvvmMissing, ptxasMissing], 'the PTX through libNVVM and ptxas', () => {
  const signature = [array(u16, 1), array(u16, 1), array(f32, 1), array(f32, 1)];
  for (const [name, row] of Object.entries(MMA_FUNCTIONS)) {
    const input = row.input;
    it(`holds ${row.instruction}, which ptxas assembles for sm_80 and sm_90 and refuses below sm_80`, () => {
      const kernel = gemmKernel(input, 'simulator');
      for (const arch of ['sm_80', 'sm_90']) {
        const { ptx } = kernel.inspect(signature, { arch });
        expect(ptx, name).toContain(row.instruction);
        expect(ptxasRejects(ptx, arch)).toBeUndefined();
      }
      const below = () => kernel.inspect(signature, { arch: 'sm_75' }).ptx;
      expect(below).toThrow(ArchitectureTooOldError);
      expect(below).toThrow(`cuda.mma.${name} (${row.instruction}) needs sm_80 or later; kernel`);
      expect(below).toThrow(/is compiled for sm_75/);
    });
  }

  it('packs with cvt.rn.bf16x2.f32 and cvt.rn.f16x2.f32, hi as the first source', () => {
    for (const arch of ['sm_80', 'sm_90']) {
      const { ptx } = packKernel().inspect([array(f32, 1), array(u32, 1)], { arch });
      expect(ptx).toMatch(/cvt\.rn\.bf16x2\.f32\s+%r\d+, (%f\d+), (%f\d+);/);
      expect(ptx).toMatch(/cvt\.rn\.f16x2\.f32\s+%r\d+, %f\d+, %f\d+;/);
      expect(ptxasRejects(ptx, arch)).toBeUndefined();
    }
    expect(() => packKernel().inspect([array(f32, 1), array(u32, 1)], { arch: 'sm_75' }).ptx).toThrow(
      /cuda\.pack_bf16x2 \(cvt\.rn\.bf16x2\.f32\) needs sm_80 or later/,
    );
  });
});
