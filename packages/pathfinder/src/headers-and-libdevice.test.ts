import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findHeaderDirectory,
  findLibdevice,
  HeaderNotFoundError,
  LibdeviceNotFoundError,
  UnknownNameError,
  type SearchOptions,
} from './index.js';

const root = mkdtempSync(join(tmpdir(), 'pathfinder-hdr-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
for (const file of [
  'site-packages/nvidia/cu13/include/nvrtc.h',
  'site-packages/nvidia/cu13/nvvm/libdevice/libdevice.10.bc',
  'conda/include/cuda.h',
  'home/include/cccl/cuda/std/version',
  'home/nvvm/libdevice/libdevice.10.bc',
  'usr/local/cuda/include/cuda.h',
  'usr/local/cuda/include/nvvm.h',
  'sbsa/targets/sbsa-linux/include/cuda.h',
  'sbsa/targets/x86_64-linux/include/cuda.h',
]) {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), '');
}

const options = (env: Record<string, string> = {}, sitePackages = [join(root, 'site-packages')]): SearchOptions => ({
  env,
  sitePackages,
  loaderCache: [],
  defaultToolkitRoot: join(root, 'usr/local/cuda'),
  systemDirectories: false,
});

describe('findHeaderDirectory', () => {
  it('searches wheels, conda, CUDA_HOME, then the default toolkit', () => {
    expect(findHeaderDirectory('nvrtc', options())).toEqual({
      name: 'nvrtc',
      path: join(root, 'site-packages/nvidia/cu13/include'),
      foundVia: 'site-packages',
    });
    expect(findHeaderDirectory('cuda', options({ CONDA_PREFIX: join(root, 'conda') }))).toMatchObject({
      foundVia: 'conda',
      path: join(root, 'conda/include'),
    });
    expect(findHeaderDirectory('cuda', options())).toMatchObject({
      foundVia: 'default toolkit',
      path: join(root, 'usr/local/cuda/include'),
    });
    expect(findHeaderDirectory('cccl', options({ CUDA_HOME: join(root, 'home') }))).toMatchObject({
      foundVia: 'CUDA_HOME',
      path: join(root, 'home/include/cccl'),
    });
    expect(findHeaderDirectory('nvvm', options())).toMatchObject({ path: join(root, 'usr/local/cuda/include') });
  });

  it("takes the header folder of the toolkit's target for the architecture searched", () => {
    const home = { CUDA_HOME: join(root, 'sbsa') };
    expect(findHeaderDirectory('cuda', { ...options(home), arch: 'arm64' }).path).toBe(
      join(root, 'sbsa/targets/sbsa-linux/include'),
    );
    expect(findHeaderDirectory('cuda', { ...options(home), arch: 'x64' }).path).toBe(
      join(root, 'sbsa/targets/x86_64-linux/include'),
    );
  });

  it('honours CUDA_JS_INCLUDE_<NAME>', () => {
    expect(findHeaderDirectory('cuda', options({ CUDA_JS_INCLUDE_CUDA: join(root, 'conda/include') })).foundVia).toBe(
      'override',
    );
  });

  it('lists the places tried when nothing is found', () => {
    const error = (() => {
      try {
        findHeaderDirectory('cccl', options({}, []));
      } catch (e) {
        return e as HeaderNotFoundError;
      }
      throw new Error('expected a failure');
    })();
    expect(error).toBeInstanceOf(HeaderNotFoundError);
    expect(error.message).toContain(`[default toolkit] ${join(root, 'usr/local/cuda/include/cccl')}: no such folder`);
    expect(error.message).toContain(
      `[default toolkit] ${join(root, 'usr/local/cuda/include')}: no cuda/std/version here`,
    );
  });

  it('names an unknown header set', () => {
    expect(() => findHeaderDirectory('thrust')).toThrow(UnknownNameError);
  });
});

describe('findLibdevice', () => {
  it('finds libdevice.10.bc in a wheel first, then in a toolkit', () => {
    expect(findLibdevice(options())).toEqual({
      path: join(root, 'site-packages/nvidia/cu13/nvvm/libdevice/libdevice.10.bc'),
      foundVia: 'site-packages',
    });
    expect(findLibdevice(options({ CUDA_PATH: join(root, 'home') }, []))).toEqual({
      path: join(root, 'home/nvvm/libdevice/libdevice.10.bc'),
      foundVia: 'CUDA_PATH',
    });
  });

  it('fails with the places tried', () => {
    expect(() => findLibdevice(options({}, []))).toThrow(LibdeviceNotFoundError);
    expect(() => findLibdevice(options({}, []))).toThrow(/libdevice 'libdevice\.10\.bc' was not found/);
  });
});
