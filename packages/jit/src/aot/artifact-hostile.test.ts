// Kernel artifacts that lie (hostile input, issue h31): in memory or on disk, an artifact is read
// field by field by one reader (artifact-files.ts readKernelArtifact), and what is written reads back.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { jitVersion } from '../compile/kernel-cache.js';
import { KernelArtifactFormatError, KernelBuildError } from '../errors.js';
import { importDeclaredKernels } from './build-module-kernels.js';
import { collectKernels } from './collect-kernels.js';
import {
  kernelArtifactFiles,
  readKernelArtifact,
  writeKernelArtifact,
  type SerializedKernelArtifact,
} from './artifact-files.js';
import {
  KERNEL_ARTIFACT_FORMAT,
  type ArtifactCode,
  type ArtifactKernel,
  type KernelArtifact,
} from './kernel-artifact.js';
import { loadedKernelArtifacts, loadKernelArtifact, unloadKernelArtifact } from './kernel-artifacts.js';

const PTX = new TextEncoder().encode('.version 8.0\n.target sm_90\n');
const CUBIN = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]);
const COLLECTIVES = { block: false, warp: false, grid: false };

function kernel(
  name: string,
  code: readonly ArtifactCode[] = [{ kind: 'ptx', arch: 'compute_90', data: PTX }],
): ArtifactKernel {
  return {
    name,
    hash: 'h',
    specializations: [
      { signature: '', symbol: name.replace(/\W/g, '_') || 'k', params: [], collectives: COLLECTIVES, code },
    ],
  };
}

function artifactOf(...kernels: ArtifactKernel[]): KernelArtifact {
  return { format: KERNEL_ARTIFACT_FORMAT, jitVersion: 'test', toolchain: 'test', kernels };
}

/** A manifest with one code file entry, as JSON. */
function manifestWith(codeEntry: Record<string, unknown>): SerializedKernelArtifact {
  return {
    format: KERNEL_ARTIFACT_FORMAT,
    jitVersion: 'test',
    toolchain: 'test',
    kernels: [
      {
        name: 'k',
        hash: 'h',
        specializations: [
          { signature: '', symbol: 'k', params: [], collectives: COLLECTIVES, code: [codeEntry as never] },
        ],
      },
    ],
  };
}

const folders: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-artifact-hostile-'));
  folders.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const a of loadedKernelArtifacts()) unloadKernelArtifact(a);
});

describe('an artifact in memory', () => {
  it.each([
    ['a kernel with no specializations list', { kernels: [{}] }],
    ['a null kernel', { kernels: [null] }],
    [
      'damaged params',
      artifactOf({ ...kernel('k'), specializations: [{ ...kernel('k').specializations[0]!, params: 'x' as never }] }),
    ],
    ['no format', { kernels: [kernel('k')] }],
  ])('is a KernelArtifactFormatError for %s, not a TypeError', (_what, value) => {
    expect(() => loadKernelArtifact(value as never)).toThrow(KernelArtifactFormatError);
    expect(loadedKernelArtifacts()).toEqual([]);
  });

  it('is a KernelArtifactFormatError, with the cause, where a getter or a Proxy trap throws', () => {
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(() => loadKernelArtifact(trap as never)).toThrow(KernelArtifactFormatError);
    expect(() => loadKernelArtifact(trap as never)).toThrow(/cannot be read as one \(Error: trap\)/);
  });

  it('is kept as given where it is whole (unloadKernelArtifact takes it back)', () => {
    const a: KernelArtifact = { ...artifactOf(kernel('k')), jitVersion: jitVersion() };
    expect(loadKernelArtifact(a)).toBe(a);
    expect(loadedKernelArtifacts()).toEqual([a]);
    unloadKernelArtifact(a);
    expect(loadedKernelArtifacts()).toEqual([]);
  });
});

