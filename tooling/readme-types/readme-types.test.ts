// What the READMEs and guides show type-checks as a user's own code: every
// ```ts block of packages/*/README.md, README.md and docs/*.md is a module of
// its own in a user's project (strict, the settings `tsc --init` writes, no
// casts), compiled by TypeScript 5.9 and 6.0 in NodeNext and bundler
// resolution against the built packages. readme-run.test.ts then runs each
// one with Node.js, in the simulator.
//
// The convention (readme-blocks.ts): a block fenced ```ts is a standalone
// module (its imports at the top), checked and run. ```ts no-run is checked
// but not run (a bundler's config file, a module needing files it does not
// create; keep them few). A block that continues an earlier example, using
// its names (`stream`, `kernel`, `config`, ...) without declaring them, is
// fenced ```ts fragment (GitHub still highlights it as TypeScript) and is not
// checked; nor are ```sh, ```js or untagged blocks. Each package README's
// main example is standalone.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { COMPILER_VERSIONS, CONFIGS, tsc, userProject } from '@cuda-js/test-support/typescript-project';
import { afterAll, describe, expect, it } from 'vitest';
import { blockModule, blocks, packageReadmes, repoDir } from './readme-blocks.js';

// The bundlers that the plugin's examples configure, as its users install them beside it.
const bundlers = new Map(
  ['esbuild', 'vite', 'rollup', 'webpack'].map((name) => [
    name,
    join(repoDir, 'packages', 'unplugin', 'node_modules', name),
  ]),
);
const project = userProject(new Map(blocks.map(blockModule)), bundlers);
afterAll(() => project[Symbol.dispose]());

describe('the README and guide examples type-check as a user would compile them', () => {
  it.each(packageReadmes.map(dirname))('%s has its declarations built (npm test builds first)', (folder) => {
    expect(
      existsSync(join(repoDir, folder, 'dist', 'index.d.ts')),
      `${folder}/dist is missing: build first (npx turbo run build)`,
    ).toBe(true);
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
