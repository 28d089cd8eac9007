import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clearCache, findHeaderDirectory, findLibdevice, findLibrary } from './index.js';

// Against the real libraries of this machine: the CUDA 13 toolkit in
// /usr/local/cuda, and Debian's libnvrtc11.2 and libcuda1 where installed (CI does).
const toolkit = existsSync('/usr/local/cuda/include/cuda.h');

describe('on this machine', () => {
  clearCache();

  it.skipIf(!toolkit)('finds libNVVM, libdevice and the cuda.h folder of the toolkit', () => {
    const nvvm = findLibrary('nvvm');
    expect(nvvm.path).toMatch(/libnvvm\.so\.4$/);
    expect(existsSync(nvvm.path)).toBe(true);
    expect(nvvm.cudaMajor).toBe(13);
    expect(existsSync(findLibdevice().path)).toBe(true);
    expect(existsSync(`${findHeaderDirectory('cuda').path}/cuda.h`)).toBe(true);
  });

  const debianNvrtc =
    existsSync('/lib/x86_64-linux-gnu/libnvrtc.so.11.2') || existsSync('/usr/lib/x86_64-linux-gnu/libnvrtc.so.11.2');
  it.skipIf(!debianNvrtc)("finds Debian's NVRTC 11 through the loader cache", () => {
    const nvrtc = findLibrary('nvrtc');
    if (nvrtc.foundVia === 'site-packages') return; // a GPU host with wheels has a newer one first
    expect(nvrtc).toMatchObject({ foundVia: 'ldconfig', cudaMajor: 11 });
    expect(nvrtc.path).toMatch(/libnvrtc\.so\.11\.2$/);
  });

  it.skipIf(!debianNvrtc)(
    "finds Debian's NVRTC 11 in the loader's default folders where its cache does not list it",
    () => {
      const nvrtc = findLibrary('nvrtc', {
        env: {},
        sitePackages: [],
        loaderCache: [],
        defaultToolkitRoot: '/nonexistent',
      });
      expect(nvrtc).toMatchObject({ foundVia: 'system', cudaMajor: 11 });
      expect(nvrtc.path).toMatch(/\/x86_64-linux-gnu\/libnvrtc\.so\.11\.2$/);
    },
  );

  const driver = [
    '/lib/x86_64-linux-gnu/libcuda.so.1',
    '/usr/lib/x86_64-linux-gnu/libcuda.so.1',
    '/usr/lib64/libcuda.so.1',
  ].some(existsSync);
  it.skipIf(!driver)('finds the driver library through the system loader', () => {
    const cuda = findLibrary('cuda');
    expect(['ldconfig', 'LD_LIBRARY_PATH']).toContain(cuda.foundVia);
    expect(cuda.path).toMatch(/libcuda\.so\.1$/);
  });
});
