// Every error path of the JIT through its public API, each with the
// position in this very file (line and column of the offending code), as a
// user sees it: this file is TypeScript that vitest transforms, so the
// positions are found through the compiler's rewriting.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CUDA_ARRAY_INTERFACE } from '@cuda-js/memory-view';
import { errorOfType } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import {
  array,
  cuda,
  f32,
  FreeVariableError,
  i32,
  jit,
  JitError,
  KernelArgumentError,
  KernelTypeError,
  SimulatorError,
  UnsupportedSyntaxError,
} from './index.js';

const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
const thisFile = fileURLToPath(import.meta.url);

/** The 1-based line and column of `token` on the line that carries `marker`. */
function positionOf(marker: string, token: string): { line: number; column: number } {
  const index = lines.findIndex((l) => l.includes(`// ${marker}`));
  if (index === -1) throw new Error(`no line marked ${marker}`);
  const column = lines[index]!.indexOf(token);
  if (column === -1) throw new Error(`'${token}' is not on the line marked ${marker}`);
  return { line: index + 1, column: column + 1 };
}

function expectAt(error: JitError, marker: string, token: string): void {
  const { line, column } = positionOf(marker, token);
  expect(error.file).toBe(thisFile);
  expect({ line: error.line, column: error.column }).toEqual({ line, column });
  expect(error.message.startsWith(`${thisFile}:${line}:${column}: `)).toBe(true);
  expect(error.snippet).toContain(lines[line - 1]!.trim());
  expect(error.snippet!.split('\n')[1]!.indexOf('^')).toBe(column - 1);
}

const sim = { target: 'simulator' } as const;

