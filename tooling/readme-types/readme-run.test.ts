// What the READMEs and guides show runs as shown: every ```ts block of
// packages/*/README.md, README.md and docs/*.md that is neither a fragment nor
// fenced ```ts no-run (the convention: readme-blocks.ts, CONTRIBUTING.md) is
// compiled as a user compiles it, `tsc` with the settings `tsc --init` writes
// (target esnext, NodeNext, strict) in a project that depends on the built
// packages, and run with this Node.js (CI: Node 20), each block a process of
// its own, with CUDA_JS_SIMULATOR=1: a kernel launch runs in the CPU
// simulator, so no GPU is needed. A block passes when the process exits with
// 0, with nothing on stderr that names an uncaught error.
//
// A block of the lower layers (bindings, program, core, streams, and core's
// example in cuda-js: DRIVER_DOCUMENTS) calls the driver or NVRTC itself,
// which the simulator does not stand in for: where the machine lacks the
// library or a device (LibraryNotFoundError, CUDA_ERROR_NO_DEVICE,
// ArchitectureRequiredError), that block is reported as skipped with the
// error's first line, never as passed; on a GPU host it runs. Every other
// block (the JIT's, pathfinder's, memory-view's, ...) must run here, in the
// simulator; it is skipped only where a library it needs (libNVVM) is absent. The jit README's "Errors" sample is checked against what the JIT
// reports for the block above it.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tsc, userProject } from '@cuda-js/test-support/typescript-project';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Block, blockModule, blocks, repoDir } from './readme-blocks.js';

const run = promisify(execFile);
/** The documents whose examples call the driver or NVRTC themselves: skipped (with the reason) where the machine has neither a device nor the library. */
const DRIVER_DOCUMENTS = new Set([
  'packages/bindings/README.md',
  'packages/program/README.md',
  'packages/core/README.md',
  'packages/streams/README.md',
  'packages/cuda-js/README.md',
  'docs/bindings-api.md',
]);
/** The first line of an uncaught error that says that a library is missing (libNVVM for the JIT's `inspect(...).ptx`): skipped for any document. */
const NO_LIBRARY = /^LibraryNotFoundError: .*$/m;
/** The first line of an uncaught error that says what the machine lacks, for DRIVER_DOCUMENTS. */
const NO_DEVICE =
  /^(?:LibraryNotFoundError: .*|CudaError: .*CUDA_ERROR_NO_DEVICE.*|DeviceNotFoundError: .*|ArchitectureRequiredError: .*|NoGpuError: .*)$/m;
const runnable = blocks.filter((b) => !b.noRun);
const project = userProject(new Map(runnable.map(blockModule)));
/** What each block printed, for the checks of what a README says it prints. */
const outputs = new Map<Block, string>();
afterAll(() => project[Symbol.dispose]());

beforeAll(async () => {
  // What `tsc --init` writes for the target (esnext: `using` and decorators are left to the engine), emitting JavaScript.
  writeFileSync(
    join(project.dir, 'tsconfig.run.json'),
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { target: 'esnext', lib: ['esnext'], noEmit: false, outDir: 'out', sourceMap: true },
    }),
  );
  expect(await tsc('6.0', join(project.dir, 'tsconfig.run.json'))).toBe('');
}, 120_000);

describe('the README and guide examples run as shown (Node.js, the simulator)', () => {
  it('there are blocks to run, and few are no-run, each saying on its first line which file it is', () => {
    expect(runnable.length).toBeGreaterThan(10);
    const noRun = blocks.filter((b) => b.noRun);
    expect(noRun.length).toBeLessThanOrEqual(8);
    for (const b of noRun) expect(b.code, `${b.document}:${b.line}`).toMatch(/^\/\/ [\w.-]+\.(?:ts|mjs|js)\b/);
  });

  it.for(runnable.map((block) => ({ where: `${block.document}:${block.line}`, block })))(
    '$where',
    { timeout: 60_000 },
    async ({ block }, context) => {
      const script = join(project.dir, 'out', blockModule(block)[0].replace(/\.ts$/, '.js'));
      expect(existsSync(script)).toBe(true);
      const result = await run(process.execPath, ['--enable-source-maps', script], {
        cwd: project.dir,
        env: { ...process.env, CUDA_JS_SIMULATOR: '1', NODE_OPTIONS: '' },
        timeout: 55_000,
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code?: number; stderr?: string; stdout?: string; message: string }) => ({
          code: error.code ?? 1,
          stdout: error.stdout ?? '',
          stderr: `${error.stderr ?? ''}${error.message}`,
        }),
      );
      outputs.set(block, result.stdout);
      const missing =
        result.code === 0
          ? undefined
          : (DRIVER_DOCUMENTS.has(block.document) ? NO_DEVICE : NO_LIBRARY).exec(result.stderr);
      if (missing) {
        console.log(`${block.document}:${block.line} skipped: ${missing[0]}`);
        context.skip(`needs what this machine lacks: ${missing[0]}`);
      }
      expect(result.stderr, `${block.document}:${block.line} failed`).not.toMatch(/Uncaught|^\w*Error\b.*$/m);
      expect(result.code, result.stderr).toBe(0);
    },
  );

  it("the jit README's Errors sample is what the JIT reports for the block above it", () => {
    const readme = readFileSync(join(repoDir, 'packages/jit/README.md'), 'utf8');
    const errors = readme.slice(readme.indexOf('\n## Errors\n'));
    // the untagged block after the ```ts one: what it prints
    const sample = /^```\n(\/home\/me\/[\s\S]*?)^```/m.exec(errors)![1]!;
    const block = runnable.find(
      (b) =>
        b.document === 'packages/jit/README.md' &&
        b.code.includes('KernelTypeError') &&
        b.line > readme.slice(0, readme.indexOf('\n## Errors\n')).split('\n').length,
    );
    expect(block, 'the Errors section has a ```ts block that makes the error').toBeDefined();
    const printed = outputs.get(block as Block);
    expect(printed, 'the block ran').toBeDefined();
    // the file differs (the README's kernels.ts, this run's module, at the README's own lines); the column and the rest do not
    const where = /^\S+:(\d+):(\d+): /;
    const [, shownLine, shownColumn] = where.exec(sample)!;
    const [, line, column] = where.exec(printed!.trim()) ?? [];
    expect(Number(line) - block!.line, 'the line in the block').toBe(Number(shownLine));
    expect(column, 'the column').toBe(shownColumn);
    expect(printed!.trim().replace(where, ''), 'the message and snippet').toBe(sample.trim().replace(where, ''));
  });
});
