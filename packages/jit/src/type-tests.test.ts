// The type-level tests: the fixture project in ../type-tests compiles with
// tsc 5.9 and 6.0 under users' settings (strict + noUncheckedIndexedAccess +
// exactOptionalPropertyTypes + verbatimModuleSyntax, @cuda-js/test-support's
// tsconfig.user.json), in NodeNext and bundler resolution, against the built
// declarations (dist/, as an installed package has them; `npm test` builds
// first); `@ts-expect-error` lines in launch-errors.ts fail the compile if
// the error they mark goes away. The fixture's kernels then run in the
// simulator. The READMEs' kernels are checked with every other README
// example, by tooling/readme-types.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPILER_VERSIONS, CONFIGS, tsc } from '@cuda-js/test-support/typescript-project';
import { describe, expect, it } from 'vitest';
import { runAll } from '../type-tests/kernels.js';
import { withMaybeUndefined } from '../type-tests/optional-options.js';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const fixtureDir = join(packageDir, 'type-tests');

describe('kernels type-check as ordinary TypeScript under strict settings', () => {
  it('the declarations are built (npm test builds first)', () => {
    expect(
      existsSync(join(packageDir, 'dist', 'index.d.ts')),
      'packages/jit/dist is missing: build first (npx turbo run build)',
    ).toBe(true);
  });

  for (const version of COMPILER_VERSIONS) {
    for (const config of CONFIGS) {
      it(`the fixture project with TypeScript ${version} (${config})`, async () => {
        expect(await tsc(version, join(fixtureDir, config))).toBe('');
      }, 120_000);
    }
  }
});

describe('the fixture kernels run in the simulator', () => {
  it('give what plain JavaScript computes', () => {
    const results = runAll();
    expect(results.axpy).toEqual([12, 24, 36, 48]);
    // the stencil of k*k over a 4x5 grid, border copied
    const rows = 4;
    const cols = 5;
    const at = (i: number, j: number): number => (i * cols + j) ** 2;
    const stencil: number[] = [];
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const border = i === 0 || j === 0 || i === rows - 1 || j === cols - 1;
        stencil.push(
          border ? at(i, j) : Math.fround(0.25 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1))),
        );
      }
    }
    expect(results.stencil).toEqual(stencil);
    expect(results.blockSum).toBe(256);
    expect(results.scaleAndShift).toEqual([3.5, 12.5, 27.5, 48.5]);
    // bins of [0.1, 0.3, 0.3, 0.9] (2 is out of range) and the ballot of the lanes that counted
    expect(results.histogram).toEqual([1, 2, 0, 1, 0b1111]);
  });

  it('take options whose values are undefined as absent (exactOptionalPropertyTypes users pass them)', () => {
    expect(withMaybeUndefined(undefined, undefined, undefined)).toEqual([4, 8, 12, 16, 4, 4, 4, 4]);
  });
});
