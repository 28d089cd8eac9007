import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const cudaHeader = join(process.env['CUDA_HOME'] ?? '/usr/local/cuda', 'include', 'cuda.h');
const haveGcc = spawnSync('gcc', ['--version']).status === 0;

describe.skipIf(!existsSync(cudaHeader) || !haveGcc)('the bindings generator', () => {
  it('reproduces the committed generated files from the CUDA headers', () => {
    const r = spawnSync(process.execPath, [join(import.meta.dirname, 'generate.mjs'), '--check'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/generated 49\d functions, 5 hand-written, 0 skipped of 502/);
    expect(r.stdout).toContain('generated files are current');
  });
});
