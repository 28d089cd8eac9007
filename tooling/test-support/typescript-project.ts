// TypeScript as users run it: both compilers that the packages' types must
// satisfy, the settings of tsconfig.user.json (what `tsc --init` writes, plus
// strict), in NodeNext and bundler resolution, against the built declarations
// (dist/, as an installed package has them; `npm test` builds first).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const supportDir = dirname(fileURLToPath(import.meta.url));
const repoDir = dirname(dirname(supportDir));

/** The compilers, by the version users have: 6.0 is `typescript`, 5.9 the `typescript59` alias. */
export const COMPILERS = { '6.0': 'typescript', '5.9': 'typescript59' } as const;
export type CompilerVersion = keyof typeof COMPILERS;
export const COMPILER_VERSIONS = Object.keys(COMPILERS) as CompilerVersion[];

/** A project's two configs: NodeNext (Node.js) and bundler resolution (Vite, esbuild, webpack). */
export const CONFIGS = ['tsconfig.json', 'tsconfig.bundler.json'] as const;

/** Runs `tsc -p project` with one compiler; its diagnostics, or '' when the project compiles. */
export async function tsc(version: CompilerVersion, project: string): Promise<string> {
  const bin = join(dirname(require.resolve(`${COMPILERS[version]}/package.json`)), 'bin', 'tsc');
  try {
    await run(process.execPath, [bin, '-p', project], { cwd: dirname(project) });
    return '';
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return `${stdout ?? ''}${stderr ?? ''}` || String(error);
  }
}

/**
 * A temporary project of a user's: the given modules at its root, its
 * node_modules linking every workspace package by its npm name, as installed
 * ones would be, and the `tools` (npm name to folder: the bundlers a plugin's
 * user also installs).
 */
export interface UserProject {
  readonly dir: string;
  [Symbol.dispose](): void;
}

export function userProject(
  files: ReadonlyMap<string, string>,
  tools: ReadonlyMap<string, string> = new Map(),
): UserProject {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-user-project-'));
  const modules = join(dir, 'node_modules');
  const links = new Map(tools);
  for (const folder of readdirSync(join(repoDir, 'packages'))) {
    const { name } = JSON.parse(readFileSync(join(repoDir, 'packages', folder, 'package.json'), 'utf8')) as {
      name: string;
    };
    links.set(name, join(repoDir, 'packages', folder));
  }
  links.set('@types', join(repoDir, 'node_modules', '@types'));
  for (const [name, target] of links) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(target, join(modules, name));
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: join(supportDir, 'tsconfig.user.json'), include: ['*.ts'] }),
  );
  writeFileSync(
    join(dir, 'tsconfig.bundler.json'),
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { module: 'preserve', moduleResolution: 'bundler' },
    }),
  );
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}
