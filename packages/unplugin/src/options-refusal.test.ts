import { expectMisspeltOption } from '@cuda-js/test-support/option-refusal';
import { describe, it } from 'vitest';
import { cudaJsPlugin, findKernels, PluginOptionError } from './index.js';

// The options of the build plugin and of findKernels refuse a misspelt key
// with the nearest known name, as a PluginOptionError.
const cases: readonly (readonly [where: string, call: () => unknown, key: string, suggestion: string])[] = [
  ['the cuda-js build plugin', () => cudaJsPlugin.vite({ modles: ['@cuda-js/jit'] } as never), 'modles', 'modules'],
  ['findKernels', () => findKernels("import { jit } from 'cuda-js';", 'app.js', { rot: '/' } as never), 'rot', 'root'],
];

describe('the options of the build plugin', () => {
  it.each(cases)('%s refuses a misspelt key with the nearest known one', (where, call, key, suggestion) => {
    expectMisspeltOption(PluginOptionError, call, where, key, suggestion);
  });
});
