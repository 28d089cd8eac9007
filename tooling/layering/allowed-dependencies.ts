/**
 * The package graph of DESIGN.md ("Packages and layers"): which workspace
 * packages each package may depend on and import. Change it only with the design.
 */
export const ALLOWED_DEPENDENCIES: Readonly<Record<string, readonly string[]>> = {
  '@cuda-js/options': [],
  '@cuda-js/pathfinder': ['@cuda-js/options'],
  '@cuda-js/bindings': ['@cuda-js/options', '@cuda-js/pathfinder'],
  '@cuda-js/memory-view': ['@cuda-js/options'],
  '@cuda-js/streams': ['@cuda-js/options', '@cuda-js/bindings', '@cuda-js/memory-view'],
  '@cuda-js/program': ['@cuda-js/options', '@cuda-js/bindings', '@cuda-js/pathfinder'],
  '@cuda-js/core': [
    '@cuda-js/options',
    '@cuda-js/bindings',
    '@cuda-js/streams',
    '@cuda-js/program',
    '@cuda-js/memory-view',
  ],
  '@cuda-js/jit': [
    '@cuda-js/options',
    '@cuda-js/pathfinder',
    '@cuda-js/core',
    '@cuda-js/program',
    '@cuda-js/streams',
    '@cuda-js/memory-view',
  ],
  // the build plugin: reads kernels at build time, writes the JIT's kernel record (its types from @cuda-js/jit);
  // its aot option runs the JIT's ahead-of-time build at build time (docs/design-changes.md); its tests build a fixture app of cuda-js
  '@cuda-js/unplugin': ['@cuda-js/options', '@cuda-js/jit', 'cuda-js'],
  // the tests' shared helpers: no package of the stack (the bindings' own tests use it)
  '@cuda-js/test-support': [],
  'cuda-js': [
    '@cuda-js/options',
    '@cuda-js/pathfinder',
    '@cuda-js/bindings',
    '@cuda-js/memory-view',
    '@cuda-js/streams',
    '@cuda-js/program',
    '@cuda-js/core',
    '@cuda-js/jit',
  ],
};

/** Packages that any package's tests may use (devDependencies, imports from *.test.ts files), and no package's code. */
export const TEST_ONLY_PACKAGES: readonly string[] = ['@cuda-js/test-support'];
