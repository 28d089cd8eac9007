// The host adapters behind subpath exports: this file imports the main entry
// only (vitest gives each test file its own module graph), so no adapter is
// registered until a test imports one, as a user would.
import { errorOf } from '@cuda-js/test-support/errors';
import Complex64Array from '@stdlib/array-complex64';
import ndarrayCtor from '@stdlib/ndarray-ctor';
import * as arrow from 'apache-arrow';
import ndarray from 'ndarray';
import { describe, expect, it } from 'vitest';
import { AdapterNotImportedError, isViewable, NotViewableError, StridedMemoryView, viewable } from '../index.js';

const scijs = ndarray(new Float64Array(6), [2, 3]);
const stdlib = new ndarrayCtor('complex64', new Complex64Array(2) as never, [2], [1], 0, 'row-major');
const vector = arrow.makeVector(new Float32Array([1, 2, 3]));

/** The AdapterNotImportedError that `fn` throws. */
function refusal(fn: () => unknown): AdapterNotImportedError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AdapterNotImportedError);
    return error as AdapterNotImportedError;
  }
  throw new Error('expected AdapterNotImportedError, nothing was thrown');
}

describe('host adapters: registered by importing their subpath', () => {
  it('recognizes an array whose adapter is not imported and names the subpath to import', () => {
    for (const [array, name, what] of [
      [scijs, 'ndarray', 'scijs ndarray'],
      [stdlib, 'stdlib-ndarray', 'stdlib ndarray'],
      [vector, 'arrow', 'Apache Arrow vector'],
    ] as const) {
      const error = refusal(() => StridedMemoryView.fromAny(array));
      expect(error).toBeInstanceOf(NotViewableError);
      expect(error.name).toBe('AdapterNotImportedError');
      expect(error.subpath).toBe(`@cuda-js/memory-view/adapters/${name}`);
      expect(error.message).toContain(`import '@cuda-js/memory-view/adapters/${name}'`);
      expect(error.message).toContain(`looks like ${what === 'Apache Arrow vector' ? 'an' : 'a'} ${what},`);
      expect(error.message).toContain("'@cuda-js/memory-view/adapters' for every host adapter");
      // what an install of cuda-js alone resolves
      expect(error.message).toContain(`with the cuda-js package, 'cuda-js/adapters/${name}' or 'cuda-js/adapters'`);
      expect(isViewable(array)).toBe(false);
      expect(refusal(() => viewable((x: unknown) => x, [0])(array)).subpath).toBe(error.subpath);
    }
    expect(refusal(() => StridedMemoryView.fromNdarray(scijs)).message).toMatch(
      /^StridedMemoryView\.fromNdarray views a scijs ndarray through its adapter, which is not loaded: import '@cuda-js\/memory-view\/adapters\/ndarray'/,
    );
    expect(refusal(() => StridedMemoryView.fromStdlibNdarray(stdlib)).subpath).toBe(
      '@cuda-js/memory-view/adapters/stdlib-ndarray',
    );
    expect(refusal(() => StridedMemoryView.fromArrow(vector)).subpath).toBe('@cuda-js/memory-view/adapters/arrow');
  });

  it('lists the adapters and their subpaths for an object that nothing views', () => {
    const error = errorOf<unknown>(() => {
      StridedMemoryView.fromAny({ not: 'an array' });
    });
    expect(error).toBeInstanceOf(NotViewableError);
    expect(error).not.toBeInstanceOf(AdapterNotImportedError);
    expect((error as Error).message).toMatch(/^an object \{ not \} implements no array protocol/);
    expect((error as Error).message).toContain(
      "scijs ndarrays (import '@cuda-js/memory-view/adapters/ndarray' or 'cuda-js/adapters/ndarray')",
    );
    expect((error as Error).message).toContain(
      "Apache Arrow vectors (import '@cuda-js/memory-view/adapters/arrow' or 'cuda-js/adapters/arrow')",
    );
  });

  it('views the arrays of an adapter once its subpath is imported, and only those', async () => {
    await import('./ndarray.js');
    const view = StridedMemoryView.fromAny(scijs);
    expect([view.shape, view.buffer]).toEqual([[2, 3], scijs.data.buffer]);
    expect(StridedMemoryView.fromNdarray(scijs).shape).toEqual([2, 3]);
    expect(isViewable(scijs)).toBe(true);
    expect(refusal(() => StridedMemoryView.fromAny(vector)).subpath).toBe('@cuda-js/memory-view/adapters/arrow');
    expect(() => StridedMemoryView.fromAny({})).toThrow(
      "stdlib ndarrays (import '@cuda-js/memory-view/adapters/stdlib-ndarray' or 'cuda-js/adapters/stdlib-ndarray'), scijs ndarrays (loaded), Apache Arrow vectors (import",
    );
  });

  it('registers every adapter through @cuda-js/memory-view/adapters', async () => {
    await import('./index.js');
    expect(StridedMemoryView.fromAny(vector).shape).toEqual([3]);
    expect(StridedMemoryView.fromArrow(vector).dtype.name).toBe('float32');
    expect(StridedMemoryView.fromAny(stdlib).dtype.name).toBe('complex64');
    expect([isViewable(vector), isViewable(stdlib)]).toEqual([true, true]);
    expect(() => StridedMemoryView.fromAny({})).toThrow(
      /stdlib ndarrays \(loaded\), scijs ndarrays \(loaded\), Apache Arrow vectors \(loaded\)$/,
    );
  });
});
