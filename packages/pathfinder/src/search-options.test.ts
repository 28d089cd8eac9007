// The search functions' options go through the stack's options checker: a
// misspelt key is a SearchOptionError that names the nearest known one.
import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { findHeaderDirectory, findLibdevice, findLibrary, SearchOptionError } from './index.js';

describe('SearchOptions', () => {
  it.each([
    [
      'findLibrary',
      () => findLibrary('nvrtc', { sytemDirectories: false } as never),
      "'sytemDirectories'",
      'systemDirectories',
    ],
    [
      'findHeaderDirectory',
      () => findHeaderDirectory('cuda', { defaultToolkitRot: '/opt/cuda' } as never),
      "'defaultToolkitRot'",
      'defaultToolkitRoot',
    ],
    ['findLibdevice', () => findLibdevice({ sitePackage: [] } as never), "'sitePackage'", 'sitePackages'],
  ])('%s refuses an unknown key with the nearest known one', (where, call, key, suggestion) => {
    const error = errorOf(call);
    expect(error).toBeInstanceOf(SearchOptionError);
    expect(error.message).toContain(where);
    expect(error.message).toContain(key);
    expect(error.message).toContain(suggestion);
  });

  it('refuses values of the wrong type, and a CUDA major it does not know', () => {
    expect(() => findLibrary('nvrtc', { systemDirectories: 'no' } as never)).toThrow(SearchOptionError);
    expect(() => findLibrary('nvrtc', { sitePackages: '/site' } as never)).toThrow(/sitePackages/);
    expect(() => findLibrary('nvrtc', { preferredMajor: 10 } as never)).toThrow(/preferredMajor/);
  });
});
