// The files of a kernel artifact are file-system input like the disk cache's entries (issue 20):
// a manifest.json or code file that is a FIFO blocked readFileSync for ever, and one that is a
// symlink to /dev/zero grew memory without end. Each is a KernelArtifactFormatError at once now.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KernelArtifactFormatError } from '../errors.js';
import { readKernelArtifact, writeKernelArtifact } from './artifact-files.js';
import { KERNEL_ARTIFACT_FORMAT, type KernelArtifact } from './kernel-artifact.js';

const code = new TextEncoder().encode('.version 8.0\n.target sm_90\n');
const artifact: KernelArtifact = {
  format: KERNEL_ARTIFACT_FORMAT,
  jitVersion: 'test',
  toolchain: 'test',
  kernels: [
    {
      name: 'k',
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

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A folder with the artifact written into it, and the path of its one code file. */
function written(): { dir: string; codeFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-artifact-reads-'));
  folders.push(dir);
  const files = writeKernelArtifact(artifact, dir);
  return { dir, codeFile: files.code[0]! };
}

const canMakeFifo = process.platform === 'linux';

describe('reading a kernel artifact from disk', () => {
  it('reads back what was written', () => {
    const { dir } = written();
    expect(readKernelArtifact(dir).kernels[0]!.specializations[0]!.code[0]!.data).toEqual(code);
  });

  it.runIf(canMakeFifo)('refuses a manifest or code file that is a FIFO, without blocking', () => {
    const manifest = written();
    unlinkSync(join(manifest.dir, 'manifest.json'));
    execFileSync('mkfifo', [join(manifest.dir, 'manifest.json')]);
    expect(() => readKernelArtifact(manifest.dir)).toThrow(KernelArtifactFormatError);
    expect(() => readKernelArtifact(manifest.dir)).toThrow(/manifest\.json is not a regular file \(a FIFO\)/);
    const codeFile = written();
    unlinkSync(codeFile.codeFile);
    execFileSync('mkfifo', [codeFile.codeFile]);
    expect(() => readKernelArtifact(codeFile.dir)).toThrow(
      /the code file .* cannot be read \(.* is not a regular file \(a FIFO\)\)/,
    );
  });

  it.runIf(process.platform === 'linux')(
    'refuses a manifest or code file that is a link to /dev/zero, reading nothing from it',
    () => {
      const manifest = written();
      unlinkSync(join(manifest.dir, 'manifest.json'));
      symlinkSync('/dev/zero', join(manifest.dir, 'manifest.json'));
      expect(() => readKernelArtifact(manifest.dir)).toThrow(/is not a regular file \(a device or socket\)/);
      const codeFile = written();
      unlinkSync(codeFile.codeFile);
      symlinkSync('/dev/zero', codeFile.codeFile);
      expect(() => readKernelArtifact(codeFile.dir)).toThrow(KernelArtifactFormatError);
    },
  );

  it('refuses a code file of another size than the manifest says before reading it, and a size that is no byte count', () => {
    const { dir, codeFile } = written();
    writeFileSync(codeFile, new Uint8Array(code.byteLength + 5));
    expect(() => readKernelArtifact(dir)).toThrow(
      new RegExp(`has ${code.byteLength + 5} bytes, the manifest says ${code.byteLength}`),
    );
    const manifest = JSON.parse(
      JSON.stringify({
        format: KERNEL_ARTIFACT_FORMAT,
        kernels: [
          {
            name: 'k',
            hash: 'h',
            specializations: [
              {
                signature: '',
                symbol: 'k',
                params: [],
                collectives: { block: false, warp: false, grid: false },
                code: [{ kind: 'ptx', arch: 'sm_90', file: 'k.ptx', bytes: -1 }],
              },
            ],
          },
        ],
      }),
    );
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    expect(() => readKernelArtifact(dir)).toThrow(/the ptx for sm_90 says it has -1 bytes/);
  });
});
