// The order in which a GPU specialization's code is looked for (the sources
// themselves load code, which the gpu project's tests exercise: aot.gpu,
// jit-dispatcher.gpu, compile-kernel.gpu, suites/jit-breadth.gpu).
import { describe, expect, it } from 'vitest';
import { SPECIALIZATION_SOURCES } from './specialization-sources.js';

describe('specialization sources', () => {
  it('asks a loaded kernel artifact first, then the disk cache, and compiles last', () => {
    expect(SPECIALIZATION_SOURCES.map((source) => source.name)).toEqual([
      'fromArtifact',
      'fromDiskCache',
      'compiledNow',
    ]);
  });
});
