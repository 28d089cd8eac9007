// The ```ts blocks of the READMEs and guides (packages/*/README.md, README.md,
// docs/*.md), as the two tests of this folder read them. The fences:
//
//   ```ts           a standalone module (its imports at the top): type-checked,
//                   and run (readme-run.test.ts);
//   ```ts no-run    standalone and type-checked, but not run, by its nature: a
//                   bundler's config file (vite.config.ts, build.ts), a module
//                   that needs files it does not create; a comment on its first
//                   line says which file it is; keep these few;
//   ```ts fragment  continues an earlier example (its `stream`, `kernel`, ...
//                   undeclared): neither checked nor run.
//
// ```sh, ```js and untagged blocks are neither checked nor run.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
export const packageReadmes = readdirSync(join(repoDir, 'packages')).map((folder) => `packages/${folder}/README.md`);
const guides = readdirSync(join(repoDir, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
export const documents = [...packageReadmes, 'README.md', ...guides];

export interface Block {
  readonly document: string;
  /** The line of its opening fence. */
  readonly line: number;
  readonly code: string;
  /** Fenced ```ts no-run: type-checked, not run. */
  readonly noRun: boolean;
}

/** The standalone ```ts (and ```ts no-run) blocks of a markdown file. */
export function standaloneBlocks(document: string): Block[] {
  const markdown = readFileSync(join(repoDir, document), 'utf8');
  return [...markdown.matchAll(/^```ts( no-run)?\n([\s\S]*?)^```/gm)].map((m) => ({
    document,
    line: markdown.slice(0, m.index).split('\n').length,
    code: m[2]!,
    noRun: m[1] !== undefined,
  }));
}

/** Every standalone block of every document. */
export const blocks: readonly Block[] = documents.flatMap(standaloneBlocks);

/**
 * The module name of a block in a user's project, and its text: blank lines
 * before the code put each diagnostic (and each stack frame) at the markdown's
 * own line: `packages_core_README.md.12.ts(14,5)` is line 14 of that README.
 */
export function blockModule(block: Block): [name: string, text: string] {
  return [`${block.document.replace(/\//g, '_')}.${block.line}.ts`, '\n'.repeat(block.line) + block.code];
}
