import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export interface LayeringViolation {
  readonly packageName: string;
  readonly file: string;
  readonly message: string;
}

interface WorkspacePackage {
  readonly name: string;
  readonly dir: string;
  readonly manifest: {
    name: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
    exports?: Record<string, unknown>;
  };
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== 'node_modules' && entry !== 'dist') out.push(...sourceFiles(path));
    } else if (/\.(?:[cm]?ts|[cm]?js|tsx)$/.test(entry) && !entry.endsWith('.d.ts')) {
      out.push(path);
    }
  }
  return out;
}

/** Module specifiers of static imports, re-exports, dynamic imports and require calls. */
export function importSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) specifiers.push(m[1]!);
  return specifiers;
}

function packageOfSpecifier(
  specifier: string,
  names: readonly string[],
): { name: string; subpath: string } | undefined {
  for (const name of names) {
    if (specifier === name) return { name, subpath: '.' };
    if (specifier.startsWith(`${name}/`)) return { name, subpath: `./${specifier.slice(name.length + 1)}` };
  }
  return undefined;
}

/** Packages outside packages/ that the check covers too: the tests' shared helpers. */
const TOOLING_PACKAGES = ['tooling/test-support'];

export function loadWorkspace(root: string): WorkspacePackage[] {
  const packagesDir = join(root, 'packages');
  return readdirSync(packagesDir)
    .map((entry) => join(packagesDir, entry))
    .concat(TOOLING_PACKAGES.map((dir) => join(root, dir)).filter((dir) => existsSync(join(dir, 'package.json'))))
    .filter((dir) => statSync(dir).isDirectory())
    .map((dir) => ({
      dir,
      manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as WorkspacePackage['manifest'],
    }))
    .map(({ dir, manifest }) => ({ name: manifest.name, dir, manifest }));
}

/**
 * Checks the package graph against `allowed`: declared dependencies, imports
 * in source files (tests too), and that imports go through another package's
 * `exports`, never into its files.
 */
export function checkLayering(
  root: string,
  allowed: Readonly<Record<string, readonly string[]>>,
  testOnly: readonly string[] = [],
): LayeringViolation[] {
  const workspace = loadWorkspace(root);
  const names = workspace.map((p) => p.name);
  const violations: LayeringViolation[] = [];
  for (const pkg of workspace) {
    const ownAllowed = allowed[pkg.name];
    // test-only packages (the shared test helpers) may serve any package's tests, never its code
    const permitted = ownAllowed && !testOnly.includes(pkg.name) ? [...ownAllowed, ...testOnly] : ownAllowed;
    if (!ownAllowed || !permitted) {
      violations.push({
        packageName: pkg.name,
        file: 'package.json',
        message: `${pkg.name} is not a package of the design`,
      });
      continue;
    }
    const declared = {
      ...pkg.manifest.dependencies,
      ...pkg.manifest.devDependencies,
      ...pkg.manifest.peerDependencies,
      ...pkg.manifest.optionalDependencies,
    };
    for (const dep of Object.keys(declared)) {
      if (names.includes(dep) && !permitted.includes(dep)) {
        violations.push({
          packageName: pkg.name,
          file: 'package.json',
          message: `depends on ${dep}, which its layer may not use`,
        });
      }
    }
    for (const file of sourceFiles(pkg.dir)) {
      const rel = relative(root, file);
      for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.')) {
          const target = resolve(dirname(file), specifier);
          if (!(target + sep).startsWith(pkg.dir + sep)) {
            violations.push({
              packageName: pkg.name,
              file: rel,
              message: `relative import '${specifier}' leaves the package`,
            });
          }
          continue;
        }
        if (/(?:^|[/\\])packages[/\\]/.test(specifier)) {
          violations.push({
            packageName: pkg.name,
            file: rel,
            message: `imports '${specifier}' by file path; import the package by its name`,
          });
          continue;
        }
        const hit = packageOfSpecifier(specifier, names);
        if (!hit || hit.name === pkg.name) continue;
        if (testOnly.includes(hit.name) && !/(?:\.test(?:-support)?\.ts|[/\\]test-[\w-]+\.ts)$/.test(file)) {
          violations.push({
            packageName: pkg.name,
            file: rel,
            message: `imports ${hit.name}, which only tests may use`,
          });
        } else if (!permitted.includes(hit.name)) {
          violations.push({
            packageName: pkg.name,
            file: rel,
            message: `imports ${hit.name}, which its layer may not use`,
          });
        } else if (!(hit.name in declared)) {
          violations.push({
            packageName: pkg.name,
            file: rel,
            message: `imports ${hit.name} without declaring it in package.json`,
          });
        }
        const exportsMap = workspace.find((p) => p.name === hit.name)?.manifest.exports ?? {};
        if (!(hit.subpath in exportsMap)) {
          violations.push({
            packageName: pkg.name,
            file: rel,
            message: `imports '${specifier}', which is not in the exports of ${hit.name}`,
          });
        }
      }
    }
  }
  return violations;
}
