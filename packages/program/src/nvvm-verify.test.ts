// verifyNvvm against the real libNVVM of this machine.
import { errorOf } from '@cuda-js/test-support/errors';
import { NvvmError } from '@cuda-js/bindings';
import { expect, it } from 'vitest';
import { InvalidCodeError } from './errors.js';
import { verifyNvvm } from './nvvm-verify.js';
import { describeWhen, nvvmMissing } from './test-environment.js';

const VALID = `
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @store_one(i32* %out) {
entry:
  store i32 1, i32* %out
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (i32*)* @store_one, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0}
`;

describeWhen([nvvmMissing], 'verifyNvvm', () => {
  it('accepts valid IR, with and without an architecture', () => {
    expect(verifyNvvm(VALID)).toBeTypeOf('string');
    expect(verifyNvvm(VALID, { arch: 'sm_90' })).toBeTypeOf('string');
    expect(verifyNvvm(new TextEncoder().encode(VALID), { arch: 90 })).toBeTypeOf('string');
  });

  it('throws NvvmError with a log that names the module and the fault', () => {
    // Parses, but is not valid: an i32 stored through a float pointer.
    const wrong = VALID.replace('store i32 1, i32* %out', 'store float 1.0, i32* %out');
    const error = errorOf<unknown>(() => {
      verifyNvvm(wrong, { name: 'wrong.ll' });
    });
    expect(error).toBeInstanceOf(NvvmError);
    expect((error as NvvmError).log).toMatch(/wrong\.ll/);
  });

  it('refuses empty code and malformed architectures before calling libNVVM', () => {
    expect(() => verifyNvvm('')).toThrow(InvalidCodeError);
    expect(() => verifyNvvm(VALID, { arch: 'sm90' })).toThrow(/invalid architecture/);
  });
});
