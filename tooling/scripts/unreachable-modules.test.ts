import { describe, expect, it } from 'vitest';
import { manifestEntries, relativeImports, unreachableModules } from './unreachable-modules.mjs';

describe('relativeImports', () => {
  it('reads the static, side-effect and dynamic relative imports that tsc and rolldown write, not package imports or comments', () => {
    const text = [
      "import { a } from './a.js';",
      "export { b } from '../b.js';",
      "export * from './c.js';",
      "import './register.js';",
      "const lazy = () => import('./chunks/lazy-1.js');",
      "import { core } from '@cuda-js/core';",
      "// import('./commented.js')",
      " * import('./in-a-doc-comment.js')",
    ].join('\n');
    expect(relativeImports(text)).toEqual(['./a.js', '../b.js', './c.js', './register.js', './chunks/lazy-1.js']);
  });
});

describe('manifestEntries', () => {
  it('names the targets of exports (every condition), main and bin, inside the package', () => {
    const manifest = {
      exports: {
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
        './native': { default: './dist/native/index.js' },
        './package.json': './package.json',
      },
      main: './dist/index.js',
      bin: { tool: './dist/cli.js' },
    };
    expect(manifestEntries(manifest)).toEqual([
      'dist/index.d.ts',
      'dist/index.js',
      'dist/native/index.js',
      'package.json',
      'dist/index.js',
      'dist/cli.js',
    ]);
    expect(manifestEntries({ bin: 'dist/cli.js' })).toEqual(['dist/cli.js']);
  });
});

describe('unreachableModules', () => {
  it('finds the modules that no entry loads, following imports across folders', () => {
    const files = new Map([
      ['dist/index.js', "export * from './chunks/shared-1.js';\nexport const lazy = () => import('./lazy.js');"],
      ['dist/chunks/shared-1.js', "import '../native/helper.js';"],
      ['dist/native/helper.js', 'export const h = 1;'],
      ['dist/lazy.js', 'export default 1;'],
      ['dist/cli.js', "import { run } from './commands.js';"],
      ['dist/commands.js', 'export function run() {}'],
      // tsc's per-module file beside the bundle, and a type-only module's emit
      ['dist/jit.js', "import './types.js';"],
      ['dist/view-options.js', 'export {};'],
    ]);
    expect(unreachableModules(files, ['dist/index.js', 'dist/cli.js', 'package.json'])).toEqual([
      'dist/jit.js',
      'dist/view-options.js',
    ]);
  });

  it('finds none where every module is loaded, and every module where no entry is shipped', () => {
    const files = new Map([
      ['dist/index.js', "import './a.js';"],
      ['dist/a.js', "import './index.js';"],
    ]);
    expect(unreachableModules(files, ['dist/index.js'])).toEqual([]);
    expect(unreachableModules(files, ['dist/missing.js'])).toEqual(['dist/a.js', 'dist/index.js']);
  });
});
