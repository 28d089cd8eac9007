import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompileCache, nvvmToolchain, ObjectCode } from '@cuda-js/program';
import { afterAll, describe, expect, it } from 'vitest';
import { device } from '../device-function.js';
import { declareDevice } from '../external-device-function.js';
import { arrayType } from '../typing/jit-types.js';
import type { KernelParam } from '../typing/typed-ir.js';
import { kernelSourceKey, readCachedKernel, writeCachedKernel, type KernelSourceKeyInput } from './kernel-cache.js';
import { itWhen, nvvmMissing } from './toolchain-environment.test-support.js';

const base = (constants: KernelSourceKeyInput['constants']): KernelSourceKeyInput => ({
  source: '(x) => { x[0] = f(1); }',
  constants,
  signature: "array(f32, 1, 'C')",
  symbol: 'k',
  options: { arch: 'sm_90' },
});

describe('the first-level cache key', () => {
  const f = device((v: number) => v * 2);
  const g = device((v: number) => v * 3);
  const h = device((v: number) => f(v) + 1, { constants: { f } });
  const h2 = device((v: number) => f(v) + 1, { constants: { f: g } });

  it('changes with the kernel text, the signature, the options, a constant and a captured array', () => {
    const key = kernelSourceKey(base({ f, N: 4 }));
    expect(kernelSourceKey(base({ f, N: 4 }))).toBe(key); // stable
    expect(kernelSourceKey({ ...base({ f, N: 4 }), source: '(x) => { x[0] = f(2); }' })).not.toBe(key);
    expect(kernelSourceKey({ ...base({ f, N: 4 }), signature: "array(f64, 1, 'C')" })).not.toBe(key);
    expect(kernelSourceKey({ ...base({ f, N: 4 }), options: { arch: 'sm_80' } })).not.toBe(key);
    expect(kernelSourceKey(base({ f, N: 5 }))).not.toBe(key);
    expect(kernelSourceKey(base({ f, N: 4n }))).not.toBe(key); // a bigint is not the number
    expect(kernelSourceKey(base({ f, T: Float32Array.from([1, 2]) }))).not.toBe(
      kernelSourceKey(base({ f, T: Float32Array.from([1, 3]) })),
    );
  });

  it("changes when a callee changes, also a callee's callee (numba's key misses both)", () => {
    expect(kernelSourceKey(base({ f }))).not.toBe(kernelSourceKey(base({ f: g })));
    expect(kernelSourceKey(base({ f: h }))).not.toBe(kernelSourceKey(base({ f: h2 })));
  });

  it("changes with a device function's declared return type, and keys a recursive one", () => {
    const fib = (returns: 'i64' | 'f64') =>
      device(
        function fib(n: number): number {
          return n < 2 ? n : fib(n - 1) + fib(n - 2);
        },
        { returns },
      );
    expect(kernelSourceKey(base({ f: fib('i64') }))).toBe(kernelSourceKey(base({ f: fib('i64') })));
    expect(kernelSourceKey(base({ f: fib('i64') }))).not.toBe(kernelSourceKey(base({ f: fib('f64') })));
  });

  it('changes when a linked file changes', () => {
    const ext = (code: string) => declareDevice('ext', { args: ['f32'], returns: 'f32' }, { link: { cuda: code } });
    expect(kernelSourceKey(base({ f: ext('a') }))).not.toBe(kernelSourceKey(base({ f: ext('b') })));
    const ptx = (text: string) =>
      declareDevice('ext', { args: ['f32'], returns: 'f32' }, { link: ObjectCode.fromPtxText(text) });
    expect(kernelSourceKey(base({ f: ptx('.version 8.0') }))).not.toBe(
      kernelSourceKey(base({ f: ptx('.version 8.1') })),
    );
  });

  it("changes with a linked source's include folders and in-memory headers", () => {
    const ext = (includePaths: string[], headers: Record<string, string>) =>
      declareDevice(
        'ext',
        { args: ['f32'], returns: 'f32' },
        { link: { cuda: '#include "m.h"', includePaths, headers } },
      );
    const key = kernelSourceKey(base({ f: ext(['/a'], {}) }));
    expect(kernelSourceKey(base({ f: ext(['/a'], {}) }))).toBe(key);
    expect(kernelSourceKey(base({ f: ext(['/b'], {}) }))).not.toBe(key);
    expect(kernelSourceKey(base({ f: ext(['/a'], { 'm.h': '#define M 1' }) }))).not.toBe(
      kernelSourceKey(base({ f: ext(['/a'], { 'm.h': '#define M 2' }) })),
    );
  });
});

describe('first-level entries', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-kernel-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const params: KernelParam[] = [
    { kind: 'scalar', name: 'a', type: 'f32', local: 0 },
    {
      kind: 'array',
      name: 'x',
      type: arrayType('f32', 2, 'A', true),
      use: { shape: true, strides: true, written: false },
    },
  ];
  const entry = {
    symbol: 'k',
    params,
    collectives: { block: true, warp: false, grid: true },
    code: new Uint8Array([1, 2, 3, 4]),
  };

  itWhen([nvvmMissing], 'give back the cubin and the ABI (canonical array types), across caches on one folder', () => {
    const key = kernelSourceKey(base({}));
    writeCachedKernel(new CompileCache({ directory: dir }), key, entry);
    const read = readCachedKernel(new CompileCache({ directory: dir }), key); // a new cache: from disk, as a new process would
    expect(read).toEqual(entry);
    expect(read?.params[1]?.type).toBe(arrayType('f32', 2, 'A', true));
  });

  itWhen(
    [nvvmMissing],
    'miss when the libNVVM that compiled them is not the one there now, or the metadata is damaged',
    () => {
      const cache = new CompileCache({ directory: dir });
      const key = kernelSourceKey(base({ other: 1 }));
      writeCachedKernel(cache, key, entry);
      const stored = cache.get(key)!;
      const stamp = JSON.parse(stored.metadata!['toolchain']!) as { path: string; size: number };
      expect(stamp.path).toBe(nvvmToolchain().path);
      cache.set(key, {
        ...stored,
        metadata: { ...stored.metadata, toolchain: JSON.stringify({ ...stamp, size: stamp.size + 1 }) },
      });
      expect(readCachedKernel(cache, key)).toBeUndefined();
      cache.set(key, { ...stored, metadata: { ...stored.metadata, abi: '{"symbol":"k","params":[{"kind":"array"}]' } });
      expect(readCachedKernel(cache, key)).toBeUndefined();
      cache.set(key, { ...stored, codeType: 'ptx' });
      expect(readCachedKernel(cache, key)).toBeUndefined();
    },
  );
});
