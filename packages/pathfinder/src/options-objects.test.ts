// SearchOptions objects that are no plain objects, or answer twice (hostile input): a class
// instance's, a Map's or an inherited setting is no own key, so it was read unchecked or not at
// all; a getter could answer the check with one value and a later search with another.
import { answersTwice, countingProxy, nonPlainOptions } from '@cuda-js/test-support/option-refusal';
import { describe, expect, it } from 'vitest';
import { findHeaderDirectory, findLibdevice, findLibrary, SearchOptionError } from './index.js';
import { SearchEnvironment } from './search-environment.js';

describe('options that are no plain object', () => {
  it.each(nonPlainOptions({ systemDirectories: false }))(
    '%s is a SearchOptionError at every entry point',
    (_what, make) => {
      expect(() => findLibrary('nvrtc', make() as never)).toThrow(SearchOptionError);
      expect(() => findLibrary('nvrtc', make() as never)).toThrow('findLibrary: the options must be a plain object');
      expect(() => findHeaderDirectory('cuda', make() as never)).toThrow(SearchOptionError);
      expect(() => findLibdevice(make() as never)).toThrow(SearchOptionError);
    },
  );
});

describe('options whose getters answer twice are read once: the value checked is the value used', () => {
  it('the arch, and the loader folders that a search reads later', () => {
    const arch = answersTwice('arch', 'x64', 5);
    expect(new SearchEnvironment(arch.options as never).arch).toBe('x64');
    expect(arch.reads()).toBe(1);
    const folders = answersTwice('loaderDefaultFolders', ['/opt/lib'], 'banana');
    const environment = new SearchEnvironment(folders.options as never);
    expect(environment.loaderDefaultFolders()).toEqual(['/opt/lib']);
    expect(environment.options.loaderDefaultFolders).toEqual(['/opt/lib']);
    expect(folders.reads()).toBe(1);
  });
});

describe("a Proxy's get trap runs once per key", () => {
  it('SearchEnvironment, through a later search too', () => {
    const { proxy, gets } = countingProxy({ arch: 'x64', systemDirectories: false, loaderDefaultFolders: [] });
    const environment = new SearchEnvironment(proxy as never);
    environment.loaderDefaultFolders();
    expect(Object.fromEntries(gets)).toEqual({ arch: 1, systemDirectories: 1, loaderDefaultFolders: 1 });
  });
});
