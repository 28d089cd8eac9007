import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Application,
  type DeclarationReflection,
  type ProjectReflection,
  ReferenceType,
  ReflectionKind,
} from 'typedoc';
import { afterAll, describe, expect, it } from 'vitest';
import { duplicatePages } from './duplicate-pages.mjs';

const here = import.meta.dirname;
const root = join(here, '..', '..');
const VALUE_TYPE_PAIRS = join(here, 'value-type-pairs.mjs');
const DUPLICATE_PAGES = join(here, 'duplicate-pages.mjs');

const fixture = mkdtempSync(join(tmpdir(), 'typedoc-pages-'));
afterAll(() => rmSync(fixture, { recursive: true, force: true }));
// A config of its own: TypeDoc would otherwise read the repository's typedoc.json (packages mode) from the working directory.
writeFileSync(join(fixture, 'typedoc.json'), '{}');
writeFileSync(
  join(fixture, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', types: [], skipLibCheck: true },
    include: ['*.ts'],
  }),
);
writeFileSync(
  join(fixture, 'pairs.ts'),
  `/** The modes (named constants). */
export const Mode = Object.freeze({ A: 0, B: 1 } as const);
/** A value of the enum Mode. */
export type Mode = 0 | 1;
/** Takes a mode. */
export function useMode(mode: Mode): Mode {
  return mode;
}
/** A shape. */
export interface Shape {
  readonly sides: number;
}
/** The default shape. */
export const Shape: Shape = { sides: 3 };
`,
);
writeFileSync(
  join(fixture, 'core.ts'),
  `/**\n * @module core\n */\n/** The core's version. */\nexport const version = 2;\n/** Core only. */\nexport const coreOnly = 1;\n`,
);
writeFileSync(
  join(fixture, 'umbrella.ts'),
  `/**\n * @module cuda-js\n */\n/** The umbrella's copy of the version. */\nexport const version = 2;\n/** The umbrella's own. */\nexport const report = 'ok';\n`,
);

/** Converts the fixture's entry points with the plugins and validates the project, as the `typedoc` command does. */
async function convert(
  entryPoints: string[],
  plugin: string[],
): Promise<{ project: ProjectReflection; errors: number }> {
  const app = await Application.bootstrapWithPlugins({
    entryPoints: entryPoints.map((file) => join(fixture, file)),
    options: join(fixture, 'typedoc.json'),
    tsconfig: join(fixture, 'tsconfig.json'),
    plugin,
    name: 'fixture',
    logLevel: 'None',
    readme: 'none',
  });
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc did not convert the fixture');
  app.validate(project);
  return { project, errors: app.logger.errorCount };
}

function named(project: ProjectReflection, name: string): DeclarationReflection[] {
  return (project.children ?? []).filter((child) => child.name === name);
}

describe('value-type-pairs.mjs', () => {
  it("folds a type alias into the same-named const's page, and references to the type link there", async () => {
    const { project } = await convert(['pairs.ts'], [VALUE_TYPE_PAIRS]);
    const [mode, ...others] = named(project, 'Mode');
    expect(others).toEqual([]);
    expect(mode?.kind).toBe(ReflectionKind.Variable);
    const summary = mode?.comment?.summary.map((part) => part.text).join('');
    expect(summary).toBe('The modes (named constants).\n\nThe type `Mode` is `0 | 1`. A value of the enum Mode.');
    const parameter = named(project, 'useMode')[0]?.signatures?.[0]?.parameters?.[0]?.type;
    expect(parameter).toBeInstanceOf(ReferenceType);
    expect((parameter as ReferenceType).reflection).toBe(mode);
  });

  it('leaves an interface beside a const as it is (its members are its page)', async () => {
    const { project } = await convert(['pairs.ts'], [VALUE_TYPE_PAIRS]);
    expect(named(project, 'Shape').map((r) => ReflectionKind.singularString(r.kind))).toEqual([
      'Interface',
      'Variable',
    ]);
  });
});

describe('duplicate-pages.mjs', () => {
  it('fails the build on a const and a type of one name, naming them', async () => {
    const { project, errors } = await convert(['pairs.ts'], [DUPLICATE_PAGES]);
    expect(
      duplicatePages(project)
        .map((p) => p.message)
        .sort(),
    ).toEqual([
      'fixture has 2 pages named Mode (Type Alias, Variable; pairs.ts)',
      'fixture has 2 pages named Shape (Interface, Variable; pairs.ts)',
    ]);
    expect(errors).toBe(2);
  });

  it('fails on what value-type-pairs.mjs leaves: the interface beside a const', async () => {
    const { project, errors } = await convert(['pairs.ts'], [VALUE_TYPE_PAIRS, DUPLICATE_PAGES]);
    expect(duplicatePages(project).map((p) => p.message)).toEqual([
      'fixture has 2 pages named Shape (Interface, Variable; pairs.ts)',
    ]);
    expect(errors).toBe(1);
  });

  it('fails on a name of the umbrella cuda-js that another package documents too', async () => {
    const { project, errors } = await convert(['core.ts', 'umbrella.ts'], [DUPLICATE_PAGES]);
    expect(duplicatePages(project).map((p) => p.message)).toEqual([
      'cuda-js documents version, which core documents too',
    ]);
    expect(errors).toBe(1);
  });

  it('passes a project with one page per name', async () => {
    const { project, errors } = await convert(['core.ts'], [DUPLICATE_PAGES]);
    expect(duplicatePages(project)).toEqual([]);
    expect(errors).toBe(0);
  });

  it("runs in the repository's docs build, after the plugins that fold and drop pages", () => {
    const config = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as { plugin: string[] };
    expect(config.plugin).toEqual([
      './tooling/typedoc/layer-reexports.mjs',
      './tooling/typedoc/value-type-pairs.mjs',
      './tooling/typedoc/duplicate-pages.mjs',
    ]);
  });
});