describe('an artifact whose manifest lies', () => {
  it.each(['../outside.ptx', '/etc/hostname', 'sub/k.ptx', 'sub\\k.ptx', '..', '.', '', 'k\0.ptx'])(
    'refuses the code file name %j: a name in the folder only, never a path out of it',
    (file) => {
      const dir = join(folder(), 'artifact');
      writeKernelArtifact(artifactOf(kernel('k')), dir);
      writeFileSync(join(dir, '..', 'outside.ptx'), PTX);
      writeFileSync(
        join(dir, 'manifest.json'),
        JSON.stringify(manifestWith({ kind: 'ptx', arch: 'compute_90', file, bytes: PTX.byteLength })),
      );
      expect(() => readKernelArtifact(dir)).toThrow(KernelArtifactFormatError);
      expect(() => readKernelArtifact(dir)).toThrow(/is not a file name in the artifact's folder/);
    },
  );

  it('refuses an architecture that is none, before any launch', () => {
    const base64 = Buffer.from(PTX).toString('base64');
    for (const arch of ['banana', 'sm_', '', '../../x']) {
      expect(() => readKernelArtifact(manifestWith({ kind: 'ptx', arch, base64, bytes: PTX.byteLength }))).toThrow(
        /says its architecture is/,
      );
    }
  });

  it('refuses code files that were swapped: PTX where a cubin is listed, a cubin where PTX is', () => {
    const dir = folder();
    const written = writeKernelArtifact(
      artifactOf(
        kernel('k', [
          { kind: 'cubin', arch: 'sm_90', data: CUBIN },
          { kind: 'ptx', arch: 'compute_90', data: PTX },
        ]),
      ),
      dir,
    );
    expect(readKernelArtifact(dir).kernels[0]!.specializations[0]!.code.map((c) => c.kind)).toEqual(['cubin', 'ptx']);
    const [cubinFile, ptxFile] = written.code as [string, string];
    writeFileSync(cubinFile, Uint8Array.from(PTX.subarray(0, CUBIN.byteLength)));
    expect(() => readKernelArtifact(dir)).toThrow(/the cubin for sm_90 is not an ELF file/);
    writeFileSync(cubinFile, CUBIN);
    writeFileSync(ptxFile, Uint8Array.from([...CUBIN, ...PTX]).subarray(0, PTX.byteLength));
    expect(() => readKernelArtifact(dir)).toThrow(/the PTX for compute_90 is not text/);
  });

  it('refuses parameters that lay out another signature than the entry says (f32 read as i32 on the device, silently)', () => {
    const k = kernel('k');
    const spec = k.specializations[0]!;
    const lying = {
      ...spec,
      signature: 'f32',
      params: [{ kind: 'scalar' as const, name: 'a', type: 'i32' as const, local: 0 }],
    };
    expect(() => readKernelArtifact(artifactOf({ ...k, specializations: [lying] }))).toThrow(
      /the entry of kernel k for \(f32\) lays out parameters of \(i32\)/,
    );
    const honest = { ...lying, params: [{ ...lying.params[0]!, type: 'f32' as const }] };
    expect(
      readKernelArtifact(artifactOf({ ...k, specializations: [honest] })).kernels[0]!.specializations[0]!.signature,
    ).toBe('f32');
  });

  it('refuses two kernels of one name, and one signature listed twice (one of them would never be served)', () => {
    expect(() => readKernelArtifact(artifactOf(kernel('k'), kernel('k')))).toThrow(/two kernels are named k/);
    const twice = kernel('k');
    expect(() =>
      readKernelArtifact(
        artifactOf({ ...twice, specializations: [...twice.specializations, ...twice.specializations] }),
      ),
    ).toThrow(/lists the signature \(\) twice/);
    expect(() =>
      readKernelArtifact(artifactOf({ ...twice, specializations: [{ ...twice.specializations[0]!, symbol: '' }] })),
    ).toThrow(/names the entry point ""/);
  });
});

describe('the files of an artifact', () => {
  it('are refused, with nothing written, for an artifact made by hand that would not read back', () => {
    const dir = join(folder(), 'out');
    expect(() =>
      writeKernelArtifact(artifactOf(kernel('k', [{ kind: 'cubin', arch: '../../evil', data: CUBIN }])), dir),
    ).toThrow(KernelArtifactFormatError);
    expect(existsSync(dir)).toBe(false);
  });

  it('name each kernel apart where names differ only in replaced characters or in case', () => {
    const names = ['a/b', 'a_b', 'a b', 'Scale', 'scale', 'x'.repeat(300)];
    const dir = folder();
    const codes = names.map((_, i) => new TextEncoder().encode(`.version 8.0\n// kernel ${i}\n`));
    writeKernelArtifact(
      artifactOf(...names.map((n, i) => kernel(n, [{ kind: 'ptx', arch: 'compute_90', data: codes[i]! }]))),
      dir,
    );
    expect(readdirSync(dir).filter((f) => f.endsWith('.ptx'))).toHaveLength(names.length);
    const back = readKernelArtifact(dir);
    back.kernels.forEach((k, i) => expect(k.specializations[0]!.code[0]!.data).toEqual(codes[i]));
  });

  it('property: any kernel names give code files of safe, distinct (in any case), short names, each holding its own kernel', () => {
    const nameChars = fc.constantFrom('a', 'A', 'b', 'B', '_', '/', '.', '-', ' ', 'é', '~');
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: nameChars, minLength: 1, maxLength: 80 }), { minLength: 1, maxLength: 8 }),
        (names) => {
          const artifact = artifactOf(
            ...names.map((n, i) =>
              kernel(n, [{ kind: 'ptx', arch: 'compute_90', data: new TextEncoder().encode(`// ${i}\n`) }]),
            ),
          );
          const files = kernelArtifactFiles(artifact).filter((f) => f.kind === 'code');
          expect(new Set(files.map((f) => f.name.toLowerCase())).size).toBe(names.length);
          for (const f of files) {
            expect(f.name).toMatch(/^[A-Za-z0-9_.~-]+$/);
            expect(f.name.length).toBeLessThanOrEqual(100);
            expect(f.name).not.toMatch(/^\.\.?$/);
          }
          files.forEach((f, i) => expect(new TextDecoder().decode(f.data as Uint8Array)).toBe(`// ${i}\n`));
        },
      ),
      { seed: 31, numRuns: 200 },
    );
  });
});

describe('collecting the kernels of a module', () => {
  it("takes a module's values by the kernel's brand, never by an aotSource method of its own", async () => {
    const lookalike = {
      aotSource: () => ({}), // no signatures list: reading it was a TypeError, reported as the import failing
    };
    const thrower = {
      aotSource: () => {
        throw new Error('not a kernel');
      },
    };
    await expect(collectKernels(() => ({ lookalike, thrower, n: 5 }))).resolves.toEqual([]);
  });

  it('names an entry that is no path or URL with a KernelBuildError', async () => {
    await expect(importDeclaredKernels(5 as never)).rejects.toThrow(KernelBuildError);
    await expect(importDeclaredKernels(null as never)).rejects.toThrow(/the entry is a module's path or URL, got null/);
  });
});
