// What importing an entry really loads, in a fresh node process that runs the
// sources through module hooks which record every module: the main entry
// (a DLPack-only user) loads no host adapter and no array library; an adapter's
// subpath registers it with the main entry's own StridedMemoryView.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = (file: string): string => pathToFileURL(join(packageDir, 'src', file)).href;
const hooks = pathToFileURL(join(packageDir, 'test', 'typescript-source-hooks.mjs')).href;
const registerHooks = `data:text/javascript,import { register } from 'node:module'; register(${JSON.stringify(hooks)});`;

/** Runs `script` (an ES module) in a fresh node, from the package folder; returns its output and every module it loaded. */
function runFresh(script: string): { output: string; loaded: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'memory-view-entry-'));
  const log = join(dir, 'loaded.txt');
  try {
    const r = spawnSync(process.execPath, ['--import', registerHooks, '--input-type=module', '-e', script], {
      cwd: packageDir,
      encoding: 'utf8',
      env: { ...process.env, LOADED_MODULES_LOG: log, NODE_OPTIONS: '' },
      timeout: 60_000,
    });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const loaded = readFileSync(log, 'utf8').trim().split('\n');
    return { output: r.stdout.trim(), loaded };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ADAPTER_MODULES = /\/src\/adapters\/(?:index|ndarray|stdlib-ndarray|arrow|host-layout)\.ts$/;
const ARRAY_LIBRARIES = /\/node_modules\/(?:\.pnpm\/)?(?:apache-arrow|ndarray|@stdlib)/;

describe('entry points: what an import loads', () => {
  it('the main entry, used for DLPack, loads no host adapter and no array library', () => {
    const { output, loaded } = runFresh(`
      import { DLPACK, DLPACK_DEVICE, StridedMemoryView } from ${JSON.stringify(source('index.ts'))};
      const data = new Float32Array([1, 2, 3, 4]);
      const producer = {
        [DLPACK_DEVICE]: () => [1, 0],
        [DLPACK]: () => ({ version: { major: 1, minor: 3 }, device: { type: 1, id: 0 }, data: data.buffer, dtype: { code: 2, bits: 32, lanes: 1 }, shape: [2, 2], strides: null }),
      };
      console.log(JSON.stringify(StridedMemoryView.fromDLPack(producer).shape));
    `);
    expect(output).toBe('[2,2]');
    expect(loaded).toContain(source('index.ts'));
    expect(loaded).toContain(source('from-dlpack.ts'));
    expect(loaded).toContain(source('adapters/registry.ts'));
    expect(loaded.filter((url) => ADAPTER_MODULES.test(url) || ARRAY_LIBRARIES.test(url))).toEqual([]);
  }, 60_000);

  it("an adapter's subpath loads that adapter alone, and registers it with the main entry", () => {
    const { output, loaded } = runFresh(`
      import { makeVector } from 'apache-arrow';
      import { StridedMemoryView } from ${JSON.stringify(source('index.ts'))};
      await import(${JSON.stringify(source('adapters/arrow.ts'))});
      const view = StridedMemoryView.fromAny(makeVector(new Float32Array([1, 2, 3])));
      console.log(JSON.stringify([StridedMemoryView.isView(view), view.shape, view.dtype.name]));
    `);
    expect(output).toBe('[true,[3],"float32"]');
    expect(loaded).toContain(source('adapters/arrow.ts'));
    expect(loaded.filter((url) => /\/src\/adapters\/(?:ndarray|stdlib-ndarray|index)\.ts$/.test(url))).toEqual([]);
  }, 60_000);
});
