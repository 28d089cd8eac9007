import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
  sideEffects: string[];
};

describe("StridedMemoryView's static constructors, installed by the entries", () => {
  it('are installed by every entry that hands out the class, each declared a side effect so that bundlers keep it', () => {
    // webpack drops the body of a side-effect-free entry whose names it redirects to their modules: the install with it
    for (const [entry, source] of [
      ['./dist/index.js', 'index.ts'],
      ['./dist/native/index.js', 'native/index.ts'],
    ] as const) {
      expect(manifest.sideEffects).toContain(entry);
      expect(readFileSync(join(import.meta.dirname, source), 'utf8')).toMatch(
        /^import '\.\.?\/install-view-constructors\.js';$/m,
      );
    }
    // the build bundles this module into a shared chunk of the entries
    expect(manifest.sideEffects).toContain('./dist/chunks/*.js');
  });

  it('work once the main entry is imported', async () => {
    const { StridedMemoryView } = await import('./index.js');
    expect(StridedMemoryView.fromAny(new Float32Array(3)).shape).toEqual([3]);
  });
});
