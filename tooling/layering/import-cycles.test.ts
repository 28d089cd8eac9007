import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { valueImportCycles, valueImportGraph, valueImports } from './import-cycles.js';

const root = join(import.meta.dirname, '..', '..');

describe('value-import cycles', () => {
  // jit (lower/expression-lowering ⇄ statement-lowering) has cycles still.
  it.each(['options', 'pathfinder', 'bindings', 'memory-view', 'streams', 'program', 'core', 'cuda-js', 'unplugin'])(
    'there are none inside %s (bundlers warn of each, and the order in which modules run would depend on the entry)',
    (name) => {
      expect(valueImportCycles(join(root, 'packages', name, 'src'))).toEqual([]);
    },
  );
});

describe('valueImportCycles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (files: Record<string, string>): string => {
    const d = mkdtempSync(join(dir, 'case-'));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(d, name, '..'), { recursive: true });
      writeFileSync(join(d, name), text);
    }
    return d;
  };

  it('finds a cycle of value imports, through a subfolder, and names it from its first file', () => {
    const d = write({
      'a.ts': "import { b } from './sub/b.js';\nexport const a = () => b;",
      'sub/b.ts': "import { c } from '../c.js';\nexport const b = c;",
      'c.ts': "export { a } from './a.js';\nexport const c = 1;",
      'd.ts': "import { a } from './a.js';",
    });
    expect(valueImportCycles(d)).toEqual([['a.ts', join('sub', 'b.ts'), 'c.ts', 'a.ts']]);
  });

  it('finds two modules that import each other for values, and nothing of a module that only imports one of them', () => {
    const d = write({
      'a.ts': "import { b } from './b.js';\nexport const a = () => b;",
      'b.ts': "import { a } from './a.js';\nexport const b = () => a;",
      'c.ts': "import { a } from './a.js';\nexport const c = a;",
    });
    expect(valueImportCycles(d)).toEqual([['a.ts', 'b.ts', 'a.ts']]);
  });

  it('gives the value imports of each module, relative and sorted, leaving out type-only ones and tests', () => {
    const d = write({
      'a.ts':
        "import type { B } from './b.js';\nimport { c } from './sub/c.js';\nexport type A = B;\nexport const a = c;",
      'b.ts': "import { a } from './a.js';\nexport type B = typeof a;",
      'sub/c.ts': "export type { B } from '../b.js';\nexport const c = 1;",
      'a.test.ts': "import { b } from './b.js';",
    });
    expect(valueImportGraph(d)).toEqual(
      new Map([
        ['a.ts', [join('sub', 'c.ts')]],
        ['b.ts', ['a.ts']],
        [join('sub', 'c.ts'), []],
      ]),
    );
  });

  it('does not count type-only imports and re-exports, nor tests', () => {
    const d = write({
      'a.ts': "import type { B } from './b.js';\nexport type { C } from './c.js';\nexport const a = 1;",
      'b.ts': "import { a } from './a.js';\nexport type B = typeof a;",
      'c.ts': "import { a } from './a.js';\nexport type C = typeof a;",
      'a.test.ts': "import { b } from './b.js';",
    });
    expect(valueImportCycles(d)).toEqual([]);
  });

  it('counts `import { type X }` (emitted as `import {}` under verbatimModuleSyntax) and bare imports', () => {
    expect(
      valueImports(
        '/p/a.ts',
        "import { type X } from './x.js';\nimport './y.js';\nimport type { Z } from './z.js';\nimport { w } from 'w';",
      ),
    ).toEqual(['/p/x.ts', '/p/y.ts']);
  });
});
