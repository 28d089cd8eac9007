// The plugin declares Node.js ^20.19 || >=22.12 (engines: unplugin 3 needs those), so nothing it installs may want a
// newer one: @babel/parser 8 wanted 22.18, and npm warned EBADENGINE on Node
// 20 (or refused, under --engine-strict). Walks the installed dependencies.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly engines?: { readonly node?: string };
  readonly dependencies?: Readonly<Record<string, string>>;
}

const packageDir = dirname(import.meta.dirname);

function manifestOf(from: string, name: string): string {
  const require = createRequire(join(from, 'package.json'));
  try {
    return require.resolve(`${name}/package.json`);
  } catch {
    // a package whose exports leave out its package.json: up from its entry
    let dir = dirname(require.resolve(name));
    while (
      !existsSync(join(dir, 'package.json')) ||
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest).name !== name
    )
      dir = dirname(dir);
    return join(dir, 'package.json');
  }
}

/** The installed packages that the plugin's own (non-workspace) dependencies pull in, each once. */
function installed(): Manifest[] {
  const seen = new Map<string, Manifest>();
  const visit = (from: string, name: string): void => {
    const path = manifestOf(from, name);
    if (seen.has(path)) return;
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
    seen.set(path, manifest);
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dirname(path), dep);
  };
  const own = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Manifest;
  for (const dep of Object.keys(own.dependencies ?? {})) if (!dep.startsWith('@cuda-js/')) visit(packageDir, dep);
  return [...seen.values()];
}

type Version = readonly [number, number, number];

function parse(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text
    .replace(/^v/, '')
    .split('.')
    .map((p) => (p === 'x' || p === '*' ? 0 : Number(p)));
  return [major, minor, patch];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether `range` (npm's: `||` of space-separated `>=`, `>`, `<`, `<=`, `^`, `~`, exact, `*`) admits `version`. */
function admits(range: string, version: string): boolean {
  const v = parse(version);
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .filter((c) => c !== '' && c !== '*' && c !== 'x')
      .every((c) => {
        const m = /^(>=|<=|>|<|\^|~|=)?\s*(.+)$/.exec(c)!;
        const bound = parse(m[2]!);
        const d = compare(v, bound);
        switch (m[1]) {
          case '>=':
            return d >= 0;
          case '>':
            return d > 0;
          case '<=':
            return d <= 0;
          case '<':
            return d < 0;
          case '^':
            return d >= 0 && v[0] === bound[0];
          case '~':
            return d >= 0 && v[0] === bound[0] && v[1] === bound[1];
          default:
            return d === 0 || (/\.x$|^\d+$/.test(m[2]!) && v[0] === bound[0]);
        }
      }),
  );
}

describe("the plugin's dependencies install on the Node.js versions it declares", () => {
  it('reads ranges as npm does', () => {
    expect(admits('>=20', '20.0.0')).toBe(true);
    expect(admits('^22.18.0 || >=24.11.0', '20.19.0')).toBe(false);
    expect(admits('^20.19.0 || >=22.12.0', '20.19.0')).toBe(true);
    expect(admits('>=12', '20.19.0')).toBe(true);
  });

  it('no dependency wants a Node.js newer than 20 (its latest line, 20.19) or 22.12', () => {
    const own = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Manifest;
    expect(own.engines?.node).toBe('^20.19.0 || >=22.12.0');
    const refused = installed().flatMap((m) =>
      ['20.19.0', '22.12.0']
        .filter((node) => m.engines?.node !== undefined && !admits(m.engines.node, node))
        .map((node) => `${m.name}@${m.version} (engines ${m.engines?.node}) refuses Node.js ${node}`),
    );
    expect(refused).toEqual([]);
  });
});
