// The numba-parity kernels on the CPU: run in the simulator against their
// plain-JavaScript references, and compiled through libNVVM and ptxas
// -arch=sm_90 with the instructions each feature stands for in the PTX.
import { StridedMemoryView } from '@cuda-js/memory-view';
import { describe, expect, it } from 'vitest';
import {
  describeWhen,
  nvvmMissing,
  ptxasMissing,
  ptxasRejects,
} from '../compile/toolchain-environment.test-support.js';
import { cuda as hostCuda, cuda } from '../cuda.js';
import { argumentTypes } from '../launch/argument-types.js';
import { cloneArgs, firstDifference, kernelFor, outputData, type SuiteCase } from './kernel-suite.test-support.js';
import { array, f32, f64, i32, jit, type KernelArray, KernelTypeError } from '../index.js';
import {
  CAPTURED_HOST_ARRAYS_CASE,
  ROW_VIEWS_CASE,
  SUBARRAY_VIEWS_CASE,
  FAST_MATH_N,
  fastMathError,
  fastMathInputs,
  fastMathSource,
  FP16_CASE,
} from './numba-parity-suite.test-support.js';
import { FP16_FUNCTION_NAMES } from '../typing/fp16-calls.js';

const CASES: readonly SuiteCase[] = [FP16_CASE, CAPTURED_HOST_ARRAYS_CASE, ROW_VIEWS_CASE, SUBARRAY_VIEWS_CASE];

function signatureOf(c: SuiteCase) {
  return argumentTypes(
    c.args(),
    Array.from({ length: c.kernel.fn.length }, (_, i) => `arg${i}`),
    'simulator',
  );
}

describe('numba parity: simulator against plain JavaScript', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const args = c.args();
      const expected = cloneArgs(args);
      c.reference(expected);
      kernelFor(c, 'simulator').launch({ grid: c.grid, block: c.block, sharedMemory: c.sharedMemory }, ...args);
      for (const o of c.outputs)
        expect(
          firstDifference(outputData(args[o]), outputData(expected[o]), c.tolerance),
          `argument ${o}`,
        ).toBeUndefined();
    });
  }

  it('has every cuda.fp16 function the typer knows on the host-side cuda object, each throwing outside kernels', () => {
    expect(Object.keys(hostCuda.fp16).sort()).toEqual([...FP16_FUNCTION_NAMES].sort());
    expect(() => hostCuda.fp16.hadd(1, 2)).toThrow(/only available inside a kernel/);
  });
});

describe('numba parity: refusals', () => {
  it('refuses a cuda.fp16 argument that is not f16 (nor widens into it), naming the function and the cast', () => {
    const kernel = jit(
      (x: Float32Array) => {
        x[0] = cuda.fp16.hadd(x[0]!, 1);
      },
      { target: 'simulator' },
    );
    expect(() => kernel.compile([array(f32, 1)])).toThrow(KernelTypeError);
    expect(() => kernel.compile([array(f32, 1)])).toThrow(
      /cuda\.fp16\.hadd takes f16 values, got f32: convert it first, cuda\.f16\(x\)/,
    );
  });
});

describe('numba parity: host arrays in the constants', () => {
  const PRICES = Float64Array.from({ length: 24 }, (_, i) => i);

  it('refuses writes to a captured host array, naming constant memory', () => {
    const kernel = jit(
      (x: Float32Array) => {
        PRICES[0] = x[0]!;
      },
      { target: 'simulator', constants: { PRICES } },
    );
    expect(() => kernel.compile([array(f32, 1)])).toThrow(/'PRICES' is constant memory/);
  });

  it('reports an index outside a captured host array in the simulator', () => {
    const kernel = jit(
      (x: Float64Array) => {
        x[0] = PRICES[cuda.threadIdx.x + 23]!;
      },
      { target: 'simulator', constants: { PRICES } },
    );
    expect(() => kernel.launch({ grid: 1, block: 2 }, new Float64Array(1))).toThrow(/out of bounds|outside/);
  });

  it('refuses a host array of mixed values, naming the constant', () => {
    const MIXED = [1, 2n];
    const kernel = jit(
      (x: Float64Array) => {
        x[0] = Number(MIXED[0]);
      },
      { target: 'simulator', constants: { MIXED: MIXED as unknown as number[] } },
    );
    expect(() => kernel.compile([array(f64, 1)])).toThrow(
      /the constant 'MIXED' is read as constant memory: an array for constant memory holds only numbers/,
    );
  });
});

