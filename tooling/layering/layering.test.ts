import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALLOWED_DEPENDENCIES, TEST_ONLY_PACKAGES } from './allowed-dependencies.js';
import { checkLayering, importSpecifiers, loadWorkspace } from './check-layering.js';
import { valueImportGraph } from './import-cycles.js';

const root = join(import.meta.dirname, '..', '..');

describe('the package graph of DESIGN.md', () => {
  it('holds in this repository', () => {
    expect(checkLayering(root, ALLOWED_DEPENDENCIES, TEST_ONLY_PACKAGES)).toEqual([]);
  });

  it('covers every package of the design, and no other', () => {
    expect(
      loadWorkspace(root)
        .map((p) => p.name)
        .sort(),
    ).toEqual(Object.keys(ALLOWED_DEPENDENCIES).sort());
  });
});

describe('checkLayering', () => {
  const fixture = mkdtempSync(join(tmpdir(), 'layering-'));
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  function pkg(dir: string, manifest: object, files: Record<string, string>): void {
    mkdirSync(join(fixture, 'packages', dir, 'src'), { recursive: true });
    writeFileSync(join(fixture, 'packages', dir, 'package.json'), JSON.stringify(manifest));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(fixture, 'packages', dir, 'src', name), text);
  }

  pkg('low', { name: '@x/low', exports: { '.': './src/index.ts' } }, { 'index.ts': 'export const a = 1;' });
  pkg(
    'high',
    { name: '@x/high', dependencies: { '@x/low': 'workspace:*' }, exports: { '.': './src/index.ts' } },
    {
      'index.ts': "import { a } from '@x/low';\nexport { a };",
    },
  );

  it('accepts an allowed import through the public entry', () => {
    expect(checkLayering(fixture, { '@x/low': [], '@x/high': ['@x/low'] })).toEqual([]);
  });

  it('finds a dependency that goes up the layers', () => {
    pkg(
      'low',
      { name: '@x/low', dependencies: { '@x/high': 'workspace:*' }, exports: { '.': './src/index.ts' } },
      {
        'index.ts': "export { a } from '@x/high';",
      },
    );
    const messages = checkLayering(fixture, { '@x/low': [], '@x/high': ['@x/low'] }).map((v) => v.message);
    expect(messages).toContain('depends on @x/high, which its layer may not use');
    expect(messages).toContain('imports @x/high, which its layer may not use');
    pkg('low', { name: '@x/low', exports: { '.': './src/index.ts' } }, { 'index.ts': 'export const a = 1;' });
  });

  it("finds imports into another package's files, by name or by relative path", () => {
    writeFileSync(
      join(fixture, 'packages/high/src/deep.ts'),
      "import '@x/low/src/index.js';\nimport '../../low/src/index.js';\nconst m = await import('@x/low');",
    );
    const messages = checkLayering(fixture, { '@x/low': [], '@x/high': ['@x/low'] }).map((v) => v.message);
    expect(messages).toEqual([
      "imports '@x/low/src/index.js', which is not in the exports of @x/low",
      "relative import '../../low/src/index.js' leaves the package",
    ]);
    rmSync(join(fixture, 'packages/high/src/deep.ts'));
  });

  it('finds an import that package.json does not declare', () => {
    pkg(
      'undeclared',
      { name: '@x/undeclared', exports: { '.': './src/index.ts' } },
      { 'index.ts': "export * from '@x/low';" },
    );
    const violations = checkLayering(fixture, { '@x/low': [], '@x/high': ['@x/low'], '@x/undeclared': ['@x/low'] });
    expect(violations.map((v) => v.message)).toEqual(['imports @x/low without declaring it in package.json']);
    rmSync(join(fixture, 'packages/undeclared'), { recursive: true });
  });

  it('reads every import form', () => {
    const text =
      "import a from 'a';\nimport { b } from \"b\";\nexport * from 'c';\nimport 'd';\nawait import('e');\nrequire('f');\nimport type { G } from 'g';";
    expect(importSpecifiers(text).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('lets only tests use a test-only package, and refuses imports by file path', () => {
    pkg('support', { name: '@x/support', exports: { '.': './src/index.ts' } }, { 'index.ts': 'export const h = 1;' });
    pkg(
      'user',
      { name: '@x/user', devDependencies: { '@x/support': 'workspace:*' }, exports: { '.': './src/index.ts' } },
      {
        'index.ts': "import { h } from '@x/support';\nexport { h };",
        'index.test.ts': "import { h } from '@x/support';\nconst b = import('/repo/packages/low/src/index.ts');",
      },
    );
    const allowed = { '@x/low': [], '@x/high': ['@x/low'], '@x/support': [], '@x/user': [] };
    expect(checkLayering(fixture, allowed, ['@x/support']).map((v) => [v.file, v.message])).toEqual([
      [
        join('packages', 'user', 'src', 'index.test.ts'),
        "imports '/repo/packages/low/src/index.ts' by file path; import the package by its name",
      ],
      [join('packages', 'user', 'src', 'index.ts'), 'imports @x/support, which only tests may use'],
    ]);
  });
});

/**
 * core's floors, from the bottom: each folder's modules import values only
 * from the floors below it (and the shared modules beside the floors:
 * errors, options, the generated tables). Types may go up. The folders of
 * one feature each (tensor-map, nccl, system) stand on top of them all.
 */
const ON_TOP = ['tensor-map', 'nccl', 'system'];
const CORE_FLOORS: readonly (readonly [floor: string, mayNotImport: readonly string[]])[] = [
  ['context', ['memory', 'launch', 'graph', 'device', ...ON_TOP]],
  ['memory', ['launch', 'graph', 'device', ...ON_TOP]],
  ['launch', ['graph', 'device', ...ON_TOP]],
  ['graph', ['device', ...ON_TOP]],
  ['device', ON_TOP],
];

describe("@cuda-js/core's floors", () => {
  const graph = valueImportGraph(join(root, 'packages', 'core', 'src'));
  const floorOf = (module: string): string => module.split(sep)[0]!;

  it.each(CORE_FLOORS)('%s/ imports no value from the floors above it', (floor, above) => {
    const modules = [...graph.keys()].filter((m) => floorOf(m) === floor);
    expect(modules.length).toBeGreaterThan(0);
    const upward = modules.flatMap((m) =>
      graph
        .get(m)!
        .filter((target) => above.includes(floorOf(target)))
        .map((target) => `${m} imports ${target}`),
    );
    expect(upward).toEqual([]);
  });
});
