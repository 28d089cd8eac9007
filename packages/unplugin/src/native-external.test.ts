// The package with the native addon stays an import of a bundle by default,
// whatever else the bundler inlines: its addon then loads where the app runs
// (tooling/bundled-apps ships and runs such bundles with each bundler).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { cudaJsPlugin } from './cuda-js-plugin.js';
import { PluginOptionError } from './plugin-options.js';

const here = dirname(fileURLToPath(import.meta.url));

/** cuda-js bundled whole into one ES module by esbuild, with the plugin given `options`. */
async function bundleStack(options: Parameters<typeof cudaJsPlugin.esbuild>[0]): Promise<string> {
  const r = await esbuild.build({
    stdin: {
      contents: "import { driver } from 'cuda-js';\nconsole.log(typeof driver.cuInit);\n",
      resolveDir: here,
      loader: 'js',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    plugins: [cudaJsPlugin.esbuild(options)],
  });
  return r.outputFiles[0]!.text;
}

describe("the plugin's native option", () => {
  it('keeps @cuda-js/bindings an import of the bundle by default, and inlines the rest of the stack', async () => {
    const code = await bundleStack(undefined);
    expect(code).toMatch(/from "@cuda-js\/bindings"/);
    expect(code).not.toMatch(/from "cuda-js"|from "@cuda-js\/(?:core|jit|memory-view)"/);
  }, 60_000);

  it("inlines it under native: 'bundle' (its loader then looks for the installed package)", async () => {
    const code = await bundleStack({ native: 'bundle', include: () => false });
    expect(code).not.toMatch(/from "@cuda-js\/bindings"/);
    expect(code).toContain('was bundled into');
  }, 60_000);

  it('refuses another value, with what it takes', () => {
    expect(() => cudaJsPlugin.esbuild({ native: 'copy' as never })).toThrow(PluginOptionError);
    expect(() => cudaJsPlugin.esbuild({ native: 'copy' as never })).toThrow("'external' or 'bundle'");
  });
});