describe('numba parity: views', () => {
  const compile = (fn: (x: Float32Array) => void) => jit(fn, { target: 'simulator' }).compile([array(f32, 1)]);

  it('declares views with const, and refuses a view made where it is used whose bounds have effects', () => {
    expect(() =>
      compile((x) => {
        // biome-ignore lint/style/useConst: the kernel language refuses a view held in a let; this is what is tested
        let v = x.subarray(1);
        v[0] = 1;
      }),
    ).toThrow(/a view is declared with const: const v = x\.subarray\(1\)/);
    expect(() =>
      compile((x) => {
        let i = 0;
        x.subarray(i++)[0] = 1;
      }),
    ).toThrow(/the bounds of this view have effects .* const v = x\.subarray\(i\+\+\)/);
  });

  it('reads a 0-d view with get() and writes it with set(v), and says so for r[0]', () => {
    expect(() =>
      compile((x) => {
        const r = (x as unknown as KernelArray<'f32', 1>).row(0) as unknown as Float32Array;
        r[0] = 1;
      }),
    ).toThrow(/'r' is a 0-D view .* it takes 0 index\(es\), 1 given; write r\.get\(\) \(and r\.set\(v\)\)/);
  });

  it('reports an element outside the viewed array in the simulator, at the access', () => {
    const kernel = jit(
      (x: Float32Array) => {
        const tail = x.subarray(2);
        tail[cuda.threadIdx.x] = 1;
      },
      { target: 'simulator' },
    );
    expect(() => kernel.launch({ grid: 1, block: 8 }, new Float32Array(8))).toThrow(
      /index 8 is out of bounds of .*'x'.* \(length 8\)/,
    );
  });
});

/** numba's `cuda.shared.array(0, int32)[1:]`: a view of a shared array where it is declared. */
function viewOfNewSharedKernel(options: { target?: 'simulator'; arch?: string }) {
  return jit((out: Int32Array) => {
    const whole = cuda.shared.array(0, i32);
    const tail = cuda.shared.array(0, i32).subarray(1);
    const t = cuda.threadIdx.x;
    if (t < tail.length) tail[t] = 10 + t;
    cuda.syncthreads();
    out[t] = whole[t]!;
    if (t === 0) out[4] = tail.length;
  }, options);
}

describe('numba parity: a view of a memory array made where it is declared', () => {
  it('const v = cuda.shared.array(0, i32).subarray(1) views the dynamic shared array from its second element', () => {
    const out = new Int32Array(5);
    viewOfNewSharedKernel({ target: 'simulator' }).launch({ grid: 1, block: 4, sharedMemory: 16 }, out);
    // whole[0] is never written: the simulator's shared memory starts zeroed
    expect([...out]).toEqual([0, 10, 11, 12, 3]);
  });
});

describe('numba parity: device arrays in the constants', () => {
  it('passes an array object of the constants by reference after the arguments: the kernel reads and writes it in place, and keeps it', () => {
    const data = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
    const view = StridedMemoryView.fromAny(data);
    const ACC = view as unknown as KernelArray<'f32', 1>; // what the kernel's code sees
    const kernel = jit(
      (x: Float32Array) => {
        const i = cuda.grid(1);
        if (i < ACC.length) ACC[i] = ACC[i]! * 10 + x[i]!;
      },
      { target: 'simulator', constants: { ACC: view } },
    );
    kernel.launch({ grid: 1, block: 8 }, new Float32Array(8).fill(0.5));
    expect([...data]).toEqual([10.5, 20.5, 30.5, 40.5, 50.5, 60.5, 70.5, 80.5]);
    kernel.launch({ grid: 1, block: 8 }, new Float32Array(8));
    expect(data[0]).toBe(105);
    // the launch takes the kernel's own arguments only; the captured array's type ends the signature
    // @ts-expect-error the launch takes the kernel's own arguments only
    expect(() => kernel.launch({ grid: 1, block: 8 }, new Float32Array(8), data)).toThrow(/takes 1 argument/);
    expect([...kernel.specializations.keys()]).toEqual(["array(f32, 1, 'C'), array(f32, 1, 'C')"]);
  });
});

describe('numba parity: fastMath in the simulator', () => {
  it("stays within libdevice's documented error of the fast forms", () => {
    const { x, p, y } = fastMathInputs();
    const out = new Float32Array(FAST_MATH_N * 8);
    jit(fastMathSource.fn, { ...fastMathSource.options, target: 'simulator' }).launch(
      { grid: FAST_MATH_N / 128, block: 128 },
      x,
      p,
      y,
      out,
    );
    expect(fastMathError(x, p, y, out)).toBeUndefined();
    // the check can fail: a result off by more than the bound is reported
    out[8 * 5] = out[8 * 5]! + 1e-3;
    expect(fastMathError(x, p, y, out)).toMatch(/^sin at element 5/);
  });
});

