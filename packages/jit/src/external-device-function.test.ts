// declareDevice through the public API, where no GPU is needed: the
// declaration's checks, kernels that call it in the simulator (with its
// `simulate` stand-in, and without one), and the NVVM IR and PTX that
// `inspect` shows. The GPU runs are in external-device-function.gpu.test.ts.
import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { describeWhen, nvvmMissing } from './compile/toolchain-environment.test-support.js';
import {
  array,
  cuda,
  declareDevice,
  ExternalDeviceFunction,
  f32,
  f64,
  i32,
  jit,
  type JitError,
  SimulatorError,
} from './index.js';
import { MUL_F32_CUDA, MUL_F32_PTX } from './linked-code-fixtures.test-support.js';

const sim = { target: 'simulator' } as const;

const mulDecl = declareDevice(
  'mul_f32',
  { args: [f32, f32], returns: f32 },
  { link: { ptx: MUL_F32_PTX }, simulate: (a: number, b: number) => a * b },
);
// the declarations are callable with their declared types: kernels call them with no cast
const mul = mulDecl;
const dotDecl = declareDevice(
  'dot_f32',
  { args: [array(f32, 1), array(f32, 1), i32], returns: f64 },
  {
    link: {
      cuda: 'extern "C" __device__ double dot_f32(float* a, float* b, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s; }',
    },
    simulate: (a: Float32Array, b: Float32Array, n: number) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
      return s;
    },
  },
);
const dot = dotDecl;

describe('declareDevice', () => {
  it('checks its symbol, signature, link inputs and stand-in', () => {
    expect(mulDecl).toBeInstanceOf(ExternalDeviceFunction);
    expect({ ...mulDecl }).toMatchObject({
      symbol: 'mul_f32',
      args: ['f32', 'f32'],
      returns: 'f32',
      link: [{ ptx: MUL_F32_PTX }],
    });
    // a function for TypeScript's sake, which says so if called on the host
    expect(typeof mulDecl).toBe('function');
    expect(() => mulDecl(1, 2)).toThrow(
      /'mul_f32' is linked device code \(declareDevice\): it runs only inside kernels/,
    );
    expect(() => declareDevice('not a name', { args: [], returns: f32 })).toThrow(/the symbol must be a C identifier/);
    expect(() => declareDevice('f', { args: [], returns: array(f32, 1) })).toThrow(/'f' must return a scalar type/);
    expect(() => declareDevice('f', { args: [], returns: f32 }, { link: [{ text: 'x' } as never] })).toThrow(
      /each link input is \{ cuda: source \}, \{ ptx: text \} or an ObjectCode/,
    );
    expect(() => declareDevice('f', { args: [], returns: f32 }, { simulate: 3 as never })).toThrow(
      /option 'simulate' must be a function/,
    );
    expect(() =>
      declareDevice('f', { args: [], returns: f32 }, { link: { cuda: '', includePaths: '/inc' as never } }),
    ).toThrow(/includePaths is a list of folder names/);
    expect(() =>
      declareDevice('f', { args: [], returns: f32 }, { link: { cuda: '', headers: { 'a.h': 1 } as never } }),
    ).toThrow(/headers is a record of header texts/);
    expect(
      declareDevice(
        'f',
        { args: [], returns: f32 },
        { link: { cuda: '', includePaths: ['/inc'], headers: { 'a.h': '' } } },
      ).link,
    ).toEqual([{ cuda: '', includePaths: ['/inc'], headers: { 'a.h': '' } }]);
  });
});

describe('kernels that call linked code, in the simulator', () => {
  it('run the stand-ins: scalars rounded to the declared types, arrays from their first element', () => {
    const kernel = jit(
      (x: Float32Array, y: Float32Array, out: Float64Array) => {
        const i = cuda.grid(1);
        if (i < x.length) x[i] = mul(x[i]!, 3);
        if (i === 0) out[0] = dot(y, y, y.length - 1);
      },
      { ...sim, constants: { mul: mulDecl, dot: dotDecl } },
    );
    const x = Float32Array.from([0.1, 0.2, 0.3, 0.4]);
    const y = Float32Array.from([9, 1, 2, 3, 4]).subarray(1);
    const scaled = Float32Array.from(x, (v) => Math.fround(v * 3));
    const out = new Float64Array(1);
    kernel.launch({ grid: 1, block: 4 }, x, y, out);
    expect([...x]).toEqual([...scaled]);
    // y is a view from element 1 of its buffer: the stand-in sees it from its own first element
    expect(out[0]).toBe(1 + 4 + 9);
  });

  it('refuse a call without a stand-in where a thread reaches it, at the call', () => {
    const bare = declareDevice('mul_f32', { args: [f32, f32], returns: f32 }, { link: { cuda: MUL_F32_CUDA } });
    const kernel = jit(
      (x: Float32Array) => {
        x[0] = (bare as unknown as typeof mul)(x[0]!, 2);
      },
      { ...sim, constants: { bare } },
    );
    const error = errorOf<unknown>(() => {
      kernel.launch({ grid: 1, block: 1 }, new Float32Array(1));
    });
    expect(error).toBeInstanceOf(SimulatorError);
    expect((error as JitError).detail).toMatch(
      /^'mul_f32' is linked device code; give declareDevice a \{ simulate \} function to run it in the simulator/,
    );
    expect((error as JitError).file).toMatch(/external-device-function\.test\.ts$/);
  });
});

describeWhen([nvvmMissing], 'kernels that call linked code, inspected', () => {
  it('declare the symbol in the NVVM IR and leave it .extern in the PTX', () => {
    const kernel = jit(
      (x: Float32Array) => {
        const i = cuda.grid(1);
        x[i] = mul(x[i]!, 2);
      },
      { arch: 'sm_90', constants: { mul: mulDecl } },
    );
    const inspection = kernel.inspect([array(f32, 1)]);
    expect(inspection.nvvm).toContain('declare float @mul_f32(float, float)');
    expect(inspection.ptx).toMatch(/\.extern \.func\s+\(\.param \.b32 func_retval0\) mul_f32/);
    expect(inspection.simulator).toMatch(/callExternal\(/);
  });
});
