import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdapterNotImportedError, StridedMemoryView } from '@cuda-js/memory-view';
import { describe, expect, it } from 'vitest';

const manifest = (dir: string): { exports: Record<string, unknown>; sideEffects: unknown } =>
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', dir, 'package.json'), 'utf8'));

// a scijs ndarray as the adapter recognizes it, without the ndarray package
const scijs = { data: new Float32Array(6), shape: [2, 3], stride: [3, 1], offset: 0, dtype: 'float32' };

describe('cuda-js/adapters', () => {
  it('exports every host adapter of memory-view under cuda-js/adapters, each kept by bundlers (sideEffects)', () => {
    const adapters = Object.keys(manifest('memory-view').exports).filter((k) => k.startsWith('./adapters'));
    expect(adapters.length).toBeGreaterThan(1);
    const own = manifest('cuda-js');
    expect(Object.keys(own.exports).filter((k) => k.startsWith('./adapters'))).toEqual(adapters);
    for (const key of adapters) {
      const file = `./dist/adapters/${key === './adapters' ? 'index' : key.slice('./adapters/'.length)}.js`;
      expect(own.exports[key]).toEqual({ types: file.replace(/\.js$/, '.d.ts'), default: file });
      expect(own.sideEffects).toContain(file);
    }
  });

  it('registers the adapter, and the refusal before names the cuda-js subpath', async () => {
    const error = (() => {
      try {
        StridedMemoryView.fromAny(scijs);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AdapterNotImportedError);
    expect((error as Error).message).toContain("'cuda-js/adapters/ndarray'");
    await import('cuda-js/adapters/ndarray');
    expect(StridedMemoryView.fromAny(scijs).shape).toEqual([2, 3]);
  });
});
