import { errorOf } from '@cuda-js/test-support/errors';
import { describe, expect, it } from 'vitest';
import { cudaJsPlugin, findKernels, PluginOptionError } from './index.js';

// The options of the build plugin and of findKernels refuse a misspelt key
// with the nearest known name, as a PluginOptionError.
const cases: readonly (readonly [where: string, call: () => unknown, key: string, suggestion: string])[] = [
  ['the cuda-js build plugin', () => cudaJsPlugin.vite({ modles: ['@cuda-js/jit'] } as never), 'modles', 'modules'],
  ['findKernels', () => findKernels("import { jit } from 'cuda-js';", 'app.js', { rot: '/' } as never), 'rot', 'root'],
];

describe('the options of the build plugin', () => {
  it.each(cases)('%s refuses a misspelt key with the nearest known one', (where, call, key, suggestion) => {
    const error = errorOf<PluginOptionError>(call);
    expect(error).toBeInstanceOf(PluginOptionError);
    expect(error.problem).toMatchObject({ kind: 'unknown', where, key, suggestion });
    expect(error.message).toContain(`${where}: unknown option '${key}' (did you mean '${suggestion}'?)`);
  });
});
