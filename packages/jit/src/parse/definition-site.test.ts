// A kernel defined in another module than its jit() call: errors point at
// the kernel's own file, line and column, found through V8's function
// location and, where the code was transformed, its source map. Each case
// runs a real node process on files written here, importing the built
// package (dist/, as an installed one; `npm test` builds first).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { jit, type JitError } from '../index.js';
import { scaleElsewhere } from './kernel-elsewhere.test-support.js';

const run = promisify(execFile);
const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const dir = mkdtempSync(join(tmpdir(), 'cuda-js-definition-site-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, 'node_modules', '@cuda-js'), { recursive: true });
symlinkSync(packageDir, join(dir, 'node_modules', '@cuda-js', 'jit'));
writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'definition-site', private: true, type: 'module' }));

// the kernel reads k.length of a number: a KernelTypeError at `k.length`, line 5 of each kernel file
const KERNEL_TS = `import { cuda } from '@cuda-js/jit';
export interface Unused { readonly a: number }
export function scale(x: Float32Array, k: number): void {
  const i: number = cuda.grid(1);
  x[i] = x[i]! * (k as unknown as Float32Array).length;
}
`;
const KERNEL_JS = `import { cuda } from '@cuda-js/jit';

export function scale(x, k) {
  const i = cuda.grid(1);
  x[i] = x[i] * k.length;
}
`;
const main = (module: string): string => `import { jit } from '@cuda-js/jit';
import { scale } from './${module}';
const kernel = jit(scale, { target: 'simulator' });
try {
  kernel.launch({ grid: 1, block: 1 }, new Float32Array(1), 2);
} catch (e) {
  console.log(JSON.stringify({ name: e.name, file: e.file, line: e.line, column: e.column, snippet: e.snippet }));
}
`;

async function errorOfScript(
  script: string,
  flags: readonly string[] = [],
): Promise<{ name: string; file: string; line: number; column: number; snippet: string }> {
  const { stdout } = await run(process.execPath, [...flags, join(dir, script)], { cwd: dir });
  return JSON.parse(stdout.trim().split('\n').pop()!) as {
    name: string;
    file: string;
    line: number;
    column: number;
    snippet: string;
  };
}

describe("a kernel from another module: errors at the kernel's own definition", () => {
  it('plain node, an .mjs module', async () => {
    writeFileSync(join(dir, 'plain-kernel.mjs'), KERNEL_JS);
    writeFileSync(join(dir, 'plain-main.mjs'), main('plain-kernel.mjs'));
    const error = await errorOfScript('plain-main.mjs');
    expect(error).toMatchObject({
      name: 'KernelTypeError',
      file: join(dir, 'plain-kernel.mjs'),
      line: 5,
      column: KERNEL_JS.split('\n')[4]!.indexOf('k.length') + 1,
    });
    expect(error.snippet.split('\n')[0]).toBe('  x[i] = x[i] * k.length;');
  }, 60_000);

  it('TypeScript compiled to JavaScript with an inline source map: the position in the .ts file', async () => {
    writeFileSync(join(dir, 'mapped-kernel.ts'), KERNEL_TS);
    const out = ts.transpileModule(KERNEL_TS, {
      fileName: 'mapped-kernel.ts',
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        inlineSourceMap: true,
        inlineSources: true,
      },
    });
    writeFileSync(join(dir, 'mapped-kernel.js'), out.outputText);
    writeFileSync(join(dir, 'mapped-main.mjs'), main('mapped-kernel.js'));
    const error = await errorOfScript('mapped-main.mjs');
    const line = KERNEL_TS.split('\n')[4]!;
    expect(error).toMatchObject({ name: 'KernelTypeError', file: join(dir, 'mapped-kernel.ts'), line: 5 });
    // the caret is under the user's own text of the .ts file
    expect(error.snippet.split('\n')[0]).toBe(line);
    expect(error.column).toBe(line.indexOf('(k as unknown') + 2);
  }, 60_000);

  it('vitest: a kernel of a transformed module made a kernel in this one', () => {
    const kernel = jit(scaleElsewhere, { target: 'simulator' });
    let error: JitError | undefined;
    try {
      kernel.launch({ grid: 1, block: 1 }, new Float32Array(1), 2);
    } catch (e) {
      error = e as JitError;
    }
    const file = fileURLToPath(new URL('./kernel-elsewhere.test-support.ts', import.meta.url));
    const lines = readFileSync(file, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('// K-elsewhere')) + 1;
    expect(error?.file).toBe(file);
    expect(error?.line).toBe(line);
    expect(error?.snippet?.split('\n')[0]).toBe(lines[line - 1]);
  });

  const stripsTypes = process.allowedNodeEnvironmentFlags.has('--experimental-strip-types');
  it.skipIf(!stripsTypes)(
    `Node's own type stripping${stripsTypes ? '' : ` (skipped: node ${process.version} has no --experimental-strip-types)`}`,
    async () => {
      writeFileSync(join(dir, 'stripped-kernel.ts'), KERNEL_TS);
      writeFileSync(join(dir, 'stripped-main.mjs'), main('stripped-kernel.ts'));
      const error = await errorOfScript('stripped-main.mjs', ['--experimental-strip-types', '--no-warnings']);
      expect(error).toMatchObject({ name: 'KernelTypeError', file: join(dir, 'stripped-kernel.ts'), line: 5 });
      expect(error.snippet.split('\n')[0]).toBe(KERNEL_TS.split('\n')[4]);
    },
    60_000,
  );
});
