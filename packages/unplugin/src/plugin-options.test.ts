import { describe, expect, it } from 'vitest';
import { cudaJsPlugin } from './cuda-js-plugin.js';
import { checkPluginOptions, PluginOptionError } from './plugin-options.js';

function refusal(options: unknown): PluginOptionError {
  try {
    checkPluginOptions(options);
  } catch (error) {
    if (error instanceof PluginOptionError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('the build plugin options', () => {
  it('accepts the aot option with its architectures, PTX, ptxas and assets folder', () => {
    const aot = { arch: ['sm_80', 'sm_90'], ptx: ['compute_80'], ptxas: '/usr/local/cuda/bin/ptxas', assets: 'aot' };
    expect(checkPluginOptions({ aot }).aot).toEqual(aot);
    expect(checkPluginOptions({ aot: { arch: ['sm_90'], ptx: false, assets: false } }).aot?.ptx).toBe(false);
  });

  it('refuses an aot option without architectures, with a misspelt name, or of the wrong type', () => {
    expect(refusal({ aot: {} }).message).toBe(
      "the cuda-js build plugin's aot option: give the architectures to build cubins for, aot: { arch: ['sm_90'] }",
    );
    expect(refusal({ aot: { arch: [] } }).message).toContain(
      "option 'arch' must be a non-empty array of architectures",
    );
    const misspelt = refusal({ aot: { arch: ['sm_90'], archs: ['sm_80'] } });
    expect(misspelt.problem).toMatchObject({
      kind: 'unknown',
      key: 'archs',
      suggestion: 'arch',
      where: "the cuda-js build plugin's aot option",
    });
    expect(refusal({ aot: { arch: ['sm_90'], ptx: 'compute_90' } }).message).toContain(
      "option 'ptx' must be an array of virtual architectures",
    );
    expect(refusal({ aot: ['sm_90'] }).message).toContain("option 'aot' must be an object");
    expect(refusal({ aot: { arch: 'sm_90' } }).problem).toMatchObject({ kind: 'invalid', key: 'arch' });
  });

  it('refuses them when the plugin is made, before any build', () => {
    expect(() => cudaJsPlugin.esbuild({ aot: { arch: [] } })).toThrow(PluginOptionError);
    expect(() => cudaJsPlugin.vite({ modules: ['cuda-js', 3] as never })).toThrow(
      "option 'modules' must be an array of strings",
    );
  });
});

describe('the build plugin options that are no plain object, or answer twice (hostile input)', () => {
  it('refuses a class instance or a Map, for the plugin and for aot, instead of reading its getters unchecked', () => {
    class Aot {
      get arch(): string {
        return 'sm_90'; // a string, not a list: it was iterated as 's', 'm', ...
      }
    }
    expect(() => checkPluginOptions({ aot: new Aot() })).toThrow(PluginOptionError);
    expect(() => checkPluginOptions({ aot: new Aot() })).toThrow(/must be a plain object/);
    expect(() => checkPluginOptions(new Map([['root', '/app']]))).toThrow(PluginOptionError);
  });

  it('reads each option once, and gives the values it checked', () => {
    let reads = 0;
    const aot = {
      get arch() {
        reads++;
        return reads === 1 ? ['sm_90'] : 'sm_90';
      },
    };
    expect(checkPluginOptions({ aot }).aot?.arch).toEqual(['sm_90']);
    expect(reads).toBe(1);
  });
});

describe("the aot option's assets folder (hostile input)", () => {
  it.each(['../outside', 'kernels/../../outside', '/tmp/kernels', 'C:\\kernels', '..\\outside', ''])(
    'refuses %j: a folder inside the build output only',
    (assets) => {
      expect(() => checkPluginOptions({ aot: { arch: ['sm_90'], assets } })).toThrow(PluginOptionError);
      expect(() => checkPluginOptions({ aot: { arch: ['sm_90'], assets } })).toThrow(
        /a folder inside the build's output/,
      );
    },
  );

  it.each(['kernels-aot', 'assets/kernels', 'a..b'])('takes %j', (assets) => {
    expect(checkPluginOptions({ aot: { arch: ['sm_90'], assets } }).aot?.assets).toBe(assets);
  });
});
