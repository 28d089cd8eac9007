import { defineConfig } from 'vitest/config';
import { sourceAliases } from './tooling/scripts/source-aliases.mjs';

// Tests run against each package's TypeScript source (an alias per exported
// entry, from its package.json), so a test run needs no prior `tsc` build;
// native addons still have to be built first.
const alias = sourceAliases();

export default defineConfig({
  resolve: { alias },
  test: {
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'tooling/**/*.test.ts'],
          exclude: ['**/*.gpu.test.ts', '**/node_modules/**', '**/dist/**'],
          // Tests never depend on the machine's speed: vitest's 5 s default failed tests that take
          // 1.5 s alone (child processes, Workers, compiles) while npm test ran on a loaded two-core
          // machine. A test that hangs still fails, after a minute.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'gpu',
          include: ['packages/*/src/**/*.gpu.test.ts', 'tooling/**/*.gpu.test.ts'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          globalSetup: ['tooling/vitest-setup/gpu-global-setup.ts'],
          // One GPU: files run one after another so timings and memory checks are not disturbed.
          fileParallelism: false,
          // The driver's JIT cache off: every PTX load and cuLink* runs ptxas, as on a new machine.
          // A cuLinkCreate whose option arrays died with the call corrupted the heap only then.
          env: { CUDA_CACHE_DISABLE: '1' },
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