describeWhen([nvvmMissing, ptxasMissing], 'numba parity: NVVM IR → PTX → ptxas -arch=sm_90', () => {
  it('addresses views through their base arrays (one kernel, no copies), accepted by ptxas', () => {
    for (const c of [ROW_VIEWS_CASE, SUBARRAY_VIEWS_CASE]) {
      const { nvvm, ptx } = kernelFor(c, 'gpu', { arch: 'sm_90' }).inspect(signatureOf(c));
      expect(ptxasRejects(ptx), c.name).toBeUndefined();
      expect(nvvm).not.toMatch(/alloca \[/); // a view allocates nothing
    }
  });

  it('compiles a view of a shared array made where it is declared, accepted by ptxas', () => {
    const { ptx } = viewOfNewSharedKernel({ arch: 'sm_90' }).inspect([array(i32, 1)]);
    expect(ptxasRejects(ptx)).toBeUndefined();
    expect(ptx).toMatch(/\.extern \.shared/);
  });

  it('passes a captured array as a kernel parameter (its address at launch), not a constant of the code', () => {
    const view = StridedMemoryView.fromAny(new Float64Array(4));
    const ACC = view as unknown as KernelArray<'f64', 1>;
    const kernel = jit(
      (x: Float64Array) => {
        ACC[0] = x[0]!;
      },
      { arch: 'sm_90', constants: { ACC: view } },
    );
    const { ptx, types } = kernel.inspect([array(f64, 1)]);
    expect(types.params).toEqual({ x: "array(f64, 1, 'C')", ACC: "array(f64, 1, 'C')" });
    expect(ptxasRejects(ptx)).toBeUndefined();
    expect(ptx).toMatch(/\.param \.u64 [\w$]+_param_1/);
  });

  it('puts host arrays read by name in constant memory (ld.const), once per array', () => {
    const { ptx } = kernelFor(CAPTURED_HOST_ARRAYS_CASE, 'gpu', { arch: 'sm_90' }).inspect(
      signatureOf(CAPTURED_HOST_ARRAYS_CASE),
    );
    expect(ptxasRejects(ptx)).toBeUndefined();
    expect(ptx.match(/^\.const \.align \d+ \.b8 [\w$]+\[\d+\]/gm)).toHaveLength(2);
    expect(ptx).toMatch(/ld\.const\.f64/);
  });

  it("writes fastMath's functions as the approximate instructions, with approximate division and flushed denormals", () => {
    const { x, p, y } = fastMathInputs();
    const signature = argumentTypes([x, p, y, new Float32Array(8)], ['x', 'p', 'y', 'out'], 'simulator');
    const fast = jit(fastMathSource.fn, { ...fastMathSource.options, arch: 'sm_90' }).inspect(signature).ptx;
    expect(ptxasRejects(fast)).toBeUndefined();
    for (const instruction of [
      'sin.approx.ftz.f32',
      'cos.approx.ftz.f32',
      'ex2.approx.ftz.f32',
      'lg2.approx.ftz.f32',
      'div.approx.ftz.f32',
    ])
      expect(fast, instruction).toContain(instruction);
    const precise = jit(fastMathSource.fn, { arch: 'sm_90' }).inspect(signature).ptx;
    expect(precise).not.toMatch(/sin\.approx|cos\.approx|div\.approx/);
  });

  it('writes cuda.fp16 as f16 instructions: add/sub/mul.f16, fma.rn.f16, f16 compares, f16 conversions around the f32 math', () => {
    const { ptx } = kernelFor(FP16_CASE, 'gpu', { arch: 'sm_90' }).inspect(signatureOf(FP16_CASE));
    expect(ptxasRejects(ptx)).toBeUndefined();
    for (const instruction of ['add.rn.f16', 'sub.rn.f16', 'mul.rn.f16', 'fma.rn.f16'])
      expect(ptx, instruction).toContain(instruction);
    expect(ptx).toMatch(/setp\.(eq|equ|ne|neu|gt|gtu|ge|geu|lt|ltu|le|leu|nan|num)\.f16/);
    expect(ptx).toMatch(/cvt\.rn\.f16\.f32/);
    expect(ptx).toMatch(/sqrt\.rn\.f32/);
  });
});
