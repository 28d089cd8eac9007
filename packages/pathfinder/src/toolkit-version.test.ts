import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toolkitRootVersion } from './toolkit-version.js';

const base = mkdtempSync(join(tmpdir(), 'pathfinder-toolkit-version-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let roots = 0;
function root(files: Record<string, string>): string {
  const dir = join(base, `root-${roots++}`);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('toolkitRootVersion', () => {
  it("reads version.json, else cuda.h's CUDA_VERSION", () => {
    expect(
      toolkitRootVersion(root({ 'version.json': '{ "cuda": { "name": "CUDA SDK", "version": "13.0.88" } }' })),
    ).toEqual({ major: 13, version: '13.0.88' });
    expect(toolkitRootVersion(root({ 'include/cuda.h': '#pragma once\n#define CUDA_VERSION 12080\n' }))).toEqual({
      major: 12,
      version: '12.8',
    });
    expect(
      toolkitRootVersion(
        root({ 'version.json': 'not json', 'targets/x86_64-linux/include/cuda.h': '#define CUDA_VERSION 13000\n' }),
      ),
    ).toEqual({ major: 13, version: '13.0' });
    expect(toolkitRootVersion(root({}))).toBeUndefined();
  });

  // Issue 20's rule for file-system input: a FIFO blocked readFileSync for ever, a link to /dev/zero grew memory without end.
  it.runIf(process.platform === 'linux')(
    'passes over a version.json or cuda.h that is a FIFO or a device, without blocking',
    () => {
      const dir = root({ 'include/.keep': '' });
      execFileSync('mkfifo', [join(dir, 'version.json')]);
      symlinkSync('/dev/zero', join(dir, 'include', 'cuda.h'));
      mkdirSync(join(dir, 'targets', 'x86_64-linux', 'include'), { recursive: true });
      writeFileSync(join(dir, 'targets', 'x86_64-linux', 'include', 'cuda.h'), '#define CUDA_VERSION 12040\n');
      expect(toolkitRootVersion(dir)).toEqual({ major: 12, version: '12.4' });
    },
  );
});
