// loadKernelArtifact takes the artifact's folder as a path (relative to the
// working directory, as fs resolves it) or as a file: URL, the form that
// names the folder beside a module: `new URL('./kernels-aot/', import.meta.url)`.
// A URL was read as an object before, and refused as "not a kernel artifact
// (no kernels list)".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorOf } from '@cuda-js/test-support/errors';
import { afterAll, describe, expect, it } from 'vitest';
import { jitVersion } from '../compile/kernel-cache.js';
import { KernelArtifactFormatError } from '../errors.js';
import { readKernelArtifact, writeKernelArtifact } from './artifact-files.js';
import { KERNEL_ARTIFACT_FORMAT, type KernelArtifact } from './kernel-artifact.js';
import { loadedKernelArtifacts, loadKernelArtifact, unloadKernelArtifact } from './kernel-artifacts.js';

const code = new TextEncoder().encode('.version 8.0\n.target sm_90\n');
const artifact: KernelArtifact = {
  format: KERNEL_ARTIFACT_FORMAT,
  jitVersion: jitVersion(),
  toolchain: 'test',
  kernels: [
    {
      name: 'url_test_kernel',
      hash: 'h',
      specializations: [
        {
          signature: '',
          symbol: 'k',
          params: [],
          collectives: { block: false, warp: false, grid: false },
          code: [{ kind: 'ptx', arch: 'sm_90', data: code }],
        },
      ],
    },
  ],
};
const dir = mkdtempSync(join(tmpdir(), 'cuda-js-artifact-url-'));
writeKernelArtifact(artifact, join(dir, 'kernels-aot'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function codeOf(a: KernelArtifact): Uint8Array {
  return a.kernels[0]!.specializations[0]!.code[0]!.data as Uint8Array;
}

describe('loadKernelArtifact with a file: URL', () => {
  it.each([
    ['the folder, with a trailing slash', () => pathToFileURL(join(dir, 'kernels-aot/'))],
    ['the folder, without', () => pathToFileURL(join(dir, 'kernels-aot'))],
    ['the folder, relative to a module', () => new URL('./kernels-aot/', pathToFileURL(join(dir, 'main.js')))],
    ['its manifest.json', () => pathToFileURL(join(dir, 'kernels-aot', 'manifest.json'))],
  ])('loads %s', (_, url) => {
    const loaded = loadKernelArtifact(url());
    try {
      expect(loaded.kernels.map((k) => k.name)).toEqual(['url_test_kernel']);
      expect(codeOf(loaded)).toEqual(code);
      expect(loadedKernelArtifacts()).toContain(loaded);
    } finally {
      unloadKernelArtifact(loaded);
    }
  });

  it('reads the same artifact as the path does', () => {
    expect(readKernelArtifact(pathToFileURL(join(dir, 'kernels-aot/')))).toEqual(
      readKernelArtifact(join(dir, 'kernels-aot')),
    );
  });

  it('resolves a relative string path against the working directory', () => {
    const loaded = loadKernelArtifact(relative(process.cwd(), join(dir, 'kernels-aot')));
    unloadKernelArtifact(loaded);
    expect(codeOf(loaded)).toEqual(code);
  });

  it('names the missing folder of a URL, not "no kernels list"', () => {
    const error = errorOf(() => loadKernelArtifact(pathToFileURL(join(dir, 'nowhere/'))));
    expect(error).toBeInstanceOf(KernelArtifactFormatError);
    expect(error?.message).toContain(join(dir, 'nowhere'));
    expect(error?.message).toContain('cannot be read as a manifest');
  });

  it('refuses a URL of another scheme, saying which it takes', () => {
    const error = errorOf(() => loadKernelArtifact(new URL('https://example.com/kernels-aot/')));
    expect(error).toBeInstanceOf(KernelArtifactFormatError);
    expect(error?.message).toBe(
      'kernel artifact https://example.com/kernels-aot/: only a file: URL names a folder or manifest.json; load other URLs yourself and pass the artifact',
    );
  });
});