describe("JIT errors point at the user's own line and column", () => {
  it('unsupported syntax, when the kernel is made', () => {
    const error = errorOfType(JitError, () =>
      jit((x: Float32Array) => {
        for (const v of x) x[0] = v; // E-syntax
      }, sim),
    );
    expect(error).toBeInstanceOf(UnsupportedSyntaxError);
    expect(error.detail).toMatch(/for\.\.\.of/);
    expectAt(error, 'E-syntax', 'for (const');
  });

  it('a free variable, with the hint to pass it as a constant', () => {
    const scale = 3;
    const kernel = jit((x: Float32Array) => {
      x[0] = scale; // E-free
    }, sim);
    const error = errorOfType(JitError, () => kernel.launch({ grid: 1, block: 1 }, new Float32Array(1)));
    expect(error).toBeInstanceOf(FreeVariableError);
    expect(error.detail).toContain('constants: { scale: ... }');
    expectAt(error, 'E-free', 'scale;');
    // and with the constant given, it runs
    const ok = jit(
      (x: Float32Array) => {
        x[0] = scale;
      },
      { ...sim, constants: { scale } },
    );
    const out = new Float32Array(1);
    ok.launch({ grid: 1, block: 1 }, out);
    expect(out[0]).toBe(3);
  });

  it('a type mismatch names both types', () => {
    const kernel = jit((n: number, x: Float32Array) => {
      n = x[0]! * 0.5; // E-mismatch
      x[1] = n;
    }, sim);
    const error = errorOfType(JitError, () => kernel.launch({ grid: 1, block: 1 }, i32(2), new Float32Array(2)));
    expect(error).toBeInstanceOf(KernelTypeError);
    expect(error.detail).toMatch(/f32.*i32|i32.*f32/);
    expectAt(error, 'E-mismatch', 'n = x');
  });

  it('swapped arguments: the parameter used as an array is named, with its position and what was passed', () => {
    const kernel = jit((a: number, x: Float32Array, y: Float32Array) => {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i]! + y[i]!; // E-swapped
    }, sim);
    const x = new Float32Array(4);
    // @ts-expect-error: TypeScript refuses the swap; JavaScript callers get the run-time message
    const error = errorOfType(JitError, () => kernel.launch({ grid: 1, block: 4 }, x, f32(2), x));
    expect(error).toBeInstanceOf(KernelTypeError);
    expect(error.detail).toBe(
      "'a' (argument 1 of 3) is used as a scalar here, but the launch passed an array(f32, 1, 'C') for it; pass a number as argument 1 (are two arguments swapped?), or index it (a[i])",
    );
    expectAt(error, 'E-swapped', 'a * x');
    const reads = jit((x: Float32Array, n: number) => {
      if (cuda.grid(1) < x.length) x[0] = n; // E-swapped-array
    }, sim);
    // @ts-expect-error: likewise
    const other = errorOfType(JitError, () => reads.launch({ grid: 1, block: 1 }, f32(1), new Float32Array(1)));
    expect(other.detail).toBe(
      "'x' (argument 1 of 2) is used as an array here, but the launch passed a f32 scalar for it; pass an array as argument 1 (are two arguments swapped?)",
    );
    expectAt(other, 'E-swapped-array', 'x.length');
  });

  it('cuda.f32(x) is the cast f32(x), under the name TypeScript types as a number', () => {
    const kernel = jit((x: Float32Array, out: Int32Array) => {
      const i = cuda.grid(1);
      out[cuda.i32(x[i]!)] = cuda.i32(x[i]! * 2) + cuda.u32(1);
    }, sim);
    const out = new Int32Array(4);
    kernel.launch({ grid: 1, block: 2 }, new Float32Array([1.5, 3.7]), out);
    expect([...out]).toEqual([0, 4, 0, 8]);
    expect(kernel.inspect([array(f32, 1), array(i32, 1)]).types.params).toEqual({
      x: "array(f32, 1, 'C')",
      out: "array(i32, 1, 'C')",
    });
    expect(() => cuda.f32(2)).toThrow(/cuda\.f32\(\) is only available inside a kernel/);
  });

  it('a float index, with the hint for plain numbers', () => {
    const kernel = jit((x: Float32Array, k: number) => {
      x[k / 2] = 1; // E-index
    }, sim);
    const error = errorOfType(JitError, () => kernel.launch({ grid: 1, block: 1 }, new Float32Array(2), 1));
    expect(error).toBeInstanceOf(KernelTypeError);
    expect(error.detail).toContain('a plain JS number is f64');
    expectAt(error, 'E-index', 'k / 2] = 1');
  });

  it('a read-only array written', () => {
    const kernel = jit((x: Float32Array) => {
      x[0] = 2; // E-readonly
    }, sim);
    const error = errorOfType(JitError, () => kernel.compile([array(f32, 1, 'C', { readonly: true })]));
    expect(error).toBeInstanceOf(KernelTypeError);
    expect(error.detail).toContain('read-only');
    expectAt(error, 'E-readonly', 'x[0] = 2');
  });

  it('an index out of bounds in the simulator, with the thread', () => {
    const kernel = jit((x: Float32Array) => {
      const i = cuda.grid(1);
      x[i + 1] = 1; // E-bounds
    }, sim);
    const error = errorOfType(JitError, () => kernel.launch({ grid: 1, block: 4 }, new Float32Array(4)));
    expect(error).toBeInstanceOf(SimulatorError);
    expect(error.detail).toMatch(/index 4 is out of bounds.*thread \(3, 0, 0\)/);
    expectAt(error, 'E-bounds', 'x[i + 1]');
  });

  it('an integer division by zero in the simulator', () => {
    const kernel = jit((x: BigInt64Array, d: bigint) => {
      x[0] = x[0]! / d; // E-divide
    }, sim);
    const error = errorOfType(JitError, () => kernel.launch({ grid: 1, block: 1 }, new BigInt64Array(1), 0n));
    expect(error).toBeInstanceOf(SimulatorError);
    expectAt(error, 'E-divide', 'x[0]! / d');
  });

  it('a wrong argument count, a wrong kind of argument and device memory in the simulator', () => {
    const kernel = jit((a: number, x: Float32Array) => {
      x[0] = a;
    }, sim);
    // @ts-expect-error: the run-time check, for JavaScript callers (TypeScript refuses the missing argument)
    expect(() => kernel.launch({ grid: 1, block: 1 }, 1)).toThrow(KernelArgumentError);
    // @ts-expect-error: likewise a string for an array
    expect(() => kernel.launch({ grid: 1, block: 1 }, 1, 'x')).toThrow(KernelArgumentError);
    const onDevice = {
      [CUDA_ARRAY_INTERFACE]: () =>
        Object.freeze({
          shape: [4],
          typestr: '<f4',
          data: Object.freeze([0x7f0000000000n, false]),
          version: 3,
          strides: null,
        }),
    };
    expect(() => kernel.launch({ grid: 1, block: 1 }, 1, onDevice)).toThrow(/host memory|simulator/);
  });
});
