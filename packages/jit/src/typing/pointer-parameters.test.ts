// Pointer parameters (numba's CPointer): `pointer(u8)` in a declared
// signature, indexed as a 1-D array with no length; the launch fits a bigint
// address (GPU) or an array of the element type to it. The simulator against
// plain JS, the GPU path's ABI through libNVVM and ptxas, and the named errors.
import { u32, u8, f32 } from '@cuda-js/core';
import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, test } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { cuda } from '../cuda.js';
import { KernelArgumentError, KernelTypeError } from '../errors.js';
import { jit } from '../jit.js';
import type { KernelPointer } from '../kernel-array.js';
import { compileAndAssemble, compileRequirements } from '../lower/compiled-kernel.test-support.js';
import { pointerType } from './jit-types.js';
import { array, pointer, resolveSignature } from './signature.js';

const addOneSource = (x: KernelPointer<'u8'>, n: number) => {
  const i = cuda.grid(1);
  if (i < n) x[i] = x[i]! + 1;
};

describe('pointer types', () => {
  test('pointer(dtype) is one canonical type per element type, named for messages and cache keys', () => {
    expect(pointer(u8)).toBe(pointer('u8'));
    expect(pointer(u8)).toBe(pointerType('u8'));
    expect(pointer(u8).name).toBe('pointer(u8)');
    expect(pointer(u8)).not.toBe(array(u8, 1));
    expect(resolveSignature([pointer(f32), u32])).toEqual([pointer(f32), 'u32']);
    expect(() => pointer('u9' as never)).toThrow(/pointer\(dtype\): 'u9' is not a scalar type/);
  });
});

describe('pointer parameters in the simulator', () => {
  test("numba's add_one: a declared pointer(u8) parameter takes the array itself, and a JS number fits the declared u32", () => {
    const addOne = jit(addOneSource, { target: 'simulator', signatures: [[pointer(u8), u32]] });
    const x = Uint8Array.from({ length: 10 }, (_, i) => i * 3);
    addOne.launch({ grid: 1, block: 32 }, x, 7);
    expect([...x]).toEqual(Array.from({ length: 10 }, (_, i) => i * 3 + (i < 7 ? 1 : 0)));
    expect([...addOne.specializations.keys()]).toEqual(['pointer(u8), u32']);
  });

  test('a raw address is refused by the simulator with a named error (it cannot read device memory)', () => {
    const addOne = jit(addOneSource, { target: 'simulator', signatures: [[pointer(u8), u32]] });
    const error = errorOf(() => addOne.launch({ grid: 1, block: 32 }, 0x7f0000001000n, 4));
    expect(error).toBeInstanceOf(KernelArgumentError);
    expect(error.message).toMatch(
      /argument 'x' \(1 of 2\): a raw device address \(0x7f0000001000\) for the pointer parameter, which the simulator cannot read/,
    );
  });

  test('an array of another element type does not fit the pointer: the kernel is typed for its own types, and says why', () => {
    const addOne = jit(addOneSource, { target: 'simulator', signatures: [[pointer(u8), u32]] });
    // a Float32Array does not fit pointer(u8): typed as its own array(f32), where the u8 kernel's `+= 1` works too
    const y = new Float32Array(4);
    addOne.launch({ grid: 1, block: 4 }, y as never, 2); // as a JavaScript caller may: TypeScript refuses it
    expect([...y]).toEqual([1, 1, 0, 0]);
    expect([...addOne.specializations.keys()]).toEqual(["array(f32, 1, 'C'), f64"]);
  });

  test('without a declared pointer, a bigint is an i64 scalar, and indexing it says how to declare the pointer', () => {
    const addOne = jit(addOneSource, { target: 'simulator' });
    const error = errorOf(() => addOne.launch({ grid: 1, block: 32 }, 0x1000n, 4));
    expect(error).toBeInstanceOf(KernelTypeError);
    expect(error.message).toMatch(
      /'x' \(argument 1 of 2\) is used as an array here, but the launch passed a i64 scalar/,
    );
    expect(error.message).toMatch(
      /declare the parameter a pointer in the kernel's signatures: \{ signatures: \[\[pointer\(u8\), \.\.\.\]\] \}/,
    );
  });

  test("a pointer's length, extent or a view of it is a KernelTypeError at the user's line", () => {
    const lengthOf = jit(
      (x: KernelPointer<'u8'>, out: Uint32Array) => {
        out[0] = (x as unknown as Uint8Array).length;
      },
      { target: 'simulator', signatures: [[pointer(u8), array(u32, 1)]] },
    );
    const error = errorOf(() => lengthOf.compile([pointer(u8), array(u32, 1)]));
    expect(error).toBeInstanceOf(KernelTypeError);
    expect(error.message).toMatch(/'x' is a pointer \(pointer\(u8\)\): it has no length or extent to read/);
    expect(error.message).toMatch(/pointer-parameters\.test\.ts:\d+/);
  });
});

describeWhen(compileRequirements, 'pointer parameters through libNVVM and ptxas', () => {
  test('a pointer parameter is one 64-bit address in the ABI (no extents), next to the u32 count', () => {
    const addOne = jit(addOneSource, { target: 'simulator', signatures: [[pointer(u8), u32]] });
    const typed = addOne.compile([pointer(u8), u32]).typed;
    expect(typed.params[0]).toMatchObject({ kind: 'array', use: { shape: false, strides: false, written: true } });
    const { ptx } = compileAndAssemble(typed);
    const params = ptx.match(/\.param\s+\.\S+\s+\S+_param_\d+/g) ?? [];
    expect(params.map((p) => p.split(/\s+/)[1])).toEqual(['.u64', '.u32']);
  });
});
