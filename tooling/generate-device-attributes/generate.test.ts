import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, 'generate.mjs');
const committed = join(import.meta.dirname, '..', '..', 'packages', 'core', 'src', 'generated', 'device-attributes.ts');
const cudaHeader = join(process.env['CUDA_HOME'] ?? '/usr/local/cuda', 'include', 'cuda.h');

function generate(...args: string[]) {
  return spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: 60_000 });
}

describe.skipIf(!existsSync(cudaHeader))('the device attributes generator', () => {
  it('reproduces the committed packages/core/src/generated/device-attributes.ts from cuda.h', () => {
    const r = generate('--check');
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^\d{3} attributes; generated file is current/);
  });
});

describe('the device attributes generator --check', () => {
  const folder = mkdtempSync(join(tmpdir(), 'cuda-js-device-attributes-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('fails, naming the file, where the header gives other attributes, and writes nothing', () => {
    const header = join(folder, 'cuda.h');
    writeFileSync(
      header,
      '#define CUDA_VERSION 13000\ntypedef enum CUdevice_attribute_enum {\n    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1, /**< Maximum number of threads per block */\n    CU_DEVICE_ATTRIBUTE_MAX\n} CUdevice_attribute;\n',
    );
    const before = readFileSync(committed, 'utf8');
    const r = generate(header, '--check');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'stale generated file (run node tooling/generate-device-attributes/generate.mjs): packages/core/src/generated/device-attributes.ts',
    );
    expect(readFileSync(committed, 'utf8')).toBe(before);
  });
});
