import { errorOf } from '@cuda-js/test-support/errors';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, NotLoadableError, ObjectCodeLoadError } from './errors.js';
import { ObjectCode } from './object-code.js';
import { describeWhen, deviceMissing, nvrtcMissing } from './test-environment.js';
import { Program } from './program.js';

const root = mkdtempSync(join(tmpdir(), 'program-object-code-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('ObjectCode factories', () => {
  it('reads bytes, ArrayBuffers, paths and file URLs', () => {
    const bytes = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 1, 2, 3]);
    const path = join(root, 'k.cubin');
    writeFileSync(path, bytes);
    const fromPath = ObjectCode.fromCubin(path);
    expect(fromPath.code).toEqual(bytes);
    expect(fromPath.name).toBe('k.cubin');
    expect(ObjectCode.fromCubin(pathToFileURL(path)).code).toEqual(bytes);
    expect(ObjectCode.fromFatbin(bytes.buffer.slice(0)).codeType).toBe('fatbin');
    const named = ObjectCode.fromLtoir(bytes, { name: 'mine', symbolMapping: { 'f<int>': '_Z1fIiEvv' } });
    expect(named.name).toBe('mine');
    expect(named.symbolMapping.get('f<int>')).toBe('_Z1fIiEvv');
    expect(ObjectCode.fromObject(bytes).codeType).toBe('object');
    expect(ObjectCode.fromLibrary(bytes).codeType).toBe('library');
  });

  it('keeps PTX text without its terminating NUL', () => {
    const withNul = new TextEncoder().encode('.version 7.8\n\0');
    expect(ObjectCode.fromPtx(withNul).code).toEqual(withNul.subarray(0, withNul.length - 1));
    expect(new TextDecoder().decode(ObjectCode.fromPtxText('.version 9.0\n').code)).toBe('.version 9.0\n');
  });

  it('names what it cannot take', () => {
    expect(() => ObjectCode.fromCubin(new Uint8Array(0))).toThrow(InvalidArgumentError);
    expect(() => ObjectCode.fromCubin(42 as never)).toThrow(InvalidArgumentError);
    expect(() => ObjectCode.from('sass' as never, new Uint8Array([1]))).toThrow(/one of cubin, ptx, ltoir/);
    expect(() => ObjectCode.fromCubin(join(root, 'missing.cubin'))).toThrow(/ENOENT/);
    expect(() => ObjectCode.fromPtxText(new Uint8Array([1]) as never)).toThrow(InvalidArgumentError);
  });

  // Issue 20's rule for file-system input: a FIFO blocked readFileSync for ever, /dev/zero grew memory without end.
  it.runIf(process.platform === 'linux')(
    'reads only regular files, without blocking: a FIFO, a device or a folder is named',
    () => {
      const fifo = join(root, 'fifo.cubin');
      execFileSync('mkfifo', [fifo]);
      expect(() => ObjectCode.fromCubin(fifo)).toThrow(InvalidArgumentError);
      expect(() => ObjectCode.fromCubin(fifo)).toThrow(
        /a path of a regular file of code \(.*fifo\.cubin is not a regular file \(a FIFO\)\)/,
      );
      const zero = join(root, 'zero.cubin');
      symlinkSync('/dev/zero', zero);
      expect(() => ObjectCode.fromPtx(zero)).toThrow(/zero\.cubin is not a regular file \(a device or socket\)/);
      expect(() => ObjectCode.fromFatbin(root)).toThrow(/is not a regular file \(a folder\)/);
    },
  );

  it('refuses to load LTO-IR, objects and libraries, pointing to the Linker', () => {
    for (const o of [
      ObjectCode.fromLtoir(new Uint8Array([1])),
      ObjectCode.fromObject(new Uint8Array([1])),
      ObjectCode.fromLibrary(new Uint8Array([1])),
    ]) {
      expect(() => o.load()).toThrow(NotLoadableError);
      expect(() => o.getKernel('k')).toThrow(/link it first/);
    }
  });

  it('closes twice safely and refuses use after close', () => {
    const o = ObjectCode.fromCubin(new Uint8Array([1, 2]));
    o.close();
    o.close();
    expect(o.isClosed).toBe(true);
    expect(() => o.load()).toThrow(/closed/);
    expect(() => o.getKernel('k')).toThrow(/closed/);
    expect(String(o)).toBe("ObjectCode(cubin 'cubin', 2 bytes, closed)");
  });
});

describeWhen(
  [nvrtcMissing, deviceMissing === undefined ? 'a CUDA device is present here' : undefined],
  'ObjectCode loading without a device',
  () => {
    it('fails with ObjectCodeLoadError that says there is no device', async () => {
      const cubin = new Program('extern "C" __global__ void k() {}', 'c++', { arch: 'sm_90' }).compile('cubin');
      const error = errorOf<ObjectCodeLoadError>(() => {
        cubin.getKernel('k');
      });
      expect(error).toBeInstanceOf(ObjectCodeLoadError);
      expect(error!.message).toContain('CUDA_ERROR_NO_DEVICE');
      expect(error!.message).toContain('There is no CUDA device on this machine');
      expect((error!.cause as { codeName?: string }).codeName).toBe('CUDA_ERROR_NO_DEVICE');
      expect(cubin.isLoaded).toBe(false);
      await expect(cubin.loadAsync()).rejects.toThrow(ObjectCodeLoadError);
    });
  },
);
