// What the READMEs and guides show type-checks as a user's own code: every
// ```ts block of packages/*/README.md, README.md and docs/*.md is a module of
// its own in a user's project (strict, the settings `tsc --init` writes, no
// casts), compiled by TypeScript 5.9 and 6.0 in NodeNext and bundler
// resolution against the built packages. A block that needs a GPU is checked,
// not run.
//
// The convention: a block fenced ```ts is a standalone module (its imports at
// the top) and is checked. A block that continues an earlier example, using
// its names (`stream`, `kernel`, `config`, ...) without declaring them, is
// fenced ```ts fragment (GitHub still highlights it as TypeScript) and is not
// checked; nor are ```sh, ```js or untagged blocks. Each package README's
// main example is standalone.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPILER_VERSIONS, CONFIGS, tsc, userProject } from '@cuda-js/test-support/typescript-project';
import { afterAll, describe, expect, it } from 'vitest';

const repoDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const packageReadmes = readdirSync(join(repoDir, 'packages')).map((folder) => `packages/${folder}/README.md`);
const guides = readdirSync(join(repoDir, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const documents = [...packageReadmes, 'README.md', ...guides];

interface Block {
  readonly document: string;
  readonly line: number;
  readonly code: string;
}

/** The standalone ```ts blocks of a markdown file, each with the line of its opening fence. */
function standaloneBlocks(document: string): Block[] {
  const markdown = readFileSync(join(repoDir, document), 'utf8');
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => ({
    document,
    line: markdown.slice(0, m.index).split('\n').length,
    code: m[1]!,
  }));
}

const blocks = documents.flatMap(standaloneBlocks);
// The bundlers that the plugin's examples configure, as its users install them beside it.
const bundlers = new Map(['esbuild', 'vite'].map((name) => [name, join(repoDir, 'packages', 'unplugin', 'node_modules', name)]));
// Blank lines before the code put each diagnostic at the markdown's own line: `packages_core_README.md.12.ts(14,5)` is line 14 of that README.
const project = userProject(new Map(blocks.map((b) => [`${b.document.replace(/\//g, '_')}.${b.line}.ts`, '\n'.repeat(b.line) + b.code])), bundlers);
afterAll(() => project[Symbol.dispose]());

describe('the README and guide examples type-check as a user would compile them', () => {
  it.each(packageReadmes.map(dirname))('%s has its declarations built (npm test builds first)', (folder) => {
    expect(existsSync(join(repoDir, folder, 'dist', 'index.d.ts')), `${folder}/dist is missing: build first (npx turbo run build)`).toBe(true);
  });

  it.each(packageReadmes)('%s has a standalone example', (readme) => {
    expect(blocks.filter((b) => b.document === readme).length).toBeGreaterThan(0);
  });

  for (const version of COMPILER_VERSIONS) {
    for (const config of CONFIGS) {
      it(`every standalone block with TypeScript ${version} (${config})`, async () => {
        expect(await tsc(version, join(project.dir, config))).toBe('');
      }, 120_000);
    }
  }
});
