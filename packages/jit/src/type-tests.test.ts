// The type-level tests: the fixture project in ../type-tests and every
// kernel of the READMEs compile with tsc 5.9 and 6.0 under strict +
// noUncheckedIndexedAccess + exactOptionalPropertyTypes +
// verbatimModuleSyntax, in NodeNext and bundler resolution, against the
// built declarations (dist/, as an installed package has them; `npm test`
// builds first); `@ts-expect-error` lines in launch-errors.ts fail the
// compile if the error they mark goes away. The fixture's kernels then run
// in the simulator.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runAll } from '../type-tests/kernels.js';

const run = promisify(execFile);
const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const repoDir = dirname(dirname(packageDir));
const fixtureDir = join(packageDir, 'type-tests');
const COMPILERS = { '6.0': 'typescript', '5.9': 'typescript59' } as const;
const CONFIGS = ['tsconfig.json', 'tsconfig.bundler.json'] as const;
const READMES = ['packages/jit/README.md', 'packages/cuda-js/README.md', 'README.md'];

async function tsc(version: keyof typeof COMPILERS, project: string): Promise<string> {
  const bin = join(packageDir, 'node_modules', COMPILERS[version], 'bin', 'tsc');
  try {
    await run(process.execPath, [bin, '-p', project], { cwd: dirname(project) });
    return '';
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return `${stdout ?? ''}${stderr ?? ''}` || String(error);
  }
}

/** The ```ts blocks of a markdown file that make kernels, each a module of its own. */
function kernelBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => /\bjit[.(]/.test(code));
}

// README blocks compile in a project of their own whose node_modules links the workspace's packages, as installed ones would be.
const readmeDir = mkdtempSync(join(tmpdir(), 'cuda-js-readme-types-'));
afterAll(() => rmSync(readmeDir, { recursive: true, force: true }));

function readmeProject(): number {
  const modules = join(readmeDir, 'node_modules');
  mkdirSync(join(modules, '@cuda-js'), { recursive: true });
  for (const name of ['jit', 'core', 'memory-view', 'program', 'streams', 'bindings', 'pathfinder']) symlinkSync(join(repoDir, 'packages', name), join(modules, '@cuda-js', name));
  symlinkSync(join(repoDir, 'packages', 'cuda-js'), join(modules, 'cuda-js'));
  symlinkSync(join(repoDir, 'node_modules', '@types'), join(modules, '@types'));
  writeFileSync(join(readmeDir, 'package.json'), JSON.stringify({ name: 'readme-kernels', private: true, type: 'module' }));
  const base = JSON.parse(readFileSync(join(fixtureDir, 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as { compilerOptions: object };
  writeFileSync(join(readmeDir, 'tsconfig.json'), JSON.stringify({ ...base, include: ['*.ts'] }));
  writeFileSync(join(readmeDir, 'tsconfig.bundler.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { module: 'preserve', moduleResolution: 'bundler' } }));
  let count = 0;
  for (const readme of READMES) {
    const blocks = kernelBlocks(readFileSync(join(repoDir, readme), 'utf8'));
    blocks.forEach((code, i) => {
      writeFileSync(join(readmeDir, `${readme.replace(/[/.]/g, '_')}_${i + 1}.ts`), code);
      count++;
    });
  }
  return count;
}

describe('kernels type-check as ordinary TypeScript under strict settings', () => {
  it('the declarations are built (npm test builds first)', () => {
    expect(existsSync(join(packageDir, 'dist', 'index.d.ts')), 'packages/jit/dist is missing: build first (npx turbo run build)').toBe(true);
  });

  for (const version of Object.keys(COMPILERS) as (keyof typeof COMPILERS)[]) {
    for (const config of CONFIGS) {
      it(`the fixture project with TypeScript ${version} (${config})`, async () => {
        expect(await tsc(version, join(fixtureDir, config))).toBe('');
      }, 120_000);
    }
  }

  const blocks = readmeProject();
  it('the READMEs have kernel examples to check', () => {
    expect(blocks).toBeGreaterThanOrEqual(5);
  });
  for (const version of Object.keys(COMPILERS) as (keyof typeof COMPILERS)[]) {
    for (const config of CONFIGS) {
      it(`every README kernel with TypeScript ${version} (${config})`, async () => {
        expect(await tsc(version, join(readmeDir, config))).toBe('');
      }, 120_000);
    }
  }
});

describe('the fixture kernels run in the simulator', () => {
  it('give what plain JavaScript computes', () => {
    const results = runAll();
    expect(results.axpy).toEqual([12, 24, 36, 48]);
    // the stencil of k*k over a 4x5 grid, border copied
    const rows = 4;
    const cols = 5;
    const at = (i: number, j: number): number => (i * cols + j) ** 2;
    const stencil: number[] = [];
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const border = i === 0 || j === 0 || i === rows - 1 || j === cols - 1;
        stencil.push(border ? at(i, j) : Math.fround(0.25 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1))));
      }
    }
    expect(results.stencil).toEqual(stencil);
    expect(results.blockSum).toBe(256);
    expect(results.scaleAndShift).toEqual([3.5, 12.5, 27.5, 48.5]);
    // bins of [0.1, 0.3, 0.3, 0.9] (2 is out of range) and the ballot of the lanes that counted
    expect(results.histogram).toEqual([1, 2, 0, 1, 0b1111]);
  });
});
